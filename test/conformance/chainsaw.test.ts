/**
 * The chainsaw replay: the API server pieces it models (ServiceAccount admission, typed persistence), the
 * background controller for Kyverno `mutate.targets` rules (fixtures written in the chainsaw case layout), and
 * the Kyverno-dialect pass rate on the shared corpus.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runConformance } from '../../src/conformance/run.js';
import { persisted, serviceAccountAdmission } from '../../src/conformance/runners/chainsaw-apiserver.js';
import type { JsonObject } from '../../src/ir/json.js';
import { describeShared, sharedPath } from '../support/shared.js';

const pod = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });

describe('chainsaw API server model', () => {
  it('adds the service account token volume and mounts on a Pod create', () => {
    const out = serviceAccountAdmission(pod({ containers: [{ name: 'c' }], volumes: [{ name: 'v', emptyDir: {} }] }), 'abcde');
    const spec = out.spec as JsonObject;
    expect(spec.serviceAccountName).toBe('default');
    expect((spec.volumes as JsonObject[]).map((v) => v.name)).toEqual(['v', 'kube-api-access-abcde']);
    expect((spec.containers as JsonObject[])[0]!.volumeMounts).toEqual([{ name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  });

  it('mounts nothing when automount is disabled, and leaves other kinds alone', () => {
    const spec = serviceAccountAdmission(pod({ automountServiceAccountToken: false, containers: [{ name: 'c' }] }), 'x').spec as JsonObject;
    expect(spec.volumes).toBeUndefined();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(serviceAccountAdmission(cm, 'x')).toBe(cm);
  });

  it('drops empty lists of built-in kinds on persistence, not of custom resources', () => {
    expect(persisted(pod({ containers: [{ name: 'c', env: [] }] }))).toEqual(pod({ containers: [{ name: 'c' }] }));
    const cr = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { items: [] } };
    expect(persisted(cr)).toBe(cr);
  });
});

const root = mkdtempSync(join(tmpdir(), 'transmute-chainsaw-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes a Kyverno chainsaw case (manifest `ops` and the files they name) and returns its directory. */
function chainsawCase(name: string, features: string[], ops: { op: string; file?: string; docs?: JsonObject[]; ref?: JsonObject }[], dialects = ['kyverno']): string {
  const dir = join(root, 'kyverno-chainsaw', name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    source: 'kyverno-chainsaw',
    dialects,
    usable_offline: true,
    features,
    ops: ops.map(({ docs, ...op }) => {
      if (docs && op.file) writeFileSync(join(dir, op.file), docs.map((d) => stringify(d)).join('---\n'));
      return op;
    }),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

const labelSecretPolicy = (onPolicyUpdate: boolean): JsonObject => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'label-secret' },
  spec: {
    rules: [
      {
        name: 'on-configmap',
        match: { any: [{ resources: { kinds: ['ConfigMap'], names: ['trigger'] } }] },
        mutate: {
          mutateExistingOnPolicyUpdate: onPolicyUpdate,
          targets: [{ apiVersion: 'v1', kind: 'Secret', name: 'target', namespace: '{{ request.object.metadata.namespace }}' }],
          patchStrategicMerge: { metadata: { labels: { from: '{{ request.object.metadata.name }}' } } },
        },
      },
    ],
  },
});
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'target', namespace: 'ns' } };
const trigger = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'trigger', namespace: 'ns' } };
const labelled = { ...secret, metadata: { ...secret.metadata, labels: { from: 'trigger' } } };

async function statusOf(dir: string): Promise<{ status: string; reason?: string }> {
  const run = await runConformance([dir]);
  expect(run.outcomes).toHaveLength(1);
  return run.outcomes[0]!;
}

