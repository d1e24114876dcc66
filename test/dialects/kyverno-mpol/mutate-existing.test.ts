/**
 * Mutate existing for MutatingPolicy (kyverno-mpol/mutate-existing.ts): the Kyverno CLI's way (every target
 * through every mutate-existing policy, the trigger not matched) and the background controller's (UpdateRequests
 * from admission and from policy events, target listing, the made-up request of a bare UpdateRequest), and what
 * the CEL variables are bound to on a target.
 */
import { describe, expect, it } from 'vitest';
import '../../../src/dialects/registry.js';
import { objectsProvider, readPolicies } from '../../../src/dialects/kyverno-mpol/mutate-existing.js';
import { cliMutateExisting, cliTestTargets, cliTrigger } from '../../../src/dialects/kyverno-mpol/mutate-existing-cli.js';
import { admissionUpdateRequests, policyEventUpdateRequests, processUpdateRequest, type MpolCluster } from '../../../src/dialects/kyverno-mpol/mutate-existing-cluster.js';
import type { JsonObject } from '../../../src/ir/json.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { docs } from './support.js';

const cm = (name: string, namespace = 'ns', labels: Record<string, string> = {}): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { k: 'v' } });
const secret = (name: string, namespace = 'ns'): JsonObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } });
const namespace = (name: string, labels: Record<string, string> = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });
const create = (object: JsonObject, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({ object, oldObject: null, operation: 'CREATE', userInfo: { username: 'alice' }, ...extra });

/** A mutate-existing MutatingPolicy triggered by Secrets; `spec` follows matchConstraints. */
function policy(spec: string, head = 'kind: MutatingPolicy\nmetadata:\n  name: me'): string {
  return `apiVersion: policies.kyverno.io/v1
${head}
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE, DELETE]
      resources: [secrets]
${spec.replace(/^/gm, '  ')}
`;
}

const TARGET_CONFIGMAPS = `targetMatchConstraints:
  resourceRules:
  - apiGroups: [""]
    apiVersions: [v1]
    operations: ["*"]
    resources: [configmaps]`;

/** A mutation recording what the CEL variables are bound to on a target. */
const RECORD = `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: >-
      [JSONPatch{op: "add", path: "/metadata/annotations", value: {
        "trigger": request.object == null ? "null" : request.object.metadata.name,
        "target": object.metadata.name,
        "operation": request.operation,
        "user": request.userInfo.?username.orValue("none"),
        "admission": string(has(request.requestKind)),
        "old": string(oldObject == null),
        "ns": string(namespaceObject == null)}}]`;

class Cluster implements MpolCluster {
  constructor(readonly stored: JsonObject[]) {}
  objects(): readonly JsonObject[] {
    return this.stored;
  }
  namespace(name: string): JsonObject | undefined {
    return this.stored.find((o) => o.kind === 'Namespace' && (o.metadata as JsonObject).name === name);
  }
  get provider() {
    return objectsProvider(this.stored);
  }
}

describe('kyverno-mpol mutate existing: the Kyverno CLI', () => {
  it('runs each target through the policy: object is the target, request the trigger, no old object or namespace', () => {
    const out = cliMutateExisting(docs(policy(`${TARGET_CONFIGMAPS}\n${RECORD}`)), create(secret('s')), [cm('a'), secret('other')]);
    expect(out.error).toBeUndefined();
    expect(out.results.map((r) => r.target)).toEqual([cm('a')]); // the Secret is not a target
    expect(out.results[0]!.evaluation.responses).toEqual([{ policy: 'me', status: 'pass' }]);
    expect((out.results[0]!.evaluation.object.metadata as JsonObject).annotations).toEqual({
      trigger: 's',
      target: 'a',
      operation: 'CREATE',
      user: 'alice',
      admission: 'true',
      old: 'true',
      ns: 'true',
    });
  });

  it('does not match the trigger (processor.go targetMatchPredicate only looks at targets)', () => {
    const out = cliMutateExisting(docs(policy(`${TARGET_CONFIGMAPS}\n${RECORD}`)), create(cm('not-a-secret')), [cm('a')]);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.evaluation.responses[0]!.status).toBe('pass');
  });

  it('skips a target its targetMatchConditions reject, and never reads matchConditions for targets', () => {
    const text = policy(`matchConditions:
- name: never-for-targets
  expression: "false"
${TARGET_CONFIGMAPS}
targetMatchConditions:
- name: only-a
  expression: object.metadata.name == 'a'
${RECORD}`);
    const out = cliMutateExisting(docs(text), create(secret('s')), [cm('a'), cm('b')]);
    expect(out.results.map((r) => r.evaluation.responses[0]!.status)).toEqual(['pass', 'skip']);
    expect(out.results[1]!.evaluation.object).toEqual(cm('b'));
  });

  it('selects targets with the expression, evaluated on the trigger with only object and variables bound', () => {
    const text = policy(`variables:
- name: wanted
  expression: object.metadata.name + '-cm'
targetMatchConstraints:
  expression: resource.get("v1", "configmaps", object.metadata.namespace, variables.wanted)
${RECORD}`);
    const targets = [cm('s-cm'), cm('b')];
    const out = cliMutateExisting(docs(text), create(secret('s')), targets, objectsProvider(targets));
    expect(out.results.map((r) => (r.target.metadata as JsonObject).name)).toEqual(['s-cm']);
    // `request` is not bound there in the CLI: an expression reading it stops the run.
    const bad = policy(`targetMatchConstraints:\n  expression: resource.get("v1", "configmaps", request.namespace, "b")\n${RECORD}`);
    expect(cliMutateExisting(docs(bad), create(secret('s')), targets, objectsProvider(targets)).error).toMatch(/failed to discover CEL targets/);
  });

  it('each trigger starts from the supplied targets; the trigger itself is admitted by every MutatingPolicy', () => {
    const text = policy(`${TARGET_CONFIGMAPS}
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"by": request.object.metadata.name}}}'`);
    const triggers = [secret('s1'), secret('s2')].map((o) => ({ object: o, request: create(o) }));
    const responses = cliTestTargets(docs(text), triggers, [cm('a')]);
    if (typeof responses === 'string') throw new Error(responses);
    const list = [...responses.values()][0]!;
    expect(list.map((r) => (r.patched!.metadata as JsonObject).labels)).toEqual([{ by: 's1' }, { by: 's2' }]);
    // engine Handle with no predicate: a policy with targets still mutates the trigger in the CLI.
    const admitted = cliTrigger(docs(text), create(secret('s')));
    if (typeof admitted === 'string') throw new Error(admitted);
    expect(admitted.responses).toEqual([{ policy: 'me', status: 'pass' }]);
    expect((admitted.object as JsonObject).metadata).toMatchObject({ labels: { by: 's' } });
  });
});

