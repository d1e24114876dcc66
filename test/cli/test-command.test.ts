import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_HELP } from '../../src/cli/commands/test.js';
import { PATCHED_DEPLOY, PATCHED_POD, POLICY, RESOURCES, suiteDir, testFile } from '../dialects/kyverno/test-suite-support.js';
import { describeShared, REPO_ROOT, sharedPath } from '../support/shared.js';
import { run } from './support.js';

const files = { 'policy.yaml': POLICY, 'resources.yaml': RESOURCES, 'patched-pod.yaml': PATCHED_POD, 'patched-deploy.yaml': PATCHED_DEPLOY };

describe('transmute test on kyverno-test.yaml', () => {
  it('prints a row per result and the summary line; exit 0 when all pass', async () => {
    const dir = suiteDir({
      'nested/deeper/kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-pod.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: skip}
`),
      ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`nested/deeper/${k}`, v])),
    });
    const r = await run(['test', dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`ok   ${dir}/nested/deeper/kyverno-test.yaml: add-label/add-label Pod/web`);
    // kyverno test: an expected skip that skips is a pass.
    expect(lines[1]).toBe(`ok   ${dir}/nested/deeper/kyverno-test.yaml: add-label/add-label Pod/skipped`);
    expect(lines.at(-1)).toBe('2 passed, 0 failed');
  });

  it('prints the reason and the diff of a failure, exit 1', async () => {
    const dir = suiteDir({
      ...files,
      'wrong.yaml': PATCHED_POD.replace('color: orange', 'color: blue'),
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: wrong.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [missing], result: pass}
`),
    });
    const r = await run(['test', join(dir, 'kyverno-test.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${dir}/kyverno-test.yaml: add-label/add-label Pod/web\n  patched resource differs from wrong.yaml`);
    expect(r.stdout).toContain('+++ actual');
    expect(r.stdout).toContain('resource not found');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 2 failed');
  });

  it('--json prints totals and one result per row with the file as reached from PATH', async () => {
    const dir = suiteDir({
      ...files,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Deployment, resources: [deploy], result: pass, patchedResources: patched-deploy.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: pass}
`),
    });
    const r = await run(['test', '--json', `${dir}/`]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['total', 'passed', 'failed', 'notRun', 'results']);
    expect(out).toMatchObject({ total: 2, passed: 1, failed: 1, notRun: 0 });
    expect(out.results[0]).toEqual({ file: `${dir}/kyverno-test.yaml`, policy: 'add-label', rule: 'add-label', resource: 'Deployment/deploy', status: 'passed', reason: 'Ok' });
    expect(out.results[1].status).toBe('failed');
    expect(out.results[1].reason).toMatch(/^want pass, got skip/);
    expect(Object.keys(out.results[1])).toEqual(['file', 'policy', 'rule', 'resource', 'status', 'reason']);
  });

  it('rejects a file that is neither a case folder nor a kyverno-test.yaml (exit 2)', async () => {
    const dir = suiteDir({ 'other.yaml': 'a: b' });
    const r = await run(['test', join(dir, 'other.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a golden case folder, a kyverno-test.yaml or a chainsaw-test.yaml/);
  });

  it('keeps golden case folders working and says so in --help', async () => {
    const r = await run(['test', join(REPO_ROOT, 'golden/cases/kyverno-json-patch')]);
    expect(r.stdout).toMatch(/^(ok|FAIL|KNOWN) /);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
    const help = await run(['test', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(TEST_HELP);
    expect(TEST_HELP).toMatch(/kyverno-test\.yaml/);
    expect(TEST_HELP).toMatch(/--json/);
  });
});

describeShared('transmute test on the upstream test-mutate suites', () => {
  it('passes every mutate result and lists the validate suite\'s row as not run', async () => {
    const r = await run(['test', '--json', sharedPath('conformance/kyverno/suites/test-mutate')]);
    const out = JSON.parse(r.stdout);
    expect(out.results.filter((x: { status: string }) => x.status === 'failed')).toEqual([]);
    expect(out.passed).toBeGreaterThanOrEqual(29);
    const notRun = out.results.filter((x: { status: string }) => x.status === 'notRun');
    expect(notRun.map((x: { file: string }) => x.file.split('/').at(-2))).toEqual(['mutate-existing-wildcard-panic']);
    expect(notRun[0].reason).toMatch(/^not run: rule \S+ is a validate rule/);
    expect(out.notRun).toBe(1);
    // golden/exceptions.yaml does not govern users' suites: nothing is a known divergence here.
    expect(r.stdout).not.toContain('golden/exceptions.yaml');
    expect(r.code).toBe(0);
  });
});
