/**
 * Kyverno mutate-existing rules written as MutatingPolicies (kyverno-mpol/generate-existing.ts): the document,
 * the refusals, and the proof that counts: the Kyverno policy (src/dialects/kyverno/mutate-existing.ts) and its
 * translation (kyverno-mpol/mutate-existing.ts, as the CLI and as the background controller run it) mutate the
 * same targets for the same trigger.
 */
import { describe, expect, it } from 'vitest';
import { preparePolicies } from '../../../src/conformance/policies.js';
import '../../../src/dialects/registry.js';
import { generateMutateExistingMpol } from '../../../src/dialects/kyverno-mpol/generate-existing.js';
import { objectsProvider, readPolicies } from '../../../src/dialects/kyverno-mpol/mutate-existing.js';
import { cliMutateExisting } from '../../../src/dialects/kyverno-mpol/mutate-existing-cli.js';
import { admissionUpdateRequests, policyEventUpdateRequests, processUpdateRequest } from '../../../src/dialects/kyverno-mpol/mutate-existing-cluster.js';
import { mutateExisting } from '../../../src/dialects/kyverno/mutate-existing.js';
import { isJsonObject, type JsonObject } from '../../../src/ir/json.js';
import type { SourceDoc } from '../../../src/io/source.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { docs } from './support.js';

const md = (o: JsonObject): JsonObject => o.metadata as JsonObject;
const key = (o: JsonObject): string => `${String(o.kind)}/${String(md(o).namespace ?? '')}/${String(md(o).name)}`;
const obj = (kind: string, name: string, namespace: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace, ...((extra.metadata as JsonObject | undefined) ?? {}) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});
const namespace = (name: string): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });

function translate(text: string): { docs: SourceDoc[]; documents: JsonObject[] } {
  const g = generateMutateExistingMpol(docs(text, 'kyverno.yaml'), { unsupported: 'error' });
  const errors = g.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  const loaded = loadYamlText('translated.yaml', g.text);
  if (!loaded.ok) throw new Error('translation does not load');
  return { docs: loaded.value, documents: g.documents };
}

/** The targets after the Kyverno rules ran for the trigger (unchanged ones included). */
function kyvernoTargets(text: string, trigger: AdmissionRequest, targets: JsonObject[]): Map<string, JsonObject> {
  const out = new Map(targets.map((t) => [key(t), t]));
  const r = mutateExisting(docs(text, 'kyverno.yaml'), trigger, targets);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  for (const x of r.results) if (x.result.allowed && isJsonObject(x.result.object)) out.set(key(x.target), x.result.object);
  return out;
}

/** The targets after the translation ran as `kyverno test` runs it (`others`: more objects the cluster holds). */
function cliTargets(translated: SourceDoc[], trigger: AdmissionRequest, targets: JsonObject[], others: JsonObject[] = []): Map<string, JsonObject> {
  const out = new Map(targets.map((t) => [key(t), t]));
  const r = cliMutateExisting(translated, trigger, targets, objectsProvider([...targets, ...others]));
  expect(r.error).toBeUndefined();
  for (const x of r.results) out.set(key(x.target), x.evaluation.object);
  return out;
}

/** The targets after the translation ran in a cluster: the trigger's UpdateRequests, processed. */
function clusterTargets(translated: SourceDoc[], trigger: AdmissionRequest, targets: JsonObject[]): Map<string, JsonObject> {
  const stored = [...new Set(targets.map((t) => String(md(t).namespace ?? '')))].filter((n) => n !== '').map(namespace);
  const out = new Map(targets.map((t) => [key(t), t]));
  const cluster = { objects: () => [...stored, ...out.values()], namespace: (n: string) => stored.find((s) => md(s).name === n), provider: objectsProvider(targets) };
  for (const ur of admissionUpdateRequests(readPolicies(translated).existing, trigger, cluster.provider)) {
    for (const w of processUpdateRequest(ur, cluster).writes) out.set(key(w.target), w.object);
  }
  return out;
}

/** Kyverno and its translation (CLI and cluster) leave the same targets; returns them. */
function sameTargets(text: string, trigger: AdmissionRequest, targets: JsonObject[]): Map<string, JsonObject> {
  const { docs: translated } = translate(text);
  const expected = kyvernoTargets(text, trigger, targets);
  expect(cliTargets(translated, trigger, targets)).toEqual(expected);
  expect(clusterTargets(translated, trigger, targets)).toEqual(expected);
  return expected;
}

function clusterPolicy(rule: string, kind = 'ClusterPolicy', metadata = 'name: pol'): string {
  return `apiVersion: kyverno.io/v1
kind: ${kind}
metadata:
  ${metadata}
spec:
  rules:
  - name: r
${rule.replace(/^/gm, '    ')}
`;
}

