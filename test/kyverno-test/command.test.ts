/**
 * `transmute test` as `kyverno test` behaves (issue 14.3) and Kyverno fidelity (issue 15.1-15.4): discovery in
 * hidden folders, nothing found or run is exit 1, expected skips pass, non-mutate rows not run, PolicyExceptions,
 * Values with dotted keys, the verdict for every combination, the output formats and the selector. Suites here
 * are written for these tests; the upstream corpus is only copied into a temporary folder and deleted after.
 */
import { cpSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestFiles } from '../../src/dialects/kyverno/test-suite/index.js';
import { run } from '../cli/support.js';
import { POLICY } from '../dialects/kyverno/test-suite-support.js';
import { describeShared, sharedPath } from '../support/shared.js';
import { tempDir } from '../support/temp.js';

/** The shared add-label policy with a validate rule beside its mutate rule (a mixed suite). */
const LABEL_POLICY = `${POLICY}  - name: require-team
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      message: team label required
      pattern:
        metadata:
          labels:
            team: "?*"
`;

const PODS = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: skipped, labels: {skip: "yes"}}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: orange, labels: {color: orange}}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec: {ports: [{port: 80}]}
`;

const PATCHED_WEB = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {color: orange}}
spec: {containers: [{name: app, image: nginx}]}
`;

const suite = (results: string, extra = ''): string => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
${extra}results:
${results}`;

const files = (results: string, more: Record<string, string> = {}, extra = ''): Record<string, string> => ({
  'policy.yaml': LABEL_POLICY,
  'resources.yaml': PODS,
  'patched-web.yaml': PATCHED_WEB,
  'kyverno-test.yaml': suite(results, extra),
  ...more,
});

async function json(argv: string[]) {
  const r = await run(['test', '-o', 'json', ...argv]);
  return { ...r, out: JSON.parse(r.stdout) as { total: number; passed: number; failed: number; notRun: number; results: { resource: string; status: string; reason: string; rule: string }[] } };
}

describe('discovery and empty runs', () => {
  it('finds kyverno-test.yaml in hidden folders, but not under .git or node_modules', async () => {
    const body = files(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`);
    const prefixed = (dir: string) => Object.fromEntries(Object.entries(body).map(([k, v]) => [`${dir}/${k}`, v]));
    const dir = tempDir('kytest-hidden', { ...prefixed('lib/.kyverno-test'), ...prefixed('.git/x'), ...prefixed('node_modules/y') });
    expect(findTestFiles(dir).map((f) => relative(dir, f))).toEqual(['lib/.kyverno-test/kyverno-test.yaml']);
    const r = await run(['test', '-o', 'text', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('an empty folder finds no test: says so, exit 1', async () => {
    const r = await run(['test', tempDir('kytest-empty')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no test found under/);
  });

  it('a suite whose every row is not run ran nothing: exit 1', async () => {
    const dir = tempDir('kytest-validate-only', files(`- {policy: add-label, rule: require-team, kind: Pod, resources: [web], result: fail}\n`));
    const r = await json([dir]);
    expect(r.out).toMatchObject({ passed: 0, failed: 0, notRun: 1 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no result was run/);
  });
});

describe('results as kyverno test judges them', () => {
  it('a mixed mutate + validate suite passes and lists the validate rows as not run', async () => {
    const dir = tempDir(
      'kytest-mixed',
      files(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-web.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: skip}
- {policy: add-label, rule: require-team, kind: Pod, resources: [web], result: fail}
`),
    );
    const r = await json([dir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ total: 3, passed: 2, failed: 0, notRun: 1 });
    expect(r.out.results.map((x) => [x.rule, x.resource, x.status])).toEqual([
      ['add-label', 'Pod/web', 'passed'],
      ['add-label', 'Pod/skipped', 'passed'],
      ['require-team', 'Pod/web', 'notRun'],
    ]);
    expect(r.out.results[2]!.reason).toBe('not run: rule require-team is a validate rule; transmute runs mutate rules only');
    const text = await run(['test', '-o', 'text', dir]);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed, 1 not run');
  });

  it('every combination of expected result, patched file and outcome (issue 15.3, 15.4)', async () => {
    const dir = tempDir(
      'kytest-matrix',
      files(
        `- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: fail, patchedResources: others.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: others.yaml, failOnMissingResources: true}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: fail}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: skip, patchedResources: patched-web.yaml}
- {policy: add-label, rule: add-label, kind: Service, resources: [svc], result: pass}
- {policy: add-label, rule: add-label, kind: Service, resources: [svc], result: fail}
- {policy: add-label, rule: add-label, kind: Pod, resources: [orange], result: skip}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: pass}
`,
        { 'others.yaml': PATCHED_WEB.replace('name: web', 'name: other') },
      ),
    );
    const r = await json([dir]);
    const rows = r.out.results.map((x) => [x.status, x.reason.replace(/:.*$/s, '')]);
    expect(rows).toEqual([
      // Not in the patched file: kyverno test leaves the row out, so an expected failure "holds".
      ['passed', 'not compared'],
      ['failed', 'patched resource'],
      ['failed', 'want fail, got pass'],
      // The patched file matches, then the result must: skip is not pass.
      ['failed', 'want skip, got pass'],
      // No rule response: Excluded passes whatever was expected.
      ['passed', 'Excluded'],
      ['passed', 'Excluded'],
      // The patch changed nothing: a mutate rule skips.
      ['passed', 'Ok'],
      ['failed', 'want pass, got skip'],
    ]);
    // Why a rule did not apply: the precondition that was false.
    expect(r.out.results[7]!.reason).toMatch(/want pass, got skip: guard .*skip.* is false/);
    expect(r.code).toBe(1);
  });

  it('a MutatingPolicy that matched and changed nothing passes (issue 15.4)', async () => {
    const mpol = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: orange}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"color": "orange"}}}'
`;
    const dir = tempDir(
      'kytest-mpol-unchanged',
      files(`- {policy: orange, isMutatingPolicy: true, kind: Pod, resources: [orange], result: pass}\n- {policy: orange, isMutatingPolicy: true, kind: Pod, resources: [orange], result: skip}\n`, { 'policy.yaml': mpol }),
    );
    const r = await json([dir]);
    expect(r.out.results.map((x) => x.status)).toEqual(['passed', 'failed']);
    expect(r.out.results[1]!.reason).toMatch(/^want skip, got pass/);
  });

  it('applies the suite\'s kyverno.io PolicyExceptions: the exempted rule skips', async () => {
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: keep-web, namespace: default}
spec:
  exceptions:
  - {policyName: add-label, ruleNames: ["add-*"]}
  match:
    any:
    - resources: {kinds: [Pod], names: [web]}
`;
    const dir = tempDir(
      'kytest-exception',
      files(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: skip}\n- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`, { 'exception.yaml': exception }, 'exceptions: [exception.yaml]\n'),
    );
    const r = await json([dir]);
    expect(r.out.results.map((x) => x.status)).toEqual(['passed', 'failed']);
    expect(r.out.results[1]!.reason).toBe('want pass, got skip: rule is skipped due to policy exceptions default/keep-web');
  });

  it('values with dotted keys stand for a configMap context entry (issue 15.2)', async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: owner}
