import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestFiles, loadTestSuite, loadTestSuites, runTestSuite, type SuiteRow } from '../../../src/dialects/kyverno/test-suite/index.js';
import { describeShared, sharedPath } from '../../support/shared.js';
import { PATCHED_DEPLOY, PATCHED_POD, POLICY, RESOURCES, suiteDir, testFile } from './test-suite-support.js';

function rowsOf(dir: string): SuiteRow[] {
  const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
  if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
  return runTestSuite(suite.value);
}

const base = { 'policy.yaml': POLICY, 'resources.yaml': RESOURCES, 'patched-pod.yaml': PATCHED_POD, 'patched-deploy.yaml': PATCHED_DEPLOY };

describe('kyverno-test.yaml suites', () => {
  it('checks rule results and patched resources, autogen rules included', () => {
    const dir = suiteDir({
      ...base,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-pod.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [skipped], result: skip}
- {policy: add-label, rule: add-label, kind: Deployment, resources: [deploy], result: pass, patchedResources: patched-deploy.yaml}
`),
    });
    const rows = rowsOf(dir);
    expect(rows.map((r) => [r.resource, r.status])).toEqual([
      ['Pod/web', 'passed'],
      // kyverno test: an expected skip that skips is a pass.
      ['Pod/skipped', 'passed'],
      ['Deployment/deploy', 'passed'],
    ]);
    expect(rows[0]).toMatchObject({ file: 'suite/kyverno-test.yaml', policy: 'add-label', rule: 'add-label', reason: 'Ok' });
  });

  it('never passes vacuously: missing resource, policy, rule, or a rule that matched nothing', () => {
    const dir = suiteDir({
      ...base,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [nope], result: pass}
- {policy: other, rule: add-label, kind: Pod, resources: [web], result: pass}
- {policy: add-label, rule: no-such-rule, kind: Pod, resources: [web], result: pass}
- {policy: add-label, rule: add-label, kind: Service, resources: [svc], result: pass}
- {policy: add-label, rule: add-label, kind: Service, resources: [svc], result: skip}
`),
    });
    const rows = rowsOf(dir);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'passed']);
    expect(rows[0]!.reason).toMatch(/resource not found/);
    expect(rows[1]!.reason).toMatch(/policy other is not among the test's policies/);
    expect(rows[2]!.reason).toMatch(/no-such-rule is not a rule of policy add-label/);
    expect(rows[3]!.reason).toMatch(/^the rule did not run: the (rule|policy) does not match the resource.*\(want pass\)$/);
    expect(rows[4]!.reason).toMatch(/^Excluded: /);
  });

  it('names a resource with only a generateName as `namespace/` (its name is empty, as GetName gives it)', () => {
    const generated = `apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\n  namespace: apps\nspec:\n  containers:\n  - name: app\n    image: nginx\n`;
    const patched = generated.replace('  namespace: apps\n', '  namespace: apps\n  labels:\n    color: orange\n');
    const dir = suiteDir({
      ...base,
      'resources.yaml': generated,
      'patched.yaml': patched,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [apps/], result: pass, patchedResources: patched.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [apps/web-], result: pass}
`),
    });
    const rows = rowsOf(dir);
    expect(rows.map((r) => [r.resource, r.status])).toEqual([
      ['Pod/apps', 'passed'],
      ['Pod/apps/web-', 'failed'],
    ]);
    expect(rows[1]!.reason).toMatch(/resource not found/);
  });

  it('as kyverno test, passes a rule the policy lacks as Excluded, for resources of the test only', () => {
    const dir = suiteDir({
      ...base,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: no-such-rule, kind: Pod, resources: [web, nope], result: pass}
- {policy: add-label, rule: no-such-rule, kind: Pod, resources: [web], result: fail, patchedResources: patched-deploy.yaml}
`),
    });
    const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
    if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
    const rows = runTestSuite(suite.value, 'strict', { asKyvernoTest: true });
    // printTestResult: the policy's response for the resource has no rule response of that name (Excluded,
    // whatever the expected result or patched resource); a resource the test lacks has no response (Not found).
    expect(rows.map((r) => [r.resource, r.status])).toEqual([
      ['Pod/web', 'passed'],
      ['Pod/nope', 'failed'],
      ['Pod/web', 'passed'],
    ]);
    expect(rows[0]!.reason).toMatch(/^Excluded: rule no-such-rule is not a rule of policy add-label/);
    expect(rows[1]!.reason).toMatch(/resource not found/);
  });

  it('does not run a policy kind that never mutates, on resources or on a JSON payload', () => {
    const validating = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: check
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: vap
spec:
  validations:
  - expression: "true"
`;
    const dir = suiteDir({
      ...base,
      'policy.yaml': `${POLICY}---\n${validating}`,
      'kyverno-test.yaml': testFile(`- {isValidatingPolicy: true, policy: check, kind: Pod, resources: [web], result: pass}
- {isValidatingPolicy: true, policy: check, kind: Payload, result: pass}
- {isValidatingAdmissionPolicy: true, policy: vap, kind: Pod, resources: [web], result: fail}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-pod.yaml}
`),
    });
    const rows = rowsOf(dir);
    expect(rows.map((r) => [r.status, r.reason])).toEqual([
      ['skipped', 'not run: policy check is a ValidatingPolicy; transmute runs mutations only'],
      ['skipped', 'not run: policy check is a ValidatingPolicy; transmute runs mutations only'],
      ['skipped', 'not run: policy vap is a ValidatingAdmissionPolicy; transmute runs mutations only'],
      ['passed', 'Ok'],
    ]);
  });

  it('fails a wrong result and a wrong patched resource, with a diff', () => {
    const dir = suiteDir({
      ...base,
      'wrong.yaml': PATCHED_POD.replace('color: orange', 'color: blue'),
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: skip}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: wrong.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-deploy.yaml}
`),
    });
    const rows = rowsOf(dir);
    // A patched file without the resource leaves the row uncompared (kyverno test drops it): it cannot fail.
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'passed']);
    expect(rows[0]!.reason).toBe('want skip, got pass: resource patched');
    expect(rows[1]!.reason).toMatch(/patched resource differs from wrong.yaml: at \/metadata\/labels\/color/);
    expect(rows[1]!.diff).toContain('-    color: blue');
    expect(rows[1]!.diff).toContain('+    color: orange');
    expect(rows[2]!.reason).toMatch(/^not compared: patched-deploy.yaml has no Pod default\/web/);
  });

  it('reads a variables file', () => {
    const dir = suiteDir({
      ...base,
      'values.yaml': `apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\npolicies:\n- name: add-label\n  resources:\n  - name: web\n    values:\n      request.operation: UPDATE\n`,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patchedResources: patched-pod.yaml}\n`, 'variables: values.yaml\n'),
    });
    expect(rowsOf(dir).map((r) => r.status)).toEqual(['passed']);
  });

  it("evaluates a result's resources again with the operation it declares, over the values file's", () => {
    const onUpdate = POLICY.replace('    preconditions:\n      all:\n', '    preconditions:\n      all:\n      - key: "{{ request.operation }}"\n        operator: Equals\n        value: UPDATE\n');
    const dir = suiteDir({
      ...base,
      'policy.yaml': onUpdate,
      'kyverno-test.yaml': testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: skip}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, operation: UPDATE, patchedResources: patched-pod.yaml}
- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, operation: PATCH}
`),
    });
    const rows = rowsOf(dir);
    expect(rows.map((r) => r.status)).toEqual(['passed', 'passed', 'failed']);
    expect(rows[2]!.reason).toBe('resource web: invalid operation "PATCH", must be one of CREATE, UPDATE, DELETE');
  });

  // kyverno test decodes the file strictly (test/load.go UnmarshalStrict) and refuses the old form since 1.15
  // (kyverno#12840): such a test stops the run, where reading it leniently would report results Kyverno never gives.
  describe('loads a test as kyverno test decodes it', () => {
    const loadError = (test: string): string => {
      const dir = suiteDir({ ...base, 'kyverno-test.yaml': test });
      const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
      if (suite.ok) throw new Error('the test loaded');
      const d = suite.diagnostics[0]!;
      return `${d.code} ${d.span ? `${d.span.line}:${d.span.col} ` : ''}${d.message}`;
    };

    it('refuses the old form: its result fields are unknown to the Test type', () => {
      expect(loadError(`name: legacy\npolicies: [policy.yaml]\nresources: [resources.yaml]\nresults:\n- {policy: add-label, rule: add-label, kind: Pod, resource: web, status: pass, patchedResource: patched-pod.yaml}\n`)).toBe(
        // Keys decode in sorted order (sigs.k8s.io/yaml): patchedResource before resource and status.
        'TM7003 5:80 error unmarshaling JSON: while decoding JSON: json: unknown field "patchedResource"',
      );
    });

    it('refuses the old form without apiVersion and kind, or with a top-level name', () => {
      const body = `policies: [policy.yaml]\nresources: [resources.yaml]\nresults:\n- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`;
      expect(loadError(`name: old\n${body}`)).toBe('TM7003 1:1 test file uses a deprecated schema — please migrate to the latest format (cli.kyverno.io/v1alpha1 Test with apiVersion, kind and metadata.name)');
      expect(loadError(`apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nname: old\n${body}`)).toMatch(/^TM7003 3:1 test file uses a deprecated schema/);
      expect(loadError(`kind: Test\nmetadata: {name: t}\n${body}`)).toMatch(/^TM7003 1:1 test file uses a deprecated schema/);
    });

    it('refuses unknown fields and values of the wrong type, at the first in key order', () => {
      expect(loadError(testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass, patched: x.yaml}\n`, 'zzz: 1\n'))).toBe(
        'TM7003 11:83 error unmarshaling JSON: while decoding JSON: json: unknown field "patched"',
      );
      expect(loadError(testFile(`- {policy: add-label, rule: 7, kind: Pod, resources: [web], result: pass}\n`))).toBe(
        'TM7003 10:29 error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field TestResult.results.rule of type string',
      );
      expect(loadError(testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`).replace('policies:\n- policy.yaml', 'policies: policy.yaml'))).toBe(
        'TM7003 5:11 error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Test.policies of type []string',
      );
      expect(loadError(testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`, 'values:\n  policies:\n  - name: add-label\n    rulez: []\n'))).toMatch(
        /^TM7003 12:5 .*json: unknown field "rulez"$/,
      );
    });

    it('reads the values, user info and context files a test names the same way', () => {
      const result = `- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`;
      const withFile = (key: string, file: string, text: string): string => {
        const dir = suiteDir({ ...base, [file]: text, 'kyverno-test.yaml': testFile(result, `${key}: ${file}\n`) });
        const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
        if (suite.ok) return 'loaded';
        const d = suite.diagnostics[0]!;
        return `${d.code} ${d.span ? `${d.span.line}:${d.span.col} ` : ''}${d.message}`;
      };
      expect(withFile('variables', 'values.yaml', `policies:\n- name: add-label\n`)).toBe(
        'TM7003 1:1 values file values.yaml uses a deprecated schema — please migrate to the latest format (apiVersion cli.kyverno.io/v1alpha1 and a kind)',
      );
      expect(withFile('variables', 'values.yaml', `apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\npolicy:\n- name: add-label\n`)).toBe(
        'TM7003 3:1 error unmarshaling JSON: while decoding JSON: json: unknown field "policy"',
      );
      expect(withFile('userinfo', 'user.yaml', `clusterRoles: [admin]\n`)).toMatch(/^TM7003 1:1 userInfo file user.yaml uses a deprecated schema/);
      expect(withFile('userinfo', 'user.yaml', `apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nclusterRoles: [admin]\nuserInfo: {username: jane, group: [a]}\n`)).toBe(
        'TM7003 4:28 error unmarshaling JSON: while decoding JSON: json: unknown field "group"',
      );
      expect(withFile('userinfo', 'user.yaml', `apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nclusterRoles: [admin]\nuserInfo: {username: jane, groups: [a]}\n`)).toBe('loaded');
      // A Context file is decoded strictly too, with no check of its form.
      expect(withFile('context', 'context.yaml', `spec:\n  images:\n  - {image: nginx, registry: docker.io, repo: nginx}\n`)).toBe(
        'TM7003 3:41 error unmarshaling JSON: while decoding JSON: json: unknown field "repo"',
      );
      expect(withFile('context', 'context.yaml', `spec:\n  images:\n  - {image: nginx, resolvedImage: docker.io/nginx:latest, registry: docker.io, repository: nginx}\n`)).toBe('loaded');
    });

    it('reads every document of the file as a test of its own, each loading or failing alone', () => {
      const one = testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: pass}\n`);
      const two = testFile(`- {policy: add-label, rule: add-label, kind: Pod, resources: [web], result: skip}\n`).replace('name: t', 'name: t2');
      const dir = suiteDir({ ...base, 'kyverno-test.yaml': `${one}---\n${two}---\nname: old\n` });
      const loaded = loadTestSuites(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
      expect(loaded.map((l) => (l.ok ? l.value.name : l.diagnostics[0]!.message))).toEqual(['t', 't2', expect.stringMatching(/uses a deprecated schema/)]);
      const rows = loaded.flatMap((l) => (l.ok ? runTestSuite(l.value) : []));
      expect(rows.map((r) => r.status)).toEqual(['passed', 'failed']);
    });

    it('takes a field named in another case, as encoding/json does', () => {
      const dir = suiteDir({
        ...base,
        'kyverno-test.yaml': testFile(`- {Policy: add-label, RULE: add-label, kind: Pod, Resources: [web], result: pass, patchedResources: patched-pod.yaml}\n`),
      });
      expect(rowsOf(dir).map((r) => [r.policy, r.resource, r.status])).toEqual([['add-label', 'Pod/web', 'passed']]);
    });
  });

  it('fills apiCall context entries from apiCallResponses', () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: from-api}
