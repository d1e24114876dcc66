import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listFiles } from '../../src/migrate/discover.js';
import { MARKER } from '../../src/migrate/output.js';
import type { MigrateReport } from '../../src/migrate/report.js';
import { run } from '../cli/support.js';
import { ZONE_LABEL_POLICY } from '../support/migrate-fixtures.js';

const LIBRARY = join(import.meta.dirname, '..', 'fixtures', 'migrate', 'library');
/** One ClusterPolicy of an admission rule and a mutate-existing rule, with a suite testing both. */
const EXISTING_LIBRARY = join(import.meta.dirname, '..', 'fixtures', 'migrate', 'existing-library');

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A temporary folder removed after the test. */
function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'transmute-migrate-'));
  roots.push(root);
  return root;
}

/** Every file under `dir` with a hash of its bytes. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((rel) => [rel, createHash('sha256').update(readFileSync(join(dir, rel))).digest('hex')]));
}

function policy(report: MigrateReport, name: string) {
  const p = report.policies.find((x) => x.source.name === name);
  if (!p) throw new Error(`no policy ${name} in the report`);
  return p;
}

async function migrateJson(args: string[]): Promise<{ code: number; report: MigrateReport }> {
  const r = await run(['migrate', ...args, '--json']);
  expect(r.stderr).toBe('');
  return { code: r.code, report: JSON.parse(r.stdout) as MigrateReport };
}

describe('transmute migrate on a library', () => {
  it('migrates, rewrites the suites, proves each policy and reports per source policy', async () => {
    const out = join(tempRoot(), 'out');
    const before = snapshot(LIBRARY);
    const { code, report } = await migrateJson([LIBRARY, '--out-dir', out]);
    expect(code).toBe(1); // not everything is migrated and proven
    expect(snapshot(LIBRARY)).toEqual(before); // DIR untouched

    expect(policy(report, 'add-team-label')).toMatchObject({ status: 'proven', migrated: { kind: 'MutatingPolicy', name: 'add-team-label' }, leftRules: [{ name: 'require-owner', kind: 'validate' }] });
    expect(policy(report, 'add-team-label').rows).toHaveLength(2);
    expect(policy(report, 'annotate-pods')).toMatchObject({ status: 'proven' });
    expect(policy(report, 'pull-policy')).toMatchObject({ status: 'proven', migrated: { name: 'assign-pull-policy' } });
    // The mutators of one file are one fix-point: one policy, proven together.
    for (const name of ['owner-label', 'tier-annotation']) {
      expect(policy(report, name)).toMatchObject({ status: 'proven', migrated: { name: 'owner-label-and-1-more', group: ['AssignMetadata/owner-label', 'AssignMetadata/tier-annotation'] } });
    }
    // A mutate-existing rule becomes a MutatingPolicy with evaluation.mutateExisting; no suite row tests it.
    const refresh = policy(report, 'refresh-secrets');
    expect(refresh).toMatchObject({ status: 'untested', migrated: { kind: 'MutatingPolicy', name: 'refresh-secrets' } });
    expect(refresh.notes).toEqual([]);
    expect(policy(report, 'require-labels')).toMatchObject({ status: 'left-as-is', reason: 'no mutate rule (rules: require-app-label (validate))' });
    expect(policy(report, 'already-cel')).toMatchObject({ status: 'left-as-is', reason: 'already a MutatingPolicy; copied unchanged' });

    // A namespaced Policy becomes a NamespacedMutatingPolicy: its suite rows, inside and outside its namespace, agree.
    const costCenter = policy(report, 'add-cost-center');
    expect(costCenter.status).toBe('proven');
    expect(costCenter.migrated).toMatchObject({ kind: 'NamespacedMutatingPolicy', namespace: 'team-a' });

    expect(report.summary).toMatchObject({ mutatePolicies: 7, notMigrated: 0, untested: 1, leftAsIs: 2 });
    expect(report.summary.proven + report.summary.differences).toBe(6);
  });

  it('writes OUT as a mirror of DIR: migrated policies in place, other files byte for byte, suites rewritten', async () => {
    const out = join(tempRoot(), 'out');
    await run(['migrate', LIBRARY, '--out-dir', out]);
    const source = snapshot(LIBRARY);
    const written = snapshot(out);
    expect(Object.keys(written).sort()).toEqual([...Object.keys(source), MARKER].sort());
    for (const rel of ['README.md', 'validate-only.yaml', 'cel/already.yaml', 'labels/.kyverno-test/resources.yaml', 'labels/.kyverno-test/patched.yaml', 'annotations/resources.yaml']) {
      expect(written[rel], rel).toBe(source[rel]);
    }
    // The migrated policy, then what is left of the source (its validate rule).
    const docs = readFileSync(join(out, 'labels/policy.yaml'), 'utf8').split(/^---$/m).map((d) => parse(d));
    expect(docs.map((d) => [d.kind, d.metadata.name])).toEqual([
      ['MutatingPolicy', 'add-team-label'],
      ['ClusterPolicy', 'add-team-label'],
    ]);
    expect(docs[1].spec.rules.map((r: { name: string }) => r.name)).toEqual(['require-owner']);
    // Every policy of the file migrated in place, the mutate-existing one too.
    const annotations = readFileSync(join(out, 'annotations/policies.yaml'), 'utf8').split(/^---$/m).map((d) => parse(d));
    expect(annotations.map((d) => d.kind)).toEqual(['MutatingPolicy', expect.stringMatching(/MutatingPolicy$/), 'MutatingPolicy']);
    expect(annotations[2].metadata.name).toBe('refresh-secrets');
    expect(annotations[2].spec.evaluation).toEqual({ mutateExisting: { enabled: true } });

    const suite = parse(readFileSync(join(out, 'labels/.kyverno-test/kyverno-test.yaml'), 'utf8'));
    expect(suite.policies).toEqual(['../policy.yaml']);
    expect(suite.results[0]).toEqual({ isMutatingPolicy: true, kind: 'ConfigMap', patchedResources: 'patched.yaml', policy: 'add-team-label', resources: ['plain'], result: 'pass' });
    // The validate rule's entry is kept as written.
    expect(suite.results[2]).toEqual({ kind: 'ConfigMap', policy: 'add-team-label', resources: ['plain'], result: 'fail', rule: 'require-owner' });
    const gk = parse(readFileSync(join(out, 'gatekeeper/kyverno-test.yaml'), 'utf8'));
    expect(gk.results.map((r: { policy: string; rule?: string }) => [r.policy, r.rule])).toEqual([
      ['owner-label-and-1-more', undefined],
      ['assign-pull-policy', undefined],
    ]);
    // The marker is the JSON report.
    expect(JSON.parse(readFileSync(join(out, MARKER), 'utf8')).summary.mutatePolicies).toBe(7);
    // Nothing is left beside OUT.
    expect(readdirSync(join(out, '..'))).toEqual(['out']);
  });

  it('a source whose admission rule sits beside a mutate-existing rule becomes two MutatingPolicies, each suite entry naming its own', async () => {
    const out = join(tempRoot(), 'out');
    const { code, report } = await migrateJson([EXISTING_LIBRARY, '--out-dir', out]);
    expect(code).toBe(0);
    const p = policy(report, 'stamp-and-refresh');
    expect(p).toMatchObject({
      status: 'proven',
      migrated: { kind: 'MutatingPolicy', name: 'stamp-and-refresh', byRule: { 'refresh-secret': { kind: 'MutatingPolicy', name: 'stamp-and-refresh-refresh-secret' } } },
    });
    // One row per migrated entry: the admission rule's on its resource, the mutate-existing rule's on the target
    // its original entry expected patched, paired with that entry's verdict.
    expect(p.rows.map((r) => [r.entry, r.resource, r.original.status, r.migrated.status])).toEqual([
      [0, 'ConfigMap/settings', 'passed', 'passed'],
      [1, 'Secret/apps/credentials', 'passed', 'passed'],
    ]);
    const docs = readFileSync(join(out, 'refresh/policy.yaml'), 'utf8').split(/^---$/m).map((d) => parse(d));
    expect(docs.map((d) => [d.kind, d.metadata.name, d.spec.evaluation?.mutateExisting?.enabled ?? false])).toEqual([
      ['MutatingPolicy', 'stamp-and-refresh', false],
      ['MutatingPolicy', 'stamp-and-refresh-refresh-secret', true],
    ]);
    // A MutatingPolicy's entry checks a target only where it names it (the CLI checks a trigger's own admission).
    const suite = parse(readFileSync(join(out, 'refresh/kyverno-test.yaml'), 'utf8'));
    expect(suite.results).toEqual([
      { isMutatingPolicy: true, kind: 'ConfigMap', patchedResources: 'stamped-configmap.yaml', policy: 'stamp-and-refresh', resources: ['settings'], result: 'pass' },
      { isMutatingPolicy: true, kind: 'Secret', patchedResources: 'refreshed-secret.yaml', policy: 'stamp-and-refresh-refresh-secret', resources: ['apps/credentials'], result: 'pass' },
    ]);
    const text = await run(['migrate', EXISTING_LIBRARY, '--out-dir', join(tempRoot(), 'again')]);
    expect(text.stdout).toContain('  rule refresh-secret, which mutates existing resources -> MutatingPolicy stamp-and-refresh-refresh-secret\n');
  });

  it('prints one line per source policy and a summary; the same output on every run (deterministic)', async () => {
    const root = tempRoot();
    const a = await run(['migrate', LIBRARY, '--out-dir', join(root, 'a')]);
    const b = await run(['migrate', LIBRARY, '--out-dir', join(root, 'b')]);
    expect(a.stdout.replaceAll(join(root, 'a'), 'OUT')).toBe(b.stdout.replaceAll(join(root, 'b'), 'OUT'));
    const withoutMarker = (s: Record<string, string>) => Object.fromEntries(Object.entries(s).filter(([k]) => k !== MARKER));
    expect(withoutMarker(snapshot(join(root, 'a')))).toEqual(withoutMarker(snapshot(join(root, 'b'))));
    const lines = a.stdout.trimEnd().split('\n');
    expect(lines).toContain(
      `migrated and proven        ${LIBRARY}/labels/policy.yaml:2:1 ClusterPolicy add-team-label -> MutatingPolicy add-team-label in ${join(root, 'a')}/labels/policy.yaml (2 rows)`,
    );
    expect(lines).toContain(
      `migrated, untested         ${LIBRARY}/annotations/policies.yaml:39:1 ClusterPolicy refresh-secrets -> MutatingPolicy refresh-secrets in ${join(root, 'a')}/annotations/policies.yaml (no suite row tests it)`,
    );
    expect(lines).toContain('  left as is: rule require-owner (validate), kept in ClusterPolicy add-team-label');
    expect(lines).toContain(`left as is                 ${LIBRARY}/validate-only.yaml:1:1 ClusterPolicy require-labels: no mutate rule (rules: require-app-label (validate))`);
    expect(lines.at(-1)).toMatch(/^7 mutate policies: \d+ migrated and proven, \d+ migrated with differences, 1 migrated untested, 0 not migrated; 2 left as is$/);
  });

  it('--to map marks rows isMutatingAdmissionPolicy and writes policy and binding; mutate existing cannot be expressed', async () => {
    const out = join(tempRoot(), 'out');
    const { report } = await migrateJson([LIBRARY, '--out-dir', out, '--to', 'map', '--api-version', 'v1beta1']);
    expect(policy(report, 'add-team-label')).toMatchObject({ status: 'proven', migrated: { kind: 'MutatingAdmissionPolicy' } });
    expect(policy(report, 'refresh-secrets').refusals[0]).toMatchObject({ class: 'cannot' });
    const docs = readFileSync(join(out, 'labels/policy.yaml'), 'utf8').split(/^---$/m).map((d) => parse(d));
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
      'admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy',
      'admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding',
      'kyverno.io/v1 ClusterPolicy',
    ]);
    const suite = parse(readFileSync(join(out, 'labels/.kyverno-test/kyverno-test.yaml'), 'utf8'));
    expect(suite.results[0]).toMatchObject({ isMutatingAdmissionPolicy: true, policy: 'add-team-label' });
    expect(suite.results[0].rule).toBeUndefined();
  });

  it('exits 0 when every mutate policy is migrated and proven, and replaces its own earlier output', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    cpSync(join(LIBRARY, 'labels'), join(dir, 'labels'), { recursive: true });
    cpSync(join(LIBRARY, 'validate-only.yaml'), join(dir, 'validate-only.yaml'));
    const out = join(root, 'out');
    const first = await run(['migrate', dir, '--out-dir', out]);
    expect(first.code).toBe(0);
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe('1 mutate policy: 1 migrated and proven, 0 migrated with differences, 0 migrated untested, 0 not migrated; 1 left as is');
    writeFileSync(join(out, 'stale.yaml'), 'stale: true\n');
    const second = await run(['migrate', dir, '--out-dir', out]);
    expect(second.code).toBe(0);
    expect(existsSync(join(out, 'stale.yaml'))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['lib', 'out']);
  });

  it('reports an entry whose migrated row differs, with both results', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    cpSync(join(LIBRARY, 'labels'), join(dir, 'labels'), { recursive: true });
    // An expected object that is wrong in both suites: the policy is not proven.
    const patched = join(dir, 'labels/.kyverno-test/patched.yaml');
    writeFileSync(patched, readFileSync(patched, 'utf8').replace('team: platform', 'team: other'));
    const { code, report } = await migrateJson([dir, '--out-dir', join(root, 'out')]);
    expect(code).toBe(1);
    const p = policy(report, 'add-team-label');
    expect(p.status).toBe('differences');
    const differing = p.rows.filter((r) => r.original.status === 'failed' || r.migrated.status === 'failed');
    expect(differing).toHaveLength(1);
    expect(differing[0]).toMatchObject({ entry: 0, resource: 'ConfigMap/plain', original: { status: 'failed' }, migrated: { status: 'failed', policy: 'add-team-label', rule: '' } });
    expect(differing[0]!.migrated.diff).toContain('team: other');
    const text = await run(['migrate', dir, '--out-dir', join(root, 'out')]);
    expect(text.stdout).toContain(`  ${dir}/labels/.kyverno-test/kyverno-test.yaml results[0] ConfigMap/plain (fails in the original suite too)\n    original: failed: patched resource differs`);
  });

  it("a row whose suite gives the source's context as values is not run for the MutatingPolicy, which reads the cluster", async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    mkdirSync(join(dir, '.kyverno-test'), { recursive: true });
    writeFileSync(join(dir, 'policy.yaml'), ZONE_LABEL_POLICY);
    writeFileSync(join(dir, '.kyverno-test/resource.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers: [{name: app, image: nginx}]\n');
    writeFileSync(join(dir, '.kyverno-test/patched.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default, labels: {zone: z1}}\nspec:\n  containers: [{name: app, image: nginx}]\n');
    writeFileSync(join(dir, '.kyverno-test/values.yaml'), 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\npolicies:\n- name: zone-label\n  rules:\n  - name: zone\n    values:\n      settings.data.zone: z1\n');
    writeFileSync(
      join(dir, '.kyverno-test/kyverno-test.yaml'),
      'apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [../policy.yaml]\nresources: [resource.yaml]\nvariables: values.yaml\nresults:\n- {policy: zone-label, rule: zone, kind: Pod, resources: [web], result: pass, patchedResources: patched.yaml}\n',
    );
    const { code, report } = await migrateJson([dir, '--out-dir', join(root, 'out')]);
    expect(code).toBe(1);
    const p = policy(report, 'zone-label');
    expect(p).toMatchObject({ status: 'untested', rows: [{ original: { status: 'passed' }, migrated: { status: 'failed' }, notRun: expect.stringContaining('which only a ClusterPolicy reads') }] });
  });

  it('a suite kyverno test refuses (the old schema) proves nothing: its rows are not run, the policy untested', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    cpSync(join(LIBRARY, 'labels'), join(dir, 'labels'), { recursive: true });
    const test = join(dir, 'labels/.kyverno-test/kyverno-test.yaml');
    writeFileSync(test, readFileSync(test, 'utf8').replace(/^apiVersion: .*\nkind: Test\n/, ''));
    const { code, report } = await migrateJson([dir, '--out-dir', join(root, 'out')]);
    expect(code).toBe(1);
    const p = policy(report, 'add-team-label');
    expect(p.status).toBe('untested');
    expect(p.rows.length).toBeGreaterThan(0);
    for (const r of p.rows) expect(r.notRun).toMatch(/^the original suite does not load \(kyverno test refuses it too\): .*uses a deprecated schema/);
  });

  it('a policy no suite row tests is migrated, untested (exit 1)', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    mkdirSync(dir);
    cpSync(join(LIBRARY, 'labels/policy.yaml'), join(dir, 'policy.yaml'));
    const { code, report } = await migrateJson([dir, '--out-dir', join(root, 'out')]);
    expect(code).toBe(1);
    expect(policy(report, 'add-team-label')).toMatchObject({ status: 'untested', rows: [] });
  });

  it('keeps suite paths that lead outside DIR working from OUT', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    mkdirSync(join(root, 'shared'));
    cpSync(join(LIBRARY, 'labels'), join(dir, 'labels'), { recursive: true });
    cpSync(join(dir, 'labels/.kyverno-test/resources.yaml'), join(root, 'shared/resources.yaml'));
    const suitePath = join(dir, 'labels/.kyverno-test/kyverno-test.yaml');
    writeFileSync(suitePath, readFileSync(suitePath, 'utf8').replace('- resources.yaml', '- ../../../shared/resources.yaml'));
    const out = join(root, 'out', 'nested');
    const { report } = await migrateJson([dir, '--out-dir', out]);
    expect(policy(report, 'add-team-label').status).toBe('proven');
    const suite = parse(readFileSync(join(out, 'labels/.kyverno-test/kyverno-test.yaml'), 'utf8'));
    expect(suite.resources).toEqual(['../../../../shared/resources.yaml']);
    expect(report.suites.find((s) => s.rel === 'labels/.kyverno-test/kyverno-test.yaml')!.problems[0]).toMatch(/^resources \.\.\/\.\.\/\.\.\/shared\/resources\.yaml is outside /);
  });
});

describe('transmute migrate: usage and refusals', () => {
  it('refuses an OUT that is DIR, inside DIR, contains DIR, or is a folder of something else (exit 2, nothing written)', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    cpSync(join(LIBRARY, 'labels'), join(dir, 'labels'), { recursive: true });
    const before = snapshot(root);
    for (const [out, message] of [
      [dir, 'is DIR itself'],
      [join(dir, 'out'), 'is inside DIR'],
      [join(dir, 'labels', '..', 'x'), 'is inside DIR'],
      [root, 'contains DIR'],
    ] as const) {
      const r = await run(['migrate', dir, '--out-dir', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
    mkdirSync(join(root, 'other'));
    writeFileSync(join(root, 'other', 'keep.txt'), 'mine\n');
    const r = await run(['migrate', dir, '--out-dir', join(root, 'other')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('neither empty nor an earlier output of transmute migrate');
    expect(readFileSync(join(root, 'other', 'keep.txt'), 'utf8')).toBe('mine\n');
    rmSync(join(root, 'other'), { recursive: true });
    expect(snapshot(root)).toEqual(before);
  });

  it('rejects bad usage with exit 2', async () => {
    const root = tempRoot();
    const out = join(root, 'out');
    const cases: [string[], string][] = [
      [['migrate', LIBRARY], '--out-dir is required'],
      [['migrate', '--out-dir', out], 'exactly one DIR'],
      [['migrate', LIBRARY, LIBRARY, '--out-dir', out], 'exactly one DIR'],
      [['migrate', LIBRARY, '--out-dir', out, '--to', 'gatekeeper'], '--to must be kyverno-mpol or map'],
      [['migrate', LIBRARY, '--out-dir', out, '--api-version', 'v9'], '--api-version: kyverno-mpol is served at v1, v1beta1, v1alpha1, not "v9"'],
      [['migrate', join(root, 'missing'), '--out-dir', out], 'no such file or folder'],
      [['migrate', join(LIBRARY, 'README.md'), '--out-dir', out], 'not a folder'],
      [['migrate', LIBRARY, '--out-dir', out, '--bogus'], 'bogus'],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toContain(message);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a DIR without any mutate policy checks nothing: exit 1', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    mkdirSync(dir);
    cpSync(join(LIBRARY, 'validate-only.yaml'), join(dir, 'validate-only.yaml'));
    const r = await run(['migrate', dir, '--out-dir', join(root, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('0 mutate policies: 0 migrated and proven, 0 migrated with differences, 0 migrated untested, 0 not migrated; 1 left as is');
    expect(statSync(join(root, 'out', 'validate-only.yaml')).isFile()).toBe(true);
  });

  it('--help describes the layout and the exit codes; the command is listed', async () => {
    const r = await run(['migrate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: transmute migrate DIR --out-dir OUT/);
    expect(r.stdout).toContain('isMutatingPolicy: true');
    expect(r.stdout).toContain('Exit codes: 0 every mutate policy was migrated and proven');
    expect((await run(['--help'])).stdout).toMatch(/^ {2}migrate +migrate a policy library/m);
  });
});

describe('transmute migrate: file formats', () => {
  it('writes a migrated JSON policy file as JSON', async () => {
    const root = tempRoot();
    const dir = join(root, 'lib');
    mkdirSync(dir);
    const source = parse(readFileSync(join(LIBRARY, 'labels/policy.yaml'), 'utf8'));
    source.spec.rules = source.spec.rules.slice(0, 1);
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(source, null, 2));
    const { report } = await migrateJson([dir, '--out-dir', join(root, 'out')]);
    expect(policy(report, 'add-team-label').status).toBe('untested');
    const written = JSON.parse(readFileSync(join(root, 'out', 'policy.json'), 'utf8'));
    expect(written).toMatchObject({ apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy', metadata: { name: 'add-team-label' } });
  });
});
