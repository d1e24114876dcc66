import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_HELP } from '../../../src/cli/commands/test.js';
import { findKaptestFiles, isKaptestFile, loadKaptest, runKaptest, type KaptestRow } from '../../../src/dialects/map/kaptest/index.js';
import { run } from '../../cli/support.js';
import { REPO_ROOT } from '../../support/shared.js';
import { tempDir as tempFolder } from '../../support/temp.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/kaptest');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** A temporary folder with the given files, removed when the test file ends. */
const tempDir = (files: Record<string, string>): string => tempFolder('kaptest', files);

/** The labels fixture's policy and resources, with a manifest of the test's own. */
function labelsSuite(manifest: string, extra: Record<string, string> = {}): string {
  return tempDir({ 'labels.yaml': fixture('labels.yaml'), 'labels.test/resources.yaml': fixture('labels.test/resources.yaml'), 'labels.test/kaptest.yaml': manifest, ...extra });
}

function rowsOf(path: string): KaptestRow[] {
  const m = loadKaptest(path);
  if (!m.ok) throw new Error(m.diagnostics.map((d) => d.message).join('; '));
  return runKaptest(m.value);
}

const HEADER = `version: v1alpha1
policies:
- ../labels.yaml
resources:
- resources.yaml
`;

describe('kaptest manifests through the runner', () => {
  it('labels: mutate (CREATE, UPDATE), skip by match condition and by matchConstraints, DELETE is error, disableNameOverwrite', () => {
    const rows = rowsOf(join(FIXTURES, 'labels.test/kaptest.yaml'));
    expect(rows.map((r) => [r.policy, r.rule, r.resource, r.status])).toEqual([
      ['tier-label', 'mapTestSuites[0].tests[0]', '(CREATE) Deployment:web', 'passed'],
      ['tier-label', 'mapTestSuites[0].tests[1]', '(UPDATE) Deployment:web -> shop/web-scaled', 'passed'],
      ['tier-label', 'mapTestSuites[0].tests[2]', '(CREATE) Deployment:opted-out', 'skipped'],
      ['tier-label', 'mapTestSuites[0].tests[3]', '(CREATE) ConfigMap:settings', 'skipped'],
      ['tier-label', 'mapTestSuites[0].tests[4]', '(DELETE) Deployment:web', 'passed'],
      ['previous-replicas', 'mapTestSuites[1].tests[0]', '(UPDATE) Deployment:web -> web-scaled', 'passed'],
      ['previous-replicas', 'mapTestSuites[1].tests[1]', '(CREATE) Deployment:web', 'skipped'],
      ['canonical-name', 'mapTestSuites[2].tests[0]', '(CREATE) Deployment:web', 'passed'],
    ]);
    expect(rows[2]!.reason).toBe('SKIP ==> SKIP: NOT MATCH: condition-name "not-opted-out"');
    expect(rows[3]!.reason).toMatch(/^SKIP ==> SKIP: NOT MATCH: the policy's matchConstraints .* do not select the request .*configmaps matches no resource rule/);
    expect(rows[4]!.reason).toMatch(/^ERROR ==> ERROR: DELETE/);
  });

  it('errors: runtime errors under Fail are error; under Ignore a failing mutation is skipped and a failing condition is skip', () => {
    const rows = rowsOf(join(FIXTURES, 'errors.test/kaptest.yaml'));
    expect(rows.map((r) => [r.policy, r.status])).toEqual([
      ['owner-from-spec-fail', 'passed'],
      ['owner-from-spec-ignore', 'passed'],
      ['team-condition-fail', 'passed'],
      ['team-condition-fail', 'passed'],
      ['team-condition-ignore', 'skipped'],
    ]);
    // The error names the CEL expression's place in the policy file (not the manifest's `../` spelling).
    expect(rows[0]!.reason).toMatch(/^ERROR ==> ERROR: .*test\/fixtures\/kaptest\/errors\.yaml:18:\d+: error TM5003: .*no such key: owner/);
    expect(rows[3]!.reason).toMatch(/^ERROR ==> ERROR: .*errors\.yaml:57:\d+: error TM5003/);
    expect(rows[4]!.reason).toMatch(/failurePolicy is Ignore: no such key: labels/);
  });

  it('params: the param by namespace and name, variables and match conditions read it; a named binding selects namespaces', () => {
    const rows = rowsOf(join(FIXTURES, 'params.test/kaptest.yaml'));
    expect(rows.map((r) => r.status)).toEqual(['passed', 'passed', 'skipped', 'passed', 'skipped']);
    expect(rows[2]!.reason).toBe('SKIP ==> SKIP: NOT MATCH: condition-name "below-floor"');
    expect(rows[4]!.reason).toMatch(/namespace labels do not match namespaceSelector/);
  });

  it('namespaces: the Namespace object among the resources, or a bare one; namespaceSelector is evaluated', () => {
    const rows = rowsOf(join(FIXTURES, 'namespaces.test/kaptest.yaml'));
    expect(rows.map((r) => [r.policy, r.status])).toEqual([
      ['owner-from-namespace', 'passed'],
      ['owner-from-namespace', 'passed'],
      ['prod-priority', 'passed'],
      ['prod-priority', 'skipped'],
    ]);
  });

  it('userInfo: name, groups and extra reach request.userInfo', () => {
    const rows = rowsOf(join(FIXTURES, 'userinfo.test/kaptest.yaml'));
    expect(rows.map((r) => [r.status, r.reason])).toEqual([
      ['passed', 'MUTATE ==> MUTATE'],
      ['skipped', 'SKIP ==> SKIP: NOT MATCH: condition-name "not-a-service-account"'],
    ]);
  });

  it('a wrong expectObject fails with the first difference and a diff', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: tier-label
  tests:
  - object: {kind: Deployment, name: web}
    expect: mutate
    expectObject: {kind: Deployment, name: web}
`);
    const [row] = rowsOf(join(dir, 'labels.test/kaptest.yaml'));
    expect(row!.status).toBe('failed');
    expect(row!.reason).toBe('MUTATE ==> MUTATE (FAIL): mutated object differs from expectObject Deployment:web: at /metadata/labels/tier: expected nothing, got "backend"');
    expect(row!.diff).toContain('--- expected (Deployment:web)');
    expect(row!.diff).toContain('+++ actual');
    expect(row!.diff).toMatch(/^\+ {4}tier: backend$/m);
  });

  it('expecting mutate on a resource the policy does not match fails with that reason', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: previous-replicas
  tests:
  - object: {kind: Deployment, name: web}
    expect: mutate
    expectObject: {kind: Deployment, name: web-scaled-annotated}
`);
    const [row] = rowsOf(join(dir, 'labels.test/kaptest.yaml'));
    expect(row!.status).toBe('failed');
    expect(row!.reason).toMatch(/^MUTATE ==> SKIP: NOT MATCH: the policy's matchConstraints or binding's matchResources do not select the request \(transmute evaluates them; kaptest does not\): .*CREATE apps\/v1\/deployments matches no resource rule$/);
  });

  it('expecting skip or error when the policy ran fails', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: tier-label
  tests:
  - object: {kind: Deployment, name: web}
    expect: skip
  - object: {kind: Deployment, name: web}
    expect: error
`);
    const rows = rowsOf(join(dir, 'labels.test/kaptest.yaml'));
    expect(rows.map((r) => [r.status, r.reason])).toEqual([
      ['failed', 'SKIP ==> MUTATE: the policy matched and ran'],
      ['failed', 'ERROR ==> MUTATE: the policy matched and ran'],
    ]);
  });

  it('never passes vacuously: a missing resource fails even when error is expected, with the place in the manifest', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: tier-label
  tests:
  - object: {kind: Deployment, name: ghost}
    expect: error
  - object: {kind: Deployment, name: web}
    expect: mutate
    expectObject: {kind: Deployment, name: phantom}
  - object: {kind: Deployment, name: web}
    oldObject: {kind: Deployment, name: gone}
    expect: mutate
    expectObject: {kind: Deployment, name: web-tiered}
`);
    const file = join(dir, 'labels.test/kaptest.yaml');
    const rows = rowsOf(file);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    expect(rows[0]!.reason).toBe(`ERROR ==> SETUP ERROR\n${file}:9:13: error TM7003: get object: Deployment:ghost not found among the manifest's resources`);
    expect(rows[1]!.reason).toMatch(/get expectObject: Deployment:phantom not found/);
    expect(rows[2]!.reason).toMatch(/get oldObject: Deployment:gone not found/);
  });

  it('a missing policy or binding fails every test of the suite', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: no-such-policy
  tests:
  - object: {kind: Deployment, name: web}
    expect: skip
  - object: {kind: Deployment, name: web}
    expect: error
- policy: tier-label
  binding: no-such-binding
  tests:
  - object: {kind: Deployment, name: web}
    expect: skip
- policy: no-tests-either
  tests: []
`);
    const rows = rowsOf(join(dir, 'labels.test/kaptest.yaml'));
    expect(rows.map((r) => [r.policy, r.rule, r.status])).toEqual([
      ['no-such-policy', 'mapTestSuites[0].tests[0]', 'failed'],
      ['no-such-policy', 'mapTestSuites[0].tests[1]', 'failed'],
      ['tier-label', 'mapTestSuites[1].tests[0]', 'failed'],
      ['no-tests-either', 'mapTestSuites[2]', 'failed'],
    ]);
    expect(rows[0]!.reason).toMatch(/error TM7003: POLICY NOT FOUND: no MutatingAdmissionPolicy named "no-such-policy"/);
    expect(rows[2]!.reason).toMatch(/binding not found: no MutatingAdmissionPolicyBinding named "no-such-binding"/);
  });

  it('a param the policy needs must be named and found; an ambiguous reference is an error, not a guess', () => {
    const dir = tempDir({ 'params.yaml': fixture('params.yaml'), 'params.test/resources.yaml': fixture('params.test/resources.yaml'), 'params.test/kaptest.yaml': `policies: [../params.yaml]
resources: [resources.yaml]
mapTestSuites:
- policy: replica-floor
  tests:
  - object: {kind: Deployment, namespace: team-a, name: api}
    expect: skip
  - object: {kind: Deployment, namespace: team-a, name: api}
    param: {name: floor, namespace: team-c}
    expect: skip
  - object: {kind: Deployment, name: api}
    param: {name: floor}
    expect: skip
` });
    const rows = rowsOf(join(dir, 'params.test/kaptest.yaml'));
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    expect(rows[0]!.reason).toMatch(/get param: the policy has paramKind v1, Kind=ConfigMap: param name is empty/);
    expect(rows[1]!.reason).toMatch(/get param: ConfigMap:team-c\/floor not found/);
    expect(rows[2]!.reason).toMatch(/get object: multiple target resource found: Deployment:api\n.*get param: multiple target resource found: ConfigMap:floor/);
  });

  it('malformed tests fail alone, with the field and its place', () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: tier-label
  tests:
  - object: {kind: Deployment, name: web}
  - object: {kind: Deployment, name: web}
    expect: admit
  - object: {name: web}
    expect: skip
  - object: {kind: Deployment, name: web}
    expect: mutate
  - object: {kind: Deployment, name: opted-out}
    expect: skip
`);
    const file = join(dir, 'labels.test/kaptest.yaml');
    const rows = rowsOf(file);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'skipped']);
    expect(rows[0]!.reason).toBe(`(NONE) ==> SETUP ERROR\n${file}:9:5: error TM2005: expect is required: mutate, skip or error`);
    expect(rows[1]!.reason).toMatch(/:11:13: error TM2002: expect: unsupported value "admit" for a MutatingAdmissionPolicy test/);
    expect(rows[2]!.reason).toMatch(/:12:13: error TM2005: object: kind and name are required/);
    expect(rows[3]!.reason).toMatch(/error TM2005: expectObject must be given when mutate expected/);
  });

  it('vapTestSuites are listed as skipped, not run', () => {
    const dir = labelsSuite(`${HEADER}vapTestSuites:
- policy: some-vap
  tests:
  - object: {kind: Deployment, name: web}
    expect: admit
`);
    const rows = rowsOf(join(dir, 'labels.test/kaptest.yaml'));
    expect(rows).toEqual([
      {
        file: join(dir, 'labels.test/kaptest.yaml'),
        policy: 'some-vap',
        rule: 'vapTestSuites[0].tests[0]',
        resource: '',
        status: 'skipped',
        reason: 'not run: ValidatingAdmissionPolicy tests (vapTestSuites) are outside transmute, which evaluates mutations only',
      },
    ]);
  });

  it('one dispatch per test: reinvocationPolicy IfNeeded does not run a lone policy twice', () => {
    const dir = tempDir({
      'p.yaml': `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: append-sidecar}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": "side" + string(size(object.spec.containers)), "image": "s"}}]'
`,
      'r.yaml': `apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers: [{name: app, image: x}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  containers: [{name: app, image: x}, {name: side1, image: s}]
`,
      'kaptest.yaml': `policies: [p.yaml]
resources: [r.yaml]
mapTestSuites:
- policy: append-sidecar
  tests:
  - {object: {kind: Pod, name: a}, expect: mutate, expectObject: {kind: Pod, name: b}}
`,
    });
    expect(rowsOf(join(dir, 'kaptest.yaml')).map((r) => [r.status, r.reason])).toEqual([['passed', 'MUTATE ==> MUTATE']]);
  });

  it('whole-manifest problems are diagnostics with codes and places (manifest.go IsValid, unreadable files)', () => {
    const load = (manifest: string) => {
      const dir = labelsSuite(manifest);
      return { file: join(dir, 'labels.test/kaptest.yaml'), result: loadKaptest(join(dir, 'labels.test/kaptest.yaml')) };
    };
    const version = load(`version: v2\n${HEADER.slice('version: v1alpha1\n'.length)}mapTestSuites: [{policy: tier-label, tests: []}]\n`);
    expect(version.result.ok).toBe(false);
    expect(version.result.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col, d.message])).toEqual([
      ['TM2002', 1, 10, 'invalid manifest: unsupported version "v2", supported versions: [v1alpha1]'],
    ]);
    const missing = load(`policies: [../labels.yaml, ../nope.yaml]\nresources: [resources.yaml]\nmapTestSuites: [{policy: tier-label, tests: []}]\n`);
    expect(missing.result.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col])).toEqual([['TM1004', 1, 28]]);
    expect(missing.result.diagnostics[0]!.message).toMatch(/labels\.test\/\.\.\/nope\.yaml|nope\.yaml: ENOENT/);
    const empty = load(`policies: [../labels.yaml]\nresources: [resources.yaml]\n`);
    expect(empty.result.diagnostics.map((d) => [d.code, d.message])).toEqual([['TM2005', 'invalid manifest: at least one vapTestSuites or mapTestSuites is required']]);
    const noPolicies = load(`resources: [resources.yaml]\nmapTestSuites: [{policy: tier-label}]\n`);
    expect(noPolicies.result.diagnostics.map((d) => [d.code, d.message])).toEqual([['TM2005', 'invalid manifest: at least one policies is required']]);
  });
});

