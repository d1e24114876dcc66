/**
 * `transmute test` on chainsaw tests (src/conformance/loaders/chainsaw-test.ts): a test of a mutating policy is
 * replayed offline and passes or fails on its asserts; what the replay cannot stand for (a script, bindings,
 * policies that do not mutate or mix dialects, a CustomResourceDefinition the test expects installed) is not
 * run, with the reason.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { podPolicy } from '../dialects/kyverno-mpol/support.js';
import { run } from './support.js';
import { ADD_TEAM_POLICY, ADD_TEAM_READY, labelledPod, WEB_POD } from '../support/chainsaw-fixtures.js';
import { tempDir } from '../support/temp.js';

const MPOL = podPolicy(
  'mark',
  `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"marked": "yes"}}}'`,
);
const VALIDATE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: check
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      pattern:
        metadata:
          labels:
            team: "?*"
`;
function chainsawTest(steps: string): string {
  return `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: t
spec:
  steps:
${steps}`;
}

const STEPS = `  - name: install
    try:
    - apply:
        file: ../policy.yaml
    - assert:
        file: ready.yaml
  - name: create
    try:
    - apply:
        file: pod.yaml
    - assert:
        file: expected.yaml
`;

/** A chainsaw StepTemplate of one operation (`op`: its YAML lines under `try:`). */
function stepTemplateDoc(name: string, op: string): string {
  return `apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: StepTemplate\nmetadata:\n  name: ${name}\nspec:\n  try:\n${op}`;
}

/** The readiness assert of a policy of `kind` named by the binding `name` (`namespace`: its metadata line, or ''). */
function readyAssert(kind: string, namespace: string): string {
  return `  - assert:\n      resource:\n        apiVersion: kyverno.io/v1\n        kind: ${kind}\n        metadata:\n          name: ($name)\n${namespace}        status:\n          ready: true\n`;
}

/** Steps that wait for add-team through the template ../templates/ready.yaml, then apply pod.yaml and assert expected.yaml. */
const WAIT_THEN_APPLY = `  - name: wait
    use:
      template: ../templates/ready.yaml
      with:
        bindings:
        - name: name
          value: add-team
  - try:
    - apply:
        file: pod.yaml
    - assert:
        file: expected.yaml
`;

function library(files: Record<string, string>): string {
  return tempDir('test-chainsaw', { 'policy.yaml': ADD_TEAM_POLICY, '.chainsaw-test/ready.yaml': ADD_TEAM_READY, '.chainsaw-test/pod.yaml': WEB_POD, ...files });
}