describe('chainsaw replay of Kyverno mutate existing', () => {
  it('mutates the target when a trigger is admitted after the policy', async () => {
    const dir = chainsawCase('on-trigger', ['mutateExisting'], [
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: 'policy', file: 'policy.yaml', docs: [labelSecretPolicy(false)] },
      { op: 'apply', file: 'trigger.yaml', docs: [trigger] },
      { op: 'assert', file: 'assert.yaml', docs: [labelled] },
    ]);
    expect(await statusOf(dir)).toEqual({ id: expect.any(String), status: 'passed' });
  });

  it('runs on policy install only for rules with mutateExistingOnPolicyUpdate', async () => {
    const ops = (policy: JsonObject) => [
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: 'apply', file: 'trigger.yaml', docs: [trigger] },
      { op: 'policy', file: 'policy.yaml', docs: [policy] },
      { op: 'assert', file: 'assert.yaml', docs: [labelled] },
    ];
    expect((await statusOf(chainsawCase('on-install', ['mutateExisting'], ops(labelSecretPolicy(true))))).status).toBe('passed');
    const off = await statusOf(chainsawCase('not-on-install', ['mutateExisting'], ops(labelSecretPolicy(false))));
    expect(off.status).toBe('failed');
    expect(off.reason).toContain('/metadata/labels');
  });

  it('stays unsupported under --via (no translation of mutate existing)', async () => {
    const dir = chainsawCase('via', ['mutateExisting'], [
      { op: 'policy', file: 'policy.yaml', docs: [labelSecretPolicy(false)] },
      { op: 'assert', file: 'assert.yaml', docs: [secret] },
    ]);
    const run = await runConformance([dir], { via: 'kyverno' });
    expect(run.outcomes[0]!.status).toBe('unsupported');
  });
});

describe('chainsaw replay of Kyverno mutate existing, translated into MutatingPolicies (--via kyverno-mpol)', () => {
  it('the translation mutates the target when the trigger is admitted, and not on policy install', async () => {
    const onTrigger = chainsawCase('via-mpol-on-trigger', ['mutateExisting'], [
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: 'policy', file: 'policy.yaml', docs: [labelSecretPolicy(false)] },
      { op: 'apply', file: 'trigger.yaml', docs: [trigger] },
      { op: 'assert', file: 'assert.yaml', docs: [labelled] },
    ]);
    expect((await runConformance([onTrigger], { via: 'kyverno-mpol' })).outcomes[0]).toMatchObject({ status: 'passed' });
    // The trigger exists before the policy: Kyverno does not run the rule on install, nor does the translation.
    const notOnInstall = chainsawCase('via-mpol-not-on-install', ['mutateExisting'], [
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: 'apply', file: 'trigger.yaml', docs: [trigger] },
      { op: 'policy', file: 'policy.yaml', docs: [labelSecretPolicy(false)] },
      { op: 'error', file: 'error.yaml', docs: [labelled] },
    ]);
    expect((await runConformance([notOnInstall], { via: 'kyverno-mpol' })).outcomes[0]).toMatchObject({ status: 'passed' });
  });

  it('refuses mutateExistingOnPolicyUpdate (cannot), and any translation to MAP or Gatekeeper (cannot)', async () => {
    const dir = chainsawCase('via-mpol-on-update', ['mutateExisting'], [
      { op: 'policy', file: 'policy.yaml', docs: [labelSecretPolicy(true)] },
      { op: 'assert', file: 'assert.yaml', docs: [secret] },
    ]);
    expect((await runConformance([dir], { via: 'kyverno-mpol' })).outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot', reason: expect.stringContaining('mutateExistingOnPolicyUpdate') });
    expect((await runConformance([dir], { via: 'map' })).outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot', reason: expect.stringContaining('runs only at admission') });
    expect((await runConformance([dir], { via: 'gatekeeper' })).outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot', reason: expect.stringContaining('only the object of an admission request') });
  });
});

/** A MutatingPolicy that labels ConfigMaps, mutating existing ones; `spec` is added to its spec. */
const mpol = (spec: JsonObject, kind = 'MutatingPolicy', metadata: JsonObject = { name: 'label-cms' }): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1beta1',
  kind,
  metadata,
  spec: {
    evaluation: { mutateExisting: { enabled: true } },
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] }] },
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: Object.metadata.labels{mutated: "done"}}}' } }],
    ...spec,
  },
});
const MPOL = ['kyverno-mutatingpolicy-cel'];
const cm = (name: string, namespace = 'ns', labels?: Record<string, string>): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) } });
const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } };
const targetConfigMaps = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'] }] };