describe('kyverno-mpol mutate existing: the background controller', () => {
  it('creates an UpdateRequest for an admitted trigger only when admission is enabled and match and conditions hold', () => {
    const units = readPolicies(docs(policy(`matchConditions:\n- name: named\n  expression: object.metadata.name == 'go'\n${TARGET_CONFIGMAPS}\n${RECORD}`))).existing;
    expect(admissionUpdateRequests(units, create(secret('go')))).toHaveLength(1);
    expect(admissionUpdateRequests(units, create(secret('stop')))).toHaveLength(0);
    expect(admissionUpdateRequests(units, create(cm('go')))).toHaveLength(0);
    expect(admissionUpdateRequests(units, create(secret('go'), { dryRun: true }))).toHaveLength(0);
    const disabled = readPolicies(docs(policy(`${TARGET_CONFIGMAPS}\n${RECORD}`).replace('mutateExisting:', 'admission:\n      enabled: false\n    mutateExisting:'))).existing;
    expect(admissionUpdateRequests(disabled, create(secret('go')))).toHaveLength(0);
  });

  it('lists targets by targetMatchConstraints and evaluates each with the trigger request', () => {
    const cluster = new Cluster([namespace('ns'), cm('a'), cm('b', 'other'), secret('s')]);
    const [unit] = readPolicies(docs(policy(`${TARGET_CONFIGMAPS}\n${RECORD}`))).existing;
    const [ur] = admissionUpdateRequests([unit!], create(secret('s')));
    const out = processUpdateRequest(ur!, cluster);
    expect(out.errors).toEqual([]);
    expect(out.writes.map((w) => `${(w.object.metadata as JsonObject).namespace}/${(w.object.metadata as JsonObject).name}`)).toEqual(['ns/a', 'other/b']);
    expect((out.writes[0]!.object.metadata as JsonObject).annotations).toMatchObject({ trigger: 's', user: 'alice', admission: 'true' });
  });

  it('on a policy event, a bare UpdateRequest mutates every target with a request made up for the target itself', () => {
    // No targetMatchConstraints: the targets are what matchConstraints lists; matchConditions are not tested.
    const text = policy(`matchConditions:\n- name: never\n  expression: "false"\n${RECORD}`);
    const cluster = new Cluster([namespace('ns'), secret('s1'), cm('a')]);
    const [unit] = readPolicies(docs(text)).existing;
    const urs = policyEventUpdateRequests(unit!, cluster);
    expect(urs).toEqual([{ unit }]);
    const out = processUpdateRequest(urs[0]!, cluster);
    expect(out.writes).toHaveLength(1);
    expect((out.writes[0]!.object.metadata as JsonObject).annotations).toEqual({
      trigger: 's1', // request.object is the target
      target: 's1',
      operation: 'UPDATE',
      user: 'none', // no user
      admission: 'false', // no requestKind
      old: 'true',
      ns: 'true',
    });
  });

  it('a NamespacedMutatingPolicy lists targets in its own namespace only', () => {
    const text = policy(`${TARGET_CONFIGMAPS}\n${RECORD}`, 'kind: NamespacedMutatingPolicy\nmetadata:\n  name: me\n  namespace: ns');
    const cluster = new Cluster([namespace('ns'), namespace('other'), cm('a'), cm('b', 'other')]);
    const [unit] = readPolicies(docs(text)).existing;
    expect(admissionUpdateRequests([unit!], create(secret('s', 'other')))).toHaveLength(0);
    const out = processUpdateRequest({ unit: unit! }, cluster);
    expect(out.writes.map((w) => (w.object.metadata as JsonObject).name)).toEqual(['a']);
  });

  it('with an expression: one UpdateRequest per existing trigger on policy events; matchConditions on the stored trigger', () => {
    const text = policy(`matchConditions:
- name: labelled
  expression: object.metadata.?labels.?go.orValue('') == 'yes'
targetMatchConstraints:
  expression: resource.get("v1", "configmaps", object.metadata.namespace, "a")
${RECORD}`);
    const labelled = { ...secret('s1'), metadata: { name: 's1', namespace: 'ns', labels: { go: 'yes' } } };
    const cluster = new Cluster([namespace('ns'), labelled, secret('s2'), cm('a')]);
    const [unit] = readPolicies(docs(text)).existing;
    const urs = policyEventUpdateRequests(unit!, cluster);
    expect(urs.map((u) => (u.trigger!.object as JsonObject).metadata)).toEqual([labelled.metadata, secret('s2').metadata]);
    const outs = urs.map((u) => processUpdateRequest(u, cluster));
    expect(outs.map((o) => o.writes.length)).toEqual([1, 0]);
    expect((outs[0]!.writes[0]!.object.metadata as JsonObject).annotations).toMatchObject({ trigger: 's1', admission: 'false', user: 'none' });
  });

  it('a deleted trigger: the expression reads the deleted object, request.object is null', () => {
    const text = policy(`targetMatchConstraints:\n  expression: resource.get("v1", "configmaps", object.metadata.namespace, "a")\n${RECORD}`);
    const cluster = new Cluster([namespace('ns'), cm('a')]);
    const [unit] = readPolicies(docs(text)).existing;
    const [ur] = admissionUpdateRequests([unit!], { object: null, oldObject: secret('gone'), operation: 'DELETE', namespace: 'ns', name: 'gone' });
    const out = processUpdateRequest(ur!, cluster);
    expect((out.writes[0]!.object.metadata as JsonObject).annotations).toMatchObject({ trigger: 'null', operation: 'DELETE' });
  });

  it('a target that would not change is not written', () => {
    const text = policy(`${TARGET_CONFIGMAPS}
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{data: {"k": "v"}}'`);
    const [unit] = readPolicies(docs(text)).existing;
    const out = processUpdateRequest({ unit: unit! }, new Cluster([namespace('ns'), cm('a')]));
    expect(out.evaluated).toHaveLength(1);
    expect(out.writes).toHaveLength(0);
  });
});