describe('transmute test on chainsaw tests', () => {
  it('replays a test of a mutating policy: its asserts pass', async () => {
    const dir = library({
      '.chainsaw-test/chainsaw-test.yaml': chainsawTest(STEPS),
      '.chainsaw-test/expected.yaml': labelledPod('platform'),
    });
    const r = await run(['test', dir]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`ok   ${join(dir, '.chainsaw-test', 'chainsaw-test.yaml')}: add-team`);
    expect(r.stdout).toContain('1 passed, 0 failed');
    expect(r.code).toBe(0);
  });

  it('fails a test whose assert the policy does not meet, saying where', async () => {
    const dir = library({
      '.chainsaw-test/chainsaw-test.yaml': chainsawTest(STEPS),
      '.chainsaw-test/expected.yaml': labelledPod('other'),
    });
    const r = await run(['test', join(dir, '.chainsaw-test', 'chainsaw-test.yaml')]);
    expect(r.stdout).toContain('FAIL');
    expect(r.stdout).toContain('expected "other", got "platform"');
    expect(r.code).toBe(1);
  });

  it('runs an inline resource and a MutatingPolicy', async () => {
    const steps = `  - try:
    - apply:
        resource:
${MPOL.replace(/^/gm, '          ')}
    - apply:
        file: pod.yaml
    - assert:
        resource:
          apiVersion: v1
          kind: Pod
          metadata:
            name: web
            labels:
              marked: "yes"
`;
    const dir = library({ '.chainsaw-test/chainsaw-test.yaml': chainsawTest(steps) });
    const r = await run(['test', dir, '-o', 'json']);
    const out = JSON.parse(r.stdout) as { passed: number; results: { policy: string; status: string; reason: string }[] };
    expect(out.results).toEqual([expect.objectContaining({ policy: 'mark', status: 'passed' })]);
    expect(r.code).toBe(0);
  });

  it('expands step templates whose bindings are plain values (Kyverno\'s create-policy and policy-ready)', async () => {
    const steps = `  - name: create policy
    use:
      template: ../templates/create-policy.yaml
      with:
        bindings:
        - name: file
          value: ../policy.yaml
${WAIT_THEN_APPLY}`;
    const dir = library({
      'templates/create-policy.yaml': stepTemplateDoc('create-policy', '  - create:\n      file: ($file)\n'),
      'templates/ready.yaml': stepTemplateDoc('ready', readyAssert('ClusterPolicy', '')),
      '.chainsaw-test/chainsaw-test.yaml': chainsawTest(steps),
      '.chainsaw-test/expected.yaml': labelledPod('platform'),
    });
    const r = await run(['test', dir, '-o', 'json']);
    const out = JSON.parse(r.stdout) as { results: { policy: string; status: string; reason: string }[] };
    expect(out.results).toEqual([expect.objectContaining({ policy: 'add-team', status: 'passed' })]);
  });

  it("binds chainsaw's $namespace in a step template to the test's namespace (Kyverno's policy-ready of a namespaced Policy)", async () => {
    const steps = `  - name: create policy
    try:
    - create:
        file: ../policy.yaml
${WAIT_THEN_APPLY}`;
    const dir = library({
      'policy.yaml': ADD_TEAM_POLICY.replace('kind: ClusterPolicy', 'kind: Policy'),
      'templates/ready.yaml': stepTemplateDoc('ready', readyAssert('Policy', '          namespace: ($namespace)\n')),
      '.chainsaw-test/chainsaw-test.yaml': chainsawTest(steps),
      '.chainsaw-test/expected.yaml': labelledPod('platform'),
    });
    const r = await run(['test', dir, '-o', 'json']);
    const out = JSON.parse(r.stdout) as { results: { policy: string; status: string; reason: string }[] };
    expect(out.results).toEqual([expect.objectContaining({ policy: 'add-team', status: 'passed' })]);
  });

  it("runs a test in its Test's spec.namespace, which a policy matching that namespace sees", async () => {
    const onlyTeamA = ADD_TEAM_POLICY.replace('kinds: [Pod]', 'kinds: [Pod]\n          namespaces: [team-a]');
    const expected = labelledPod('platform').replace('name: web', 'name: web\n  namespace: team-a');
    const results = async (spec: string): Promise<{ status: string; reason: string }[]> => {
      const dir = library({
        'policy.yaml': onlyTeamA,
        '.chainsaw-test/chainsaw-test.yaml': chainsawTest(STEPS).replace('spec:\n', spec),
        '.chainsaw-test/expected.yaml': expected,
      });
      const r = await run(['test', dir, '-o', 'json']);
      return (JSON.parse(r.stdout) as { results: { status: string; reason: string }[] }).results;
    };
    expect(await results('spec:\n  namespace: team-a\n')).toEqual([expect.objectContaining({ status: 'passed' })]);
    // Without it, chainsaw's ephemeral namespace: the Pod is not in team-a, and the assert finds no such Pod.
    expect(await results('spec:\n')).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('lists as not run what the replay cannot stand for, with the reason', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['script', { '.chainsaw-test/chainsaw-test.yaml': chainsawTest(`${STEPS}    - script:\n        content: kubectl get pods\n`) }, 'is a script operation, which needs a live cluster'],
      ['bindings', { '.chainsaw-test/chainsaw-test.yaml': chainsawTest(STEPS.replace('file: pod.yaml', 'file: pod.yaml\n        bindings:\n        - name: x\n          value: y')) }, 'has expect, outputs or bindings'],
      ['validate only', { 'policy.yaml': VALIDATE, '.chainsaw-test/chainsaw-test.yaml': chainsawTest(STEPS.replace('file: ready.yaml', 'file: pod.yaml')) }, 'its policies do not mutate'],
      ['mixed dialects', { 'mpol.yaml': MPOL, '.chainsaw-test/chainsaw-test.yaml': chainsawTest(`${STEPS}    - apply:\n        file: ../mpol.yaml\n`) }, 'its policies mix dialects (kyverno, kyverno-mpol)'],
      [
        'a prepared cluster',
        { '.chainsaw-test/crd.yaml': 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n', '.chainsaw-test/chainsaw-test.yaml': chainsawTest(`  - try:\n    - assert:\n        file: crd.yaml\n${STEPS}`) },
        'asserts the CustomResourceDefinition widgets.example.com, which none of its steps installs',
      ],
    ];
    for (const [what, files, reason] of cases) {
      const dir = library({ '.chainsaw-test/expected.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n', ...files });
      const r = await run(['test', dir, '-o', 'json']);
      const out = JSON.parse(r.stdout) as { notRun: number; results: { status: string; reason: string }[] };
      expect(out.results, what).toEqual([expect.objectContaining({ status: 'notRun' })]);
      expect(out.results[0]!.reason, what).toContain(reason);
      // Nothing was checked: a run with no result run is not a pass.
      expect(r.code, what).toBe(1);
    }
  });

  it('refuses a chainsaw-test.yaml that is not a chainsaw Test (exit 2)', async () => {
    const dir = library({ '.chainsaw-test/chainsaw-test.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n' });
    const r = await run(['test', dir]);
    expect(r.stderr).toContain('not a chainsaw Test');
    expect(r.code).toBe(2);
  });
});