describe('chainsaw replay of MutatingPolicy mutate existing', () => {
  it('mutates the targets when a trigger is admitted', async () => {
    const dir = chainsawCase('mpol-trigger', ['mpol:mutateExisting'], [
      { op: 'create', file: 'ns.yaml', docs: [ns] },
      { op: 'create', file: 'cm.yaml', docs: [cm('a')] },
      { op: 'policy', file: 'policy.yaml', docs: [mpol({ targetMatchConstraints: targetConfigMaps, targetMatchConditions: [{ name: 'from-admission', expression: 'has(request.requestKind)' }] })] },
      { op: 'error', file: 'not-yet.yaml', docs: [cm('a', 'ns', { mutated: 'done' })] },
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: 'assert', file: 'assert.yaml', docs: [cm('a', 'ns', { mutated: 'done' })] },
    ], MPOL);
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });

  it('on install, mutates every existing object its matchConstraints list, matchConditions or not', async () => {
    const policy = mpol({
      evaluation: { admission: { enabled: false }, mutateExisting: { enabled: true } },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], resourceNames: ['a'] }] },
      matchConditions: [{ name: 'never', expression: 'false' }],
    });
    const dir = chainsawCase('mpol-install', [], [
      { op: 'create', file: 'ns.yaml', docs: [ns] },
      { op: 'create', file: 'cm.yaml', docs: [cm('a'), cm('b')] },
      { op: 'policy', file: 'policy.yaml', docs: [policy] },
      { op: 'assert', file: 'assert.yaml', docs: [cm('a', 'ns', { mutated: 'done' })] },
      { op: 'error', file: 'error.yaml', docs: [cm('b', 'ns', { mutated: 'done' })] },
    ], MPOL);
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });

  it('a NamespacedMutatingPolicy reaches its own namespace only', async () => {
    const policy = mpol({ targetMatchConstraints: targetConfigMaps }, 'NamespacedMutatingPolicy', { name: 'p', namespace: 'ns' });
    const dir = chainsawCase('nmpol', ['mpol:mutateExisting'], [
      { op: 'create', file: 'ns.yaml', docs: [ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }] },
      { op: 'create', file: 'cm.yaml', docs: [cm('a'), cm('a', 'other')] },
      { op: 'policy', file: 'policy.yaml', docs: [policy] },
      { op: 'assert', file: 'assert.yaml', docs: [cm('a', 'ns', { mutated: 'done' })] },
      { op: 'error', file: 'error.yaml', docs: [cm('a', 'other', { mutated: 'done' })] },
    ], MPOL);
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });

  it('is written back whole with --via kyverno-mpol (the same outcome as the direct run); cannot for MAP', async () => {
    const steps = (expectMutated: boolean) => [
      { op: 'create', file: 'ns.yaml', docs: [ns] },
      { op: 'create', file: 'cm.yaml', docs: [cm('a')] },
      { op: 'policy', file: 'policy.yaml', docs: [mpol({ targetMatchConstraints: targetConfigMaps, targetMatchConditions: [{ name: 'from-admission', expression: 'has(request.requestKind)' }] })] },
      { op: 'apply', file: 'secret.yaml', docs: [secret] },
      { op: expectMutated ? 'assert' : 'error', file: 'check.yaml', docs: [cm('a', 'ns', { mutated: 'done' })] },
    ];
    const right = chainsawCase('mpol-via', ['mpol:mutateExisting'], steps(true), MPOL);
    const wrong = chainsawCase('mpol-via-wrong', ['mpol:mutateExisting'], steps(false), MPOL);
    expect(await statusOf(right)).toMatchObject({ status: 'passed' });
    expect((await runConformance([right], { via: 'kyverno-mpol' })).outcomes[0]).toMatchObject({ status: 'passed' });
    expect((await runConformance([wrong], { via: 'kyverno-mpol' })).outcomes[0]).toMatchObject({ status: 'failed' });
    expect((await runConformance([right], { via: 'map' })).outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot' });
    expect((await runConformance([right], { via: 'gatekeeper' })).outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot' });
  });
});

describeShared('chainsaw corpus, Kyverno dialect', () => {
  it('passes at least 85% of the offline-usable Kyverno ClusterPolicy/Policy cases', async () => {
    const run = await runConformance([sharedPath('conformance/kyverno/kyverno-chainsaw')]);
    const kyverno = run.outcomes.filter((o) => {
      const manifest = JSON.parse(readFileSync(join(sharedPath('conformance/kyverno/kyverno-chainsaw'), basename(o.id), 'manifest.json'), 'utf8')) as JsonObject;
      return (manifest.dialects as string[] | undefined)?.[0] === 'kyverno' && manifest.usable_offline === true;
    });
    const passed = kyverno.filter((o) => o.status === 'passed').length;
    expect(kyverno.length).toBeGreaterThan(0);
    expect(passed / kyverno.length).toBeGreaterThanOrEqual(0.85);
  }, 120_000);
});