spec:
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Service]}
    context:
    - name: zone
      apiCall:
        urlPath: /api/v1/namespaces/default/configmaps/zone
        jmesPath: data.zone
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            zone: "{{ zone }}"
`;
    const patched = `apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: default\n  labels:\n    zone: east\nspec:\n  ports:\n  - port: 80\n`;
    const dir = suiteDir({
      'policy.yaml': policy,
      'resources.yaml': RESOURCES,
      'patched.yaml': patched,
      'kyverno-test.yaml': testFile(
        `- {policy: from-api, rule: r, kind: Service, resources: [svc], result: pass, patchedResources: patched.yaml}\n`,
        `apiCallResponses:\n- urlPath: /api/v1/namespaces/default/configmaps/zone\n  method: GET\n  response:\n    statusCode: 200\n    body: {data: {zone: east}}\n`,
      ),
    });
    expect(rowsOf(dir).map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
  });

  it('finds kyverno-test.yaml files recursively, keeping the spelling of PATH', () => {
    const dir = suiteDir({ 'kyverno-test.yaml': 'x', 'b/kyverno-test.yaml': 'x', 'a/c/kyverno-test.yaml': 'x', 'a/other.yaml': 'x' });
    expect(findTestFiles(dir).map((f) => f.slice(dir.length))).toEqual(['/kyverno-test.yaml', '/a/c/kyverno-test.yaml', '/b/kyverno-test.yaml']);
    expect(findTestFiles(`${dir}/`)[0]).toBe(`${dir}/kyverno-test.yaml`);
  });
});

/** Suites of the upstream corpus that need what transmute does not simulate (see the rows' reasons). */
const NOT_SIMULATED = new Map<string, RegExp>([]);

describeShared('upstream test/cli/test-mutate suites', () => {
  const root = sharedPath('conformance/kyverno/suites/test-mutate');
  const files = findTestFiles(root);
  it('finds every suite', () => {
    expect(files.length).toBe(15);
  });
  for (const file of files) {
    const name = file.slice(root.length + 1).replace(/\/?kyverno-test\.yaml$/, '') || '.';
    it(`runs ${name}`, () => {
      const suite = loadTestSuite(file);
      if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
      const rows = runTestSuite(suite.value);
      expect(rows.length).toBeGreaterThanOrEqual(suite.value.results.length);
      const expected = NOT_SIMULATED.get(name);
      if (name === 'mutate-existing-wildcard-panic') {
        // A validate rule's result: listed as not run, neither passing nor failing.
        expect(rows.map((r) => [r.status, r.reason.startsWith('not run: rule warn-on-invalid-or-missing-context-ns-label is a validate rule')])).toEqual([['skipped', true]]);
        return;
      }
      if (expected) {
        expect(rows.some((r) => r.status === 'failed' && expected.test(r.reason))).toBe(true);
        return;
      }
      expect(rows.filter((r) => r.status === 'failed')).toEqual([]);
      expect(rows.filter((r) => r.status === 'skipped')).toEqual([]);
      // Expected skips pass; the suite says skip wherever a row passed as excluded.
      const text = readFileSync(file, 'utf8');
      if (rows.some((r) => r.reason.startsWith('Excluded'))) expect(text).toMatch(/result: skip/);
    });
  }
});
