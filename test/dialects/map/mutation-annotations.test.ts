/**
 * Gatekeeper's --mutation-annotations carried into a translation (src/dialects/map/emit-annotations.ts): the
 * MutatingPolicy writes both annotations exactly when Gatekeeper would; MAP and ClusterPolicy say why not.
 */
import { describe, expect, it } from 'vitest';
import { mutationAnnotations } from '../../../src/dialects/gatekeeper/annotations.js';
import { parseText } from '../../../src/golden/run.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonValue } from '../../../src/ir/json.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { parsePolicyDocs, translate } from '../../../src/pipeline.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';

const SETTINGS = { mutationAnnotations: { generation: 3 } };
const UID = '2b5c8a6e-0f0e-4c1e-9d1a-7a7e0c6a1f00';

const MUTATORS: Record<string, string> = {
  'AssignMetadata (only where absent)': `apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata: {name: owner}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [ConfigMap]}]}
  location: metadata.labels.owner
  parameters: {assign: {value: team-a}}`,
  'Assign (a value already there changes nothing)': `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata: {name: level}
spec:
  applyTo: [{groups: [""], kinds: [ConfigMap], versions: [v1]}]
  location: data.level
  parameters: {assign: {value: "3"}}`,
  'Assign under a MustNotExist pathTest': `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata: {name: once}
spec:
  applyTo: [{groups: [""], kinds: [ConfigMap], versions: [v1]}]
  location: data.once
  parameters:
    pathTests: [{subPath: data.once, condition: MustNotExist}]
    assign: {value: "first"}`,
};

const OBJECTS: JsonValue[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'x' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'x', labels: { owner: 'team-a' } }, data: { level: '3', once: 'then' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'x', labels: { owner: 'other' }, annotations: { keep: 'me', 'gatekeeper.sh/mutations': 'stale' } }, data: { level: '1' } },
];

function gatekeeper(text: string, object: JsonValue): JsonValue {
  const parsed = parseText('mutators.yaml', text);
  const r = apply(parsed.policies, { object, operation: 'CREATE', uid: UID }, { onFixpointConverged: mutationAnnotations({ generation: 3, uuid: () => UID }) });
  expect(r.allowed).toBe(true);
  return r.object;
}

function translated(text: string, to: 'kyverno-mpol' | 'map' | 'kyverno') {
  return translate(parseText('mutators.yaml', text).policies, to, 'error', SETTINGS);
}

function runMpol(yaml: string, object: JsonValue): JsonValue {
  const loaded = loadYamlText('mpol.yaml', yaml);
  if (!loaded.ok) throw new Error('generated YAML does not load');
  const request: AdmissionRequest = { object, operation: 'CREATE', uid: UID };
  const r = apply(parsePolicyDocs(loaded.value).policies, request);
  expect(r.allowed).toBe(true);
  return r.object;
}

describe('Gatekeeper --mutation-annotations in translations', () => {
  for (const [name, text] of Object.entries(MUTATORS)) {
    it(`MutatingPolicy: ${name}: the same object as Gatekeeper, annotations included`, () => {
      const g = translated(text, 'kyverno-mpol');
      expect(g.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(g.text).toContain('request.uid');
      for (const object of OBJECTS) expect(runMpol(g.text, object), JSON.stringify(object)).toEqual(gatekeeper(text, object));
    });
  }

  it('annotates only a changed object, naming the mutator with its generation', () => {
    const text = MUTATORS['Assign (a value already there changes nothing)']!;
    expect(gatekeeper(text, OBJECTS[0]!)).toMatchObject({ metadata: { annotations: { 'gatekeeper.sh/mutation-id': UID, 'gatekeeper.sh/mutations': 'Assign//level:3' } } });
    expect((gatekeeper(text, OBJECTS[1]!) as { metadata: object }).metadata).not.toHaveProperty('annotations');
  });

  it('MAP: cannot (its CEL request has no uid); ClusterPolicy: yet; Gatekeeper: the mutators themselves', () => {
    const text = MUTATORS['AssignMetadata (only where absent)']!;
    const map = translated(text, 'map').diagnostics.find((d) => d.code === 'TM4001');
    expect(map?.unsupported).toBe('cannot');
    expect(map?.message).toContain('mutation id is a fresh UUID per request');
    expect(translated(text, 'kyverno').diagnostics.find((d) => d.code === 'TM4001')?.unsupported).toBe('yet');
    const gk = translate(parseText('mutators.yaml', text).policies, 'gatekeeper', 'error', SETTINGS);
    expect(gk.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('refuses (yet) several mutators in one policy, and a write of the annotations themselves', () => {
    const both = `${MUTATORS['AssignMetadata (only where absent)']}\n---\n${MUTATORS['Assign (a value already there changes nothing)']}`;
    const several = translated(both, 'kyverno-mpol').diagnostics.find((d) => d.code === 'TM4001');
    expect(several?.unsupported).toBe('yet');
    expect(several?.message).toContain('several mutators');
    const self = MUTATORS['AssignMetadata (only where absent)']!.replace('metadata.labels.owner', 'metadata.annotations."gatekeeper.sh/mutations"');
    expect(translated(self, 'kyverno-mpol').diagnostics.find((d) => d.code === 'TM4001')?.message).toContain('the annotations gatekeeper.sh/mutation-id or gatekeeper.sh/mutations themselves');
  });
});
