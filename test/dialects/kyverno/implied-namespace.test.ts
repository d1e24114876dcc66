/**
 * A namespaced Kyverno `Policy` that names no namespace applies in the namespace it is created in. Kyverno's CLI,
 * and transmute's evaluation with it, read that namespace as `default`; the IR records that it was implied
 * (Semantics.namespace), so that a translation leaves the namespace to whoever installs the policy (Kyverno
 * Policy, NamespacedMutatingPolicy) or says that it wrote `default` (MAP, mutate-existing MutatingPolicies).
 */
import { describe, expect, it } from 'vitest';
import { generateMutateExistingMpol } from '../../../src/dialects/kyverno-mpol/generate-existing.js';
import { parseText } from '../../../src/golden/run.js';
import { isJsonObject, type JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { parseIrText } from '../../../src/ir/parse-text.js';
import { printPolicies } from '../../../src/ir/print.js';
import { translate } from '../../../src/pipeline.js';
import { docs } from '../kyverno-mpol/support.js';

function teamPolicy(metadata: string, kind = 'Policy'): string {
  return `apiVersion: kyverno.io/v1
kind: ${kind}
metadata: {${metadata}}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata: {labels: {team: a}}
`;
}

const IMPLIED = teamPolicy('name: team');
const NAMED = teamPolicy('name: team, namespace: prod');

function parsed(text: string): Policy[] {
  const r = parseText('policy.yaml', text);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.policies;
}

/** The metadata of the one policy document a translation writes. */
function metadataOf(policies: Policy[], to: 'kyverno-mpol' | 'kyverno'): JsonObject {
  const g = translate(policies, to, 'error');
  expect(g.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const doc = g.documents.find((d) => isJsonObject(d) && !String(d.kind).endsWith('Binding'));
  return (doc as JsonObject).metadata as JsonObject;
}

describe('a namespaced Kyverno Policy that names no namespace', () => {
  it('reads as namespace default, recorded as implied; a named namespace or a ClusterPolicy is not', () => {
    const [implied] = parsed(IMPLIED);
    expect(implied!.id).toBe('default/team');
    expect(implied!.semantics.namespace).toBe('implied');
    expect(parsed(NAMED)[0]!.semantics.namespace).toBeUndefined();
    expect(parsed(teamPolicy('name: team', 'ClusterPolicy'))[0]!.semantics.namespace).toBeUndefined();
  });

  it('becomes a NamespacedMutatingPolicy and a Kyverno Policy that name none either', () => {
    expect(metadataOf(parsed(IMPLIED), 'kyverno-mpol')).toEqual({ name: 'team' });
    expect(metadataOf(parsed(NAMED), 'kyverno-mpol')).toEqual({ name: 'team', namespace: 'prod' });
    const g = translate(parsed(IMPLIED), 'kyverno', 'error');
    expect(g.documents[0]).toMatchObject({ kind: 'Policy', metadata: { name: 'team' } });
    expect(metadataOf(parsed(IMPLIED), 'kyverno')).not.toHaveProperty('namespace');
    expect(metadataOf(parsed(NAMED), 'kyverno')).toMatchObject({ namespace: 'prod' });
  });

  it('says, for MAP (cluster-scoped), that the policy matches namespace default', () => {
    const note = (text: string) => translate(parsed(text), 'map', 'error').diagnostics.find((d) => d.message.includes('names no namespace'));
    const d = note(IMPLIED);
    expect(d).toMatchObject({ code: 'TM4003', severity: 'warning' });
    expect(d!.message).toContain('default/team names no namespace');
    expect(d!.message).toContain('matches the namespace "default"');
    expect(d!.span).toMatchObject({ file: 'policy.yaml', line: 1 });
    expect(note(NAMED)).toBeUndefined();
  });

  it('keeps the record through the IR YAML and text forms', () => {
    const ir = translate(parsed(IMPLIED), 'ir', 'error');
    expect(ir.text).toContain('namespace: implied');
    const fromYaml = parsed(ir.text);
    expect(fromYaml[0]!.semantics.namespace).toBe('implied');
    // Read back from the IR, the policy is no longer a Kyverno Policy: a cluster-wide MutatingPolicy matching the
    // namespace default, which the translation says.
    expect(translate(fromYaml, 'kyverno-mpol', 'error').diagnostics.find((d) => d.message.includes('names no namespace'))).toMatchObject({ code: 'TM4003' });
    const text = printPolicies(parsed(IMPLIED));
    expect(text).toContain('semantics sequential failurePolicy=fail namespace=implied');
    const fromText = parseIrText('policy.ir', text);
    expect(fromText.ok && fromText.value[0]!.semantics.namespace).toBe('implied');
    expect(parseIrText('bad.ir', text.replace('namespace=implied', 'namespace=named')).ok).toBe(false);
  });

  it('says that its mutate-existing rules are written for namespace default', () => {
    const existing = (metadata: string) =>
      generateMutateExistingMpol(
        docs(
          `apiVersion: kyverno.io/v1
kind: Policy
metadata: {${metadata}}
spec:
  rules:
  - name: touch
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    mutate:
      targets:
      - {apiVersion: v1, kind: Secret, name: s}
      patchStrategicMerge:
        metadata: {labels: {touched: "yes"}}
`,
          'kyverno.yaml',
        ),
        { unsupported: 'error' },
      );
    const implied = existing('name: touch');
    expect(implied.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(implied.diagnostics.find((d) => d.message.includes('names no namespace'))?.message).toContain('written for namespace "default"');
    expect(existing('name: touch, namespace: prod').diagnostics.find((d) => d.message.includes('names no namespace'))).toBeUndefined();
  });
});