spec:
  rules:
  - name: owner
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: settings
      configMap: {name: settings, namespace: default}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            owner: "{{ settings.data.config | parse_yaml(@).name }}"
`;
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
- name: owner
  rules:
  - name: owner
    values:
      settings.data.config: "name: alice"
`;
    const expected = PATCHED_WEB.replace('color: orange', 'owner: alice');
    const result = `- {policy: owner, rule: owner, kind: Pod, resources: [web], result: pass, patchedResources: patched-web.yaml}\n`;
    const dir = tempDir('kytest-dotted', files(result, { 'policy.yaml': policy, 'values.yaml': values, 'patched-web.yaml': expected }, 'variables: values.yaml\n'));
    const r = await json([dir]);
    expect(r.out.results.map((x) => x.status)).toEqual(['passed']);
    // Without the value, the row says which context entry was missing.
    const bare = tempDir('kytest-dotted-missing', files(result, { 'policy.yaml': policy, 'patched-web.yaml': expected }));
    const missing = await json([bare]);
    // The entry is loaded before the query that mentions it, and its failure is the query's (deferred-loading.ts).
    expect(missing.out.results[0]!.reason).toMatch(
      /the rule's result was error \(variable substitution failed: failed to resolve settings\.data\.config \| parse_yaml\(@\)\.name at path \/metadata\/labels\/owner: context entry "settings" \(configMap\) needs a cluster/,
    );
  });

  it('patchesJson6902 through missing parents and -1 tokens (issue 15.1)', async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: deep}
spec:
  rules:
  - name: deep
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchesJson6902: |-
        - {op: add, path: /spec/a/b/-1/c/-1, value: x}
`;
    const expected = PATCHED_WEB.replace('labels: {color: orange}', '').replace('spec: {', 'spec: {a: {b: [{c: [x]}]}, ');
    const dir = tempDir('kytest-v5', files(`- {policy: deep, rule: deep, kind: Pod, resources: [web], result: pass, patchedResources: patched-web.yaml}\n`, { 'policy.yaml': policy, 'patched-web.yaml': expected }));
    const r = await json([dir]);
    expect(r.out.results.map((x) => [x.status, x.reason])).toEqual([['passed', 'Ok']]);
  });
});

describe('flags and formats', () => {
  const results = `- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: pass}