describe('kyverno-mpol mutate existing: admission', () => {
  it('a policy with targets never mutates the admission request; request.object is the request object throughout', async () => {
    const { kyvernoMpolDialect } = await import('../../../src/dialects/kyverno-mpol/index.js');
    const withTargets = docs(policy(`${TARGET_CONFIGMAPS}\n${RECORD}`));
    expect(kyvernoMpolDialect.parse(withTargets).policies).toEqual([]);
    // targetMatchConstraints without rules or expression: the policy is an admission policy too.
    const empty = docs(policy(`targetMatchConstraints:\n  namespaceSelector: {}\n${RECORD}`));
    expect(kyvernoMpolDialect.parse(empty).policies).toHaveLength(1);
  });
});

describe('kyverno-mpol mutate existing: kyverno-test.yaml rows', () => {
  it('checks targets on their responses and resources on their admission, as kyverno test does', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { stringify } = await import('yaml');
    const { loadTestSuite, runTestSuite } = await import('../../../src/dialects/kyverno/test-suite/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'transmute-mpol-suite-'));
    try {
      const text = policy(`${TARGET_CONFIGMAPS}
targetMatchConditions:
- name: only-a
  expression: object.metadata.name == 'a'
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"by": request.object.metadata.name}}}'`);
      writeFileSync(join(dir, 'policy.yaml'), text);
      writeFileSync(join(dir, 'trigger.yaml'), stringify(secret('s')));
      writeFileSync(join(dir, 'targets.yaml'), [cm('a'), cm('b')].map((o) => stringify(o)).join('---\n'));
      writeFileSync(join(dir, 'patched.yaml'), stringify({ ...cm('a'), metadata: { name: 'a', namespace: 'ns', labels: { by: 's' } } }));
      const results = [
        { policy: 'me', isMutatingPolicy: true, kind: 'ConfigMap', resources: ['ns/a'], patchedResources: 'patched.yaml', result: 'pass' },
        // b is skipped by the target condition: no pass response carries it, which kyverno test reports as not found.
        { policy: 'me', isMutatingPolicy: true, kind: 'ConfigMap', resources: ['ns/b'], result: 'skip' },
      ];
      writeFileSync(join(dir, 'kyverno-test.yaml'), stringify({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Test', metadata: { name: 't' }, policies: ['policy.yaml'], resources: ['trigger.yaml'], targetResources: ['targets.yaml'], results }));
      const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'));
      if (!suite.ok) throw new Error('suite does not load');
      const rows = runTestSuite(suite.value);
      expect(rows.map((r) => [r.resource, r.status])).toEqual([
        ['ConfigMap/ns/a', 'passed'],
        ['ConfigMap/ns/b', 'failed'],
      ]);
      expect(rows[1]!.reason).toMatch(/not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
