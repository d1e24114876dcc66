/**
 * The migrated suite is judged as `kyverno test` judges it: a MutatingPolicy that runs and changes nothing
 * is `pass` (a mutate rule is `skip`), so an entry expecting `skip` from such a policy is rewritten to expect
 * `pass` (that the policy left the resource as it was is checked by judging the entry as a mutate rule is
 * judged); an entry whose rule does not match the resource has no response and passes in both suites
 * ("Excluded").
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { MigrateReport } from '../../src/migrate/report.js';
import { run } from '../cli/support.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function library(files: Record<string, string>): { dir: string; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'transmute-migrate-unchanged-'));
  roots.push(root);
  const dir = join(root, 'lib');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return { dir, out: join(root, 'out') };
}

// A global anchor: the rule's patch changes nothing on a Pod without an emptyDir volume (Kyverno: skip); the
// MutatingPolicy tests the same inside its mutation, so it runs there and changes nothing (kyverno test: pass).
// A precondition: the rule is skipped; the MutatingPolicy guards its mutation with it, so it runs and changes nothing.
const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: safe-to-evict
spec:
  rules:
  - name: annotate
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            +(cluster-autoscaler.kubernetes.io/safe-to-evict): "true"
        spec:
          volumes:
          - <(emptyDir): {}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: team-label
spec:
  rules:
  - name: label
    match:
      any:
      - resources:
          kinds: [ConfigMap]
    preconditions:
      all:
      - key: "{{ request.object.metadata.name }}"
        operator: Equals
        value: labelled
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: platform
`;

const RESOURCES = `apiVersion: v1
kind: Pod
metadata:
  name: with-empty-dir
spec:
  containers:
  - name: c
    image: nginx
  volumes:
  - name: v
    emptyDir: {}
---
apiVersion: v1
kind: Pod
metadata:
  name: no-volumes
spec:
  containers:
  - name: c
    image: nginx
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
---
apiVersion: v1
kind: Secret
metadata:
  name: other
`;

const PATCHED = `apiVersion: v1
kind: Pod
metadata:
  name: with-empty-dir
  annotations:
    cluster-autoscaler.kubernetes.io/safe-to-evict: "true"
spec:
  containers:
  - name: c
    image: nginx
  volumes:
  - name: v
    emptyDir: {}
`;

const SUITE = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: unchanged
policies: [policy.yaml]
resources: [resources.yaml]
results:
- policy: safe-to-evict
  rule: annotate
  kind: Pod
  resources: [with-empty-dir]
  patchedResources: patched.yaml
  result: pass
- policy: safe-to-evict
  rule: annotate
  kind: Pod
  resources: [no-volumes]
  result: skip
- policy: team-label
  rule: label
  kind: ConfigMap
  resources: [plain]
  result: skip
- policy: team-label
  rule: label
  kind: Secret
  resources: [other]
  result: pass
`;

describe('migrate: verdicts of policies that run and change nothing', () => {
  it('rewrites skip to pass where the MutatingPolicy runs and changes nothing, and proves every row', async () => {
    const { dir, out } = library({ 'policy.yaml': POLICY, 'resources.yaml': RESOURCES, 'patched.yaml': PATCHED, 'kyverno-test.yaml': SUITE });
    const r = await run(['migrate', dir, '--out-dir', out, '--json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as MigrateReport;
    expect(report.policies.map((p) => [p.source.name, p.status])).toEqual([
      ['safe-to-evict', 'proven'],
      ['team-label', 'proven'],
    ]);
    expect(r.code).toBe(0);
    const results = parse(readFileSync(join(out, 'kyverno-test.yaml'), 'utf8')).results as Record<string, unknown>[];
    expect(results.map((e) => [e.policy, e.resources, e.result, e.isMutatingPolicy])).toEqual([
      ['safe-to-evict', ['with-empty-dir'], 'pass', true],
      ['safe-to-evict', ['no-volumes'], 'pass', true], // was skip: the policy ran and changed nothing
      ['team-label', ['plain'], 'pass', true], // was skip: the guarded mutation wrote nothing
      ['team-label', ['other'], 'pass', true], // matches nothing: Excluded, passes in both suites
    ]);
    // The migrated suite passes as `transmute test` (and `kyverno test`) judge it.
    const test = await run(['test', out, '-o', 'json']);
    expect(test.code, test.stdout).toBe(0);
  });
});

describe('migrate: a skip entry whose migrated policy changes the resource', () => {
  it('keeps skip, and the proof reports the difference', async () => {
    // The suite claims the rule skips a ConfigMap it does label: wrong in the original suite, and the
    // migrated policy, which also labels it, is not made to pass by the rewrite.
    const wrong = SUITE.replace(/- policy: team-label\n  rule: label\n  kind: ConfigMap\n  resources: \[plain\]\n  result: skip/, '- policy: team-label\n  rule: label\n  kind: ConfigMap\n  resources: [labelled]\n  result: skip');
    const resources = `${RESOURCES}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n`;
    const { dir, out } = library({ 'policy.yaml': POLICY, 'resources.yaml': resources, 'patched.yaml': PATCHED, 'kyverno-test.yaml': wrong });
    const r = await run(['migrate', dir, '--out-dir', out, '--json']);
    const report = JSON.parse(r.stdout) as MigrateReport;
    const team = report.policies.find((p) => p.source.name === 'team-label')!;
    expect(team.status).toBe('differences');
    expect(team.rows.find((row) => row.resource.includes('labelled'))).toMatchObject({ original: { status: 'failed' }, migrated: { status: 'failed' } });
    const results = parse(readFileSync(join(out, 'kyverno-test.yaml'), 'utf8')).results as Record<string, unknown>[];
    expect(results[2]).toMatchObject({ policy: 'team-label', resources: ['labelled'], result: 'skip' });
  });
});

describe('migrate: a skip entry naming resources of both kinds', () => {
  it('keeps skip for those the policy does not run on; those it runs on unchanged move to an entry expecting pass', async () => {
    // An entry names a ConfigMap the precondition skips (the MutatingPolicy's mutation writes nothing: pass)
    // and one of a namespace the rule does not match (Excluded: skip in both); a second entry names the first
    // ConfigMap again with another excluded one, and the two moved entries are one.
    const mixed = SUITE.replace(
      '- policy: team-label\n  rule: label\n  kind: ConfigMap\n  resources: [plain]\n  result: skip',
      '- policy: team-label\n  rule: label\n  kind: ConfigMap\n  resources: [plain, elsewhere/excluded]\n  result: skip\n- policy: team-label\n  rule: label\n  kind: ConfigMap\n  resources: [elsewhere/excluded-too, plain]\n  result: skip',
    );
    const resources = `${RESOURCES}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: excluded\n  namespace: elsewhere\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: excluded-too\n  namespace: elsewhere\n`;
    const { dir, out } = library({ 'policy.yaml': POLICY.replace('kinds: [ConfigMap]', 'kinds: [ConfigMap]\n          namespaces: [default]'), 'resources.yaml': resources, 'patched.yaml': PATCHED, 'kyverno-test.yaml': mixed });
    const r = await run(['migrate', dir, '--out-dir', out, '--json']);
    const report = JSON.parse(r.stdout) as MigrateReport;
    expect(report.policies.map((p) => [p.source.name, p.status])).toEqual([
      ['safe-to-evict', 'proven'],
      ['team-label', 'proven'],
    ]);
    const results = parse(readFileSync(join(out, 'kyverno-test.yaml'), 'utf8')).results as Record<string, unknown>[];
    expect(results.filter((e) => e.policy === 'team-label').map((e) => [e.kind, e.resources, e.result])).toEqual([
      ['ConfigMap', ['elsewhere/excluded'], 'skip'],
      ['ConfigMap', ['elsewhere/excluded-too'], 'skip'],
      ['Secret', ['other'], 'pass'],
      ['ConfigMap', ['plain'], 'pass'],
    ]);
    const test = await run(['test', out, '-o', 'json']);
    expect(test.code, test.stdout).toBe(0);
  });
});

describe('migrate: rules of one policy expecting pass and skip for one resource', () => {
  // Rule a labels every ConfigMap of `default` but only-b, rule b every one but only-a: a suite states, per
  // rule, pass where it patches and skip where its precondition skips. The MutatingPolicy answers once per
  // resource: pass wherever either rule patched, so only-b leaves a's skip entry (b's pass entry holds it).
  const TWO_RULES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: two-labels
spec:
  rules:
${['a', 'b']
  .map(
    (rule) => `  - name: ${rule}
    match:
      any:
      - resources:
          kinds: [ConfigMap]
          namespaces: [default]
    preconditions:
      all:
      - key: "{{ request.object.metadata.name }}"
        operator: NotEquals
        value: only-${rule === 'a' ? 'b' : 'a'}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            ${rule}: "1"`,
  )
  .join('\n')}
`;
  const configMap = (name: string, namespace = 'default', labels?: Record<string, string>): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}${labels ? `\n  labels:\n${Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`).join('\n')}` : ''}\n`;
  const MAPS = [configMap('both'), configMap('only-a'), configMap('only-b'), configMap('ignored', 'elsewhere')].join('---\n');
  const PATCHED_MAPS = [configMap('both', 'default', { a: '1', b: '1' }), configMap('only-a', 'default', { a: '1' }), configMap('only-b', 'default', { b: '1' })].join('---\n');
  const TWO_SUITE = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: two-rules
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: two-labels, rule: a, kind: ConfigMap, resources: [default/both, default/only-a], patchedResources: patched.yaml, result: pass}
- {policy: two-labels, rule: a, kind: ConfigMap, resources: [default/only-b, elsewhere/ignored], result: skip}
- {policy: two-labels, rule: b, kind: ConfigMap, resources: [default/both, default/only-b], patchedResources: patched.yaml, result: pass}
- {policy: two-labels, rule: b, kind: ConfigMap, resources: [default/only-a], result: skip}
`;

  it('keeps each resource in the entry expecting what the policy does, and proves every row', async () => {
    const { dir, out } = library({ 'policy.yaml': TWO_RULES, 'resources.yaml': MAPS, 'patched.yaml': PATCHED_MAPS, 'kyverno-test.yaml': TWO_SUITE });
    const original = await run(['test', dir, '-o', 'json']);
    expect(original.code, original.stdout).toBe(0);
    const r = await run(['migrate', dir, '--out-dir', out, '--json']);
    const report = JSON.parse(r.stdout) as MigrateReport;
    const policy = report.policies.find((p) => p.source.name === 'two-labels')!;
    expect(policy.status).toBe('proven');
    expect(policy.rows.map((row) => [row.resource, row.original.status, row.migrated.status])).toEqual([
      ['ConfigMap/default/both', 'passed', 'passed'],
      ['ConfigMap/default/only-a', 'passed', 'passed'],
      ['ConfigMap/default/only-b', 'passed', 'passed'],
      ['ConfigMap/elsewhere/ignored', 'passed', 'passed'],
      ['ConfigMap/default/both', 'passed', 'passed'],
      ['ConfigMap/default/only-b', 'passed', 'passed'],
      ['ConfigMap/default/only-a', 'passed', 'passed'],
    ]);
    const results = parse(readFileSync(join(out, 'kyverno-test.yaml'), 'utf8')).results as Record<string, unknown>[];
    // b's skip entry, left with no resource, is merged into a's pass entry, which names only-a.
    expect(results.map((e) => [e.resources, e.result])).toEqual([
      [['default/both', 'default/only-a'], 'pass'],
      [['elsewhere/ignored'], 'skip'],
      [['default/both', 'default/only-b'], 'pass'],
    ]);
    const test = await run(['test', out, '-o', 'json']);
    expect(test.code, test.stdout).toBe(0);
  });
});