describe('kaptest manifests through `transmute test`', () => {
  it('runs every kaptest.yaml under PATH: rows, summary line, exit 0', async () => {
    const r = await run(['test', FIXTURES]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`ok   ${FIXTURES}/errors.test/kaptest.yaml: owner-from-spec-fail/mapTestSuites[0].tests[0] (CREATE) Service:gateway`);
    // An expected skip that skips is a pass (as kyverno test counts it too).
    expect(lines).toContain(`ok   ${FIXTURES}/labels.test/kaptest.yaml: tier-label/mapTestSuites[0].tests[3] (CREATE) ConfigMap:settings`);
    expect(lines.filter((l) => !/^ok {3}/.test(l))).toEqual(['24 passed, 0 failed']);
  });

  it('--json: the shared shape, rows mapped as policy / rule / resource', async () => {
    const r = await run(['test', '--json', join(FIXTURES, 'userinfo.test')]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      total: 2,
      passed: 2,
      failed: 0,
      notRun: 0,
      results: [
        { file: `${FIXTURES}/userinfo.test/kaptest.yaml`, policy: 'created-by', rule: 'mapTestSuites[0].tests[0]', resource: '(CREATE) ConfigMap:flags', status: 'passed', reason: 'MUTATE ==> MUTATE' },
        {
          file: `${FIXTURES}/userinfo.test/kaptest.yaml`,
          policy: 'created-by',
          rule: 'mapTestSuites[0].tests[1]',
          resource: '(CREATE) ConfigMap:flags',
          status: 'passed',
          reason: 'SKIP ==> SKIP: NOT MATCH: condition-name "not-a-service-account"',
        },
      ],
    });
  });

  it('prints the reason and the diff of a failure, exit 1', async () => {
    const dir = labelsSuite(`${HEADER}mapTestSuites:
- policy: tier-label
  tests:
  - object: {kind: Deployment, name: web}
    expect: mutate
    expectObject: {kind: Deployment, name: web-scaled-tiered}
`);
    const r = await run(['test', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${dir}/labels.test/kaptest.yaml: tier-label/mapTestSuites[0].tests[0] (CREATE) Deployment:web\n  MUTATE ==> MUTATE (FAIL): mutated object differs from expectObject Deployment:web-scaled-tiered: at /spec/replicas: expected 6, got 2\n`);
    expect(r.stdout).toMatch(/^ {4}--- expected \(Deployment:web-scaled-tiered\)$/m);
    expect(r.stdout).toMatch(/^ {4}-  replicas: 6$/m);
    expect(r.stdout).toMatch(/^ {4}\+  replicas: 2$/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });

  it('a malformed manifest is bad input (exit 2, as a malformed kyverno-test.yaml); a manifest under any name given directly runs', async () => {
    const dir = labelsSuite(`policies: []\nresources: [resources.yaml]\nmapTestSuites: [{policy: tier-label, tests: []}]\n`, {
      'labels.test/more-tests.yaml': `${HEADER}mapTestSuites:\n- policy: tier-label\n  tests:\n  - {object: {kind: Deployment, name: opted-out}, expect: skip}\n`,
    });
    const bad = await run(['test', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${dir}/labels.test/kaptest.yaml:1:11: error TM2005: invalid manifest: at least one policies is required`);
    expect(bad.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 0 failed');
    // Only files named kaptest.yaml are found by walking; another name runs when given.
    expect(bad.stdout).not.toContain('more-tests.yaml');
    const other = await run(['test', join(dir, 'labels.test/more-tests.yaml')]);
    expect(other.code).toBe(0);
    expect(other.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('passes over a kaptest v0.1 manifest in a hidden .kaptest/ folder, and runs one of v1 there', async () => {
    const dir = labelsSuite(fixture('labels.test/kaptest.yaml'), {
      '.kaptest/kaptest.yaml': 'testSuites:\n- policy: old-vap\n  tests: []\n',
      '.hidden/kaptest.yaml': fixture('labels.test/kaptest.yaml').replace(/\.\.\/labels\.yaml/g, '../labels.yaml').replace(/resources\.yaml/g, '../labels.test/resources.yaml'),
    });
    const r = await run(['test', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('.kaptest/');
    expect(r.stdout).toContain(`${dir}/.hidden/kaptest.yaml`);
  });

  it('a YAML file that is no kaptest manifest is bad usage (exit 2)', async () => {
    const r = await run(['test', join(FIXTURES, 'labels.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a golden case folder, a kyverno-test.yaml or a chainsaw-test.yaml, nor a kaptest manifest');
  });

  it('--help tells how kaptest tests run and how transmute differs', async () => {
    const r = await run(['test', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(TEST_HELP);
    expect(TEST_HELP).toContain('kaptest.yaml');
    expect(TEST_HELP).toContain('Unlike kaptest, transmute evaluates the policy\'s\nmatchConstraints');
    expect(TEST_HELP).toContain('mapTestSuites[i].tests[j]');
  });
});

describe('kaptest discovery', () => {
  it('finds kaptest.yaml files recursively, the folder\'s own first, hidden folders too, kaptest v0.1 manifests passed over', () => {
    const dir = tempDir({
      'b.test/kaptest.yaml': 'mapTestSuites: []\n',
      'a.test/kaptest.yaml': 'mapTestSuites: []\n',
      'kaptest.yaml': 'mapTestSuites: []\n',
      '.kaptest/kaptest.yaml': 'testSuites: []\n',
      '.hidden/kaptest.yaml': 'vapTestSuites: []\n',
      'a.test/nested/kaptest.yaml': 'mapTestSuites: []\n',
      'a.test/other.yaml': 'mapTestSuites: []\n',
    });
    expect(findKaptestFiles(dir)).toEqual([`${dir}/kaptest.yaml`, `${dir}/.hidden/kaptest.yaml`, `${dir}/a.test/kaptest.yaml`, `${dir}/a.test/nested/kaptest.yaml`, `${dir}/b.test/kaptest.yaml`]);
    expect(isKaptestFile(`${dir}/a.test/other.yaml`)).toBe(true);
    expect(isKaptestFile(join(FIXTURES, 'labels.test/resources.yaml'))).toBe(false);
  });
});