const BASIC_RULE = `match:
  any:
  - resources:
      kinds: [ConfigMap]
      names: [dictionary-*]
mutate:
  targets:
  - apiVersion: v1
    kind: Secret
    name: secret-1
    namespace: "{{ request.object.metadata.namespace }}"
  patchStrategicMerge:
    metadata:
      labels:
        from: "{{ request.object.metadata.name }}"`;
const BASIC = clusterPolicy(BASIC_RULE);

const create = (object: JsonObject, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({ object, oldObject: null, operation: 'CREATE', userInfo: { username: 'u' }, ...extra });

describe('kyverno-mpol generation of mutate-existing rules', () => {
  it('writes a MutatingPolicy: trigger kinds and operations, the target resource, conditions, the patch', () => {
    const { documents } = translate(BASIC);
    expect(documents).toHaveLength(1);
    const spec = documents[0]!.spec as JsonObject;
    expect(documents[0]).toMatchObject({ apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy', metadata: { name: 'pol' } });
    expect(spec.evaluation).toEqual({ mutateExisting: { enabled: true } });
    expect(spec.matchConstraints).toEqual({ resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE', 'CONNECT'] }] });
    expect(spec.targetMatchConstraints).toEqual({ resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['*'], resourceNames: ['secret-1'] }] });
    expect((spec.targetMatchConditions as JsonObject[]).map((c) => c.name)).toEqual(['admission-trigger', 'trigger', 'target-namespace']);
    expect((spec.targetMatchConditions as JsonObject[])[0]!.expression).toBe('has(request.requestKind)');
    expect((spec.mutations as JsonObject[])[0]).toMatchObject({ patchType: 'JSONPatch' });
  });

  it('mutates the targets Kyverno mutates: request.object is the trigger, the patch lands on the target', () => {
    const targets = [obj('Secret', 'secret-1', 'staging'), obj('Secret', 'secret-1', 'prod'), obj('Secret', 'secret-2', 'staging')];
    const out = sameTargets(BASIC, create(obj('ConfigMap', 'dictionary-1', 'staging')), targets);
    expect(md(out.get('Secret/staging/secret-1')!).labels).toEqual({ from: 'dictionary-1' });
    expect(out.get('Secret/prod/secret-1')).toEqual(targets[1]);
    // A trigger the rule does not match changes nothing, in the CLI too (the trigger condition).
    const none = sameTargets(BASIC, create(obj('ConfigMap', 'other', 'staging')), targets);
    expect([...none.values()]).toEqual(targets);
  });

  it('a wildcard target name, rule and target context, rule preconditions', () => {
    const text = clusterPolicy(`match:
  any:
  - resources:
      kinds: [ConfigMap]
preconditions:
  all:
  - key: "{{ request.object.metadata.name }}"
    operator: Equals
    value: trigger
context:
- name: triggerContent
  variable:
    jmesPath: request.object.data.content
mutate:
  targets:
  - apiVersion: v1
    kind: ConfigMap
    namespace: "{{ request.object.metadata.namespace }}"
    name: "target*"
    context:
    - name: targetContent
      variable:
        jmesPath: target.data.content
  patchStrategicMerge:
    data:
      content: "{{ triggerContent }}"
      previous: "{{ targetContent }}"`);
    const targets = [obj('ConfigMap', 'target-1', 'ns', { data: { content: 'one' } }), obj('ConfigMap', 'other', 'ns', { data: { content: 'two' } })];
    const out = sameTargets(text, create(obj('ConfigMap', 'trigger', 'ns', { data: { content: 'new' } })), targets);
    expect(out.get('ConfigMap/ns/target-1')!.data).toEqual({ content: 'new', previous: 'one' });
    const skipped = sameTargets(text, create(obj('ConfigMap', 'not-the-trigger', 'ns', { data: { content: 'new' } })), targets);
    expect([...skipped.values()]).toEqual(targets);
  });

  it('a target name from a substituted value, matched as the wildcard pattern it is (or every name when empty)', () => {
    const text = clusterPolicy(`match:
  any:
  - resources:
      kinds: [ConfigMap]
      names: [trigger]
mutate:
  targets:
  - apiVersion: v1
    kind: ConfigMap
    namespace: "{{ request.object.metadata.namespace }}"
    name: "{{ request.object.data.target }}"
  patchStrategicMerge:
    metadata:
      labels:
        touched: "yes"`);
    const targets = [obj('ConfigMap', 'target-1', 'ns'), obj('ConfigMap', 'target-2', 'ns'), obj('ConfigMap', 'other', 'ns'), obj('ConfigMap', 'target-1', 'elsewhere')];
    const touched = (target: string): string[] => {
      const out = sameTargets(text, create(obj('ConfigMap', 'trigger', 'ns', { data: { target } })), targets);
      return [...out.entries()].filter(([, o]) => (md(o).labels as JsonObject | undefined)?.touched === 'yes').map(([k]) => k);
    };
    expect(touched('target-*')).toEqual(['ConfigMap/ns/target-1', 'ConfigMap/ns/target-2']);
    expect(touched('oth?r')).toEqual(['ConfigMap/ns/other']);
    expect(touched('other')).toEqual(['ConfigMap/ns/other']);
    expect(touched('a.b(c')).toEqual([]);
    expect(touched('')).toEqual(['ConfigMap/ns/target-1', 'ConfigMap/ns/target-2', 'ConfigMap/ns/other']);
  });

  it('a label selector and target preconditions', () => {
    const text = clusterPolicy(`match:
  any:
  - resources:
      kinds: [Secret]
mutate:
  targets:
  - apiVersion: v1
    kind: ConfigMap
    selector:
      matchLabels:
        watch: "yes"
    preconditions:
      all:
      - key: "{{ target.metadata.labels.foo || '' }}"
        operator: Equals
        value: bar
  patchStrategicMerge:
    metadata:
      labels:
        mutated: "true"`);
    const targets = [
      obj('ConfigMap', 'a', 'ns', { metadata: { labels: { watch: 'yes', foo: 'bar' } } }),
      obj('ConfigMap', 'b', 'ns', { metadata: { labels: { watch: 'yes' } } }),
      obj('ConfigMap', 'c', 'ns', { metadata: { labels: { foo: 'bar' } } }),
    ];
    const out = sameTargets(text, create(obj('Secret', 's', 'ns')), targets);
    expect(md(out.get('ConfigMap/ns/a')!).labels).toEqual({ watch: 'yes', foo: 'bar', mutated: 'true' });
    expect(out.get('ConfigMap/ns/b')).toEqual(targets[1]);
    expect(out.get('ConfigMap/ns/c')).toEqual(targets[2]);
  });

  it('a DELETE trigger: request.object reads the deleted object, as Kyverno substitutes it', () => {
    const text = clusterPolicy(`match:
  any:
  - resources:
      kinds: [ConfigMap]
      names: [gone]
      operations: [DELETE]
mutate:
  targets:
  - apiVersion: v1
    kind: Secret
    name: s
    namespace: "{{ request.object.metadata.namespace }}"
  patchStrategicMerge:
    metadata:
      labels:
        deleted: "{{ request.object.metadata.name }}"`);
    const spec = translate(text).documents[0]!.spec as JsonObject;
    expect((spec.matchConstraints as JsonObject).resourceRules).toEqual([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['configmaps'], operations: ['DELETE'] }]);
    const targets = [obj('Secret', 's', 'ns')];
    const deletion: AdmissionRequest = { object: null, oldObject: obj('ConfigMap', 'gone', 'ns'), operation: 'DELETE', namespace: 'ns', name: 'gone', userInfo: { username: 'u' } };
    const out = sameTargets(text, deletion, targets);
    expect(md(out.get('Secret/ns/s')!).labels).toEqual({ deleted: 'gone' });
    // A create does not trigger it.
    expect([...sameTargets(text, create(obj('ConfigMap', 'gone', 'ns')), targets).values()]).toEqual(targets);
  });

  it('a namespaced Policy: a NamespacedMutatingPolicy reaching targets of its namespace only', () => {
    const text = clusterPolicy(
      `match:
  any:
  - resources:
      kinds: [ConfigMap]
mutate:
  targets:
  - apiVersion: v1
    kind: Secret
  patchStrategicMerge:
    metadata:
      labels:
        touched: "yes"`,
      'Policy',
      'name: pol\n  namespace: team',
    );
    expect(translate(text).documents[0]).toMatchObject({ kind: 'NamespacedMutatingPolicy', metadata: { name: 'pol', namespace: 'team' } });
    const targets = [obj('Secret', 'a', 'team'), obj('Secret', 'b', 'other')];
    const out = sameTargets(text, create(obj('ConfigMap', 'c', 'team')), targets);
    expect(md(out.get('Secret/team/a')!).labels).toEqual({ touched: 'yes' });
    expect(out.get('Secret/other/b')).toEqual(targets[1]);
  });

  it("never runs on the background controller's scans (policy install, reconcile), as the Kyverno rule does not", () => {
    const { docs: translated } = translate(BASIC);
    const stored = [namespace('staging'), obj('Secret', 'secret-1', 'staging'), obj('ConfigMap', 'dictionary-1', 'staging')];
    const cluster = { objects: () => stored, namespace: (n: string) => stored.find((s) => md(s).name === n && s.kind === 'Namespace'), provider: objectsProvider(stored) };
    const [unit] = readPolicies(translated).existing;
    const outs = policyEventUpdateRequests(unit!, cluster).map((ur) => processUpdateRequest(ur, cluster));
    expect(outs.flatMap((o) => o.evaluated.map((e) => e.evaluation.responses[0]!.status))).toEqual(['skip']);
    expect(outs.flatMap((o) => o.writes)).toEqual([]);
  });

  it('{{@}} in the patch reads the target, the MutatingPolicy\'s object', () => {
    const text = clusterPolicy(`match:
  any:
  - resources:
      kinds: [ConfigMap]
      names: [cmone]
mutate:
  targets:
  - apiVersion: v1
    kind: ConfigMap
    name: cmtwo
    namespace: "{{ request.object.metadata.namespace }}"
  patchStrategicMerge:
    data:
      keytwo: "{{ @ }} plus {{ request.object.data.keyone }}"`);
    const trigger = { ...obj('ConfigMap', 'cmone', 'foo'), data: { keyone: 'one' } };
    const had = { ...obj('ConfigMap', 'cmtwo', 'foo'), data: { keytwo: 'two' } };
    const out = sameTargets(text, create(trigger), [had, obj('ConfigMap', 'cmtwo', 'bar')]);
    expect(out.get('ConfigMap/foo/cmtwo')!.data).toEqual({ keytwo: 'two plus one' });
    // A target without the field: whatever Kyverno makes of the missing `@`, the translation makes too.
    sameTargets(text, create({ ...obj('ConfigMap', 'cmone', 'bar'), data: { keyone: 'x' } }), [had, obj('ConfigMap', 'cmtwo', 'bar')]);
  });

  it("a trigger namespaceSelector: the labels of the trigger's Namespace, read from the cluster", () => {
    const text = clusterPolicy(BASIC_RULE.replace('      names: [dictionary-*]', '      names: [dictionary-*]\n      namespaceSelector:\n        matchExpressions:\n        - {key: org, operator: Exists}'));
    const labelled = (name: string, labels: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    const staging = labelled('staging', { org: 'a' });
    const prod = labelled('prod', { team: 'b' });
    const targets = [obj('Secret', 'secret-1', 'staging'), obj('Secret', 'secret-1', 'prod')];
    const { docs: translated } = translate(text);
    for (const [ns, trigger] of [
      [staging, obj('ConfigMap', 'dictionary-1', 'staging')],
      [prod, obj('ConfigMap', 'dictionary-1', 'prod')],
    ] as const) {
      const request = create(trigger, { namespaceObject: ns });
      // The translation reads the Namespace through resource.Get: it is one of the cluster's objects.
      expect(cliTargets(translated, request, targets, [staging, prod])).toEqual(kyvernoTargets(text, request, targets));
    }
    expect(md(kyvernoTargets(text, create(obj('ConfigMap', 'dictionary-1', 'staging'), { namespaceObject: staging }), targets).get('Secret/staging/secret-1')!).labels).toEqual({ from: 'dictionary-1' });
    expect([...kyvernoTargets(text, create(obj('ConfigMap', 'dictionary-1', 'prod'), { namespaceObject: prod }), targets).values()]).toEqual(targets);
  });

  it('refuses what a MutatingPolicy cannot say, or transmute does not say yet, with the class', () => {
    const refusal = (text: string) => {
      const g = generateMutateExistingMpol(docs(text, 'kyverno.yaml'), { unsupported: 'error' });
      expect(g.documents).toEqual([]);
      return g.diagnostics.find((d) => d.code === 'TM4001')!;
    };
    const onUpdate = refusal(BASIC.replace('  targets:', '  mutateExistingOnPolicyUpdate: true\n      targets:'));
    expect(onUpdate).toMatchObject({ unsupported: 'cannot', span: { line: 14, col: 37 } }); // the field itself
    expect(onUpdate.message).toMatch(/mutateExistingOnPolicyUpdate/);
    expect(refusal(BASIC.replace('apiVersion: v1\n        kind: Secret', 'apiVersion: "*"\n        kind: Secret'))).toMatchObject({ unsupported: 'cannot' });
    const two = BASIC.replace('  patchStrategicMerge:', '  - apiVersion: v1\n        kind: ConfigMap\n      patchStrategicMerge:');
    expect(refusal(two)).toMatchObject({ unsupported: 'yet' });
  });

  it('a MutatingAdmissionPolicy translation is refused: it runs only at admission', () => {
    const prepared = preparePolicies({ id: 'x', dialect: 'kyverno', policyDocs: docs(BASIC, 'kyverno.yaml'), siblingDocs: [] }, 'map');
    expect(prepared).toMatchObject({ kind: 'stop', result: { status: 'unsupported', class: 'cannot' } });
    expect((prepared as { result: { reason: string } }).result.reason).toMatch(/runs only at admission/);
  });
});