- {policy: add-label, rule: require-team, kind: Pod, resources: [web], result: fail}
`;

  it('-o table prints kyverno test\'s columns and summary', async () => {
    const dir = tempDir('kytest-table', files(results));
    const r = await run(['test', '-o', 'table', '--remove-color', dir]);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`Loading test  ( ${dir}/kyverno-test.yaml ) ...`);
    const header = lines.find((l) => l.includes('POLICY'))!;
    expect(header.split('│').map((c) => c.trim()).filter((c) => c !== '')).toEqual(['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON']);
    const row = (id: string) => lines.find((l) => l.startsWith(`│ ${id} `))!.split('│').map((c) => c.trim()).filter((c) => c !== '');
    expect(row('1')).toEqual(['1', 'add-label', 'add-label', 'Pod/web', 'Pass', 'Ok']);
    expect(row('2')).toEqual(['2', 'add-label', 'add-label', 'Pod/skipped', 'Fail', 'Want pass, got skip']);
    expect(row('3')).toEqual(['3', 'add-label', 'require-team', 'Pod/web', 'Skip', 'Not run']);
    expect(r.stdout).toContain('Test Summary: 1 tests passed and 1 tests failed (1 not run)');
    expect(r.stdout).not.toContain('\x1b[');
    const detailed = await run(['test', '-o', 'table', '--detailed-results', dir]);
    expect(detailed.stdout).toMatch(/│ ID +│ POLICY +│ RULE +│ RESOURCE +│ RESULT +│ REASON +│ MESSAGE +│/);
    expect(r.code).toBe(1);
  });

  it('-o junit is JUnit XML a CI system loads: testsuites > testsuite > testcase with failure / skipped and counts', async () => {
    const dir = tempDir('kytest-junit', files(results));
    const r = await run(['test', '-o', 'junit', dir]);
    const xml = r.stdout;
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(xml.trimEnd().endsWith('</testsuites>')).toBe(true);
    expect(xml).toMatch(/<testsuites name="transmute test" tests="3" failures="1" errors="0" skipped="1">/);
    expect(xml).toMatch(new RegExp(`<testsuite name="${dir.replace(/[/.]/g, '\\$&')}/kyverno-test\\.yaml" tests="3" failures="1" errors="0" skipped="1">`));
    expect(xml.match(/<testcase classname="add-label" name="[^"]+">/g)).toHaveLength(3);
    expect(xml.match(/<failure message="Want pass, got skip" type="Want pass, got skip">/g)).toHaveLength(1);
    expect(xml.match(/<skipped message="not run: [^"]*"\/>/g)).toHaveLength(1);
    // Balanced elements, and no raw markup characters inside texts.
    for (const tag of ['testsuites', 'testsuite', 'testcase', 'failure']) {
      expect(xml.match(new RegExp(`<${tag}[ >]`, 'g'))?.length).toBe(xml.match(new RegExp(`</${tag}>`, 'g'))?.length);
    }
    expect(xml.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]/);
  });

  it('-o markdown, --fail-only and --test-case-selector', async () => {
    const dir = tempDir('kytest-md', files(results));
    const md = await run(['test', '-o', 'markdown', dir]);
    expect(md.stdout.split('\n').slice(0, 3)).toEqual([
      '| ID | POLICY | RULE | RESOURCE | RESULT | REASON |',
      '|----|----|----|----|----|----|',
      '| 1 | add-label | add-label | Pod/web | Pass | Ok |',
    ]);
    const failOnly = await json(['--fail-only', dir]);
    expect(failOnly.out.results.map((x) => x.resource)).toEqual(['Pod/skipped']);
    expect(failOnly.out.total).toBe(3);
    const selected = await json(['-t', 'policy=add-*, rule=add-label, resource=web', dir]);
    // Results whose resources do not match the resource filter are left out (filter.go resource.Apply).
    expect(selected.out.results.map((x) => [x.rule, x.resource])).toEqual([['add-label', 'Pod/web']]);
    expect(selected.code).toBe(0);
    const bad = await run(['test', '-t', 'colour=red', dir]);
    expect(bad.code).toBe(2);
  });
});

describeShared('the upstream suites rearranged into .kyverno-test/ folders', () => {
  it('finds every suite and runs them', async () => {
    const source = sharedPath('conformance/kyverno/suites');
    const expected = findTestFiles(source).length;
    const dir = tempDir('kytest-upstream');
    cpSync(source, join(dir, 'suites'), { recursive: true });
    // Every suite folder's files (and folders of files its test names, such as crds/) move into a .kyverno-test/
    // folder inside it, as kyverno/policies lays them out; folders holding other suites stay.
    const suiteFolders = findTestFiles(join(dir, 'suites')).map((f) => f.slice(0, -'/kyverno-test.yaml'.length));
    for (const folder of suiteFolders) {
      const hidden = join(folder, '.kyverno-test');
      mkdirSync(hidden);
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (name !== '.kyverno-test' && (statSync(path).isFile() || findTestFiles(path).length === 0)) renameSync(path, join(hidden, name));
      }
    }
    const found = findTestFiles(dir);
    expect(found).toHaveLength(expected);
    expect(found.every((f) => f.endsWith('/.kyverno-test/kyverno-test.yaml'))).toBe(true);
    const r = await json([dir]);
    expect(new Set(r.out.results.map((x) => (x as unknown as { file: string }).file)).size).toBe(expected);
    expect(r.out.passed).toBeGreaterThanOrEqual(50);
  });
});
