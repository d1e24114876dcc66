/**
 * The runner with dialects and engines the test gives to the run (`dialects`, `runners`): fixtures are written to a temporary
 * folder in the Kyverno CLI case layout, whose manifest names its dialect, so the fake dialects here never
 * collide with the real ones.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { diagnostic, ok } from '../../src/diagnostics/diagnostic.js';
import type { Dialect } from '../../src/dialects/dialect.js';
import { withDialects } from '../../src/dialects/registry.js';
import type { JsonObject } from '../../src/ir/json.js';
import { matchAll } from '../../src/ir/match.js';
import type { Policy } from '../../src/ir/nodes.js';
import type { SourceDoc } from '../../src/io/source.js';
import { smdTripletRunner, tableRowRunner } from '../../src/conformance/runners.js';
import { runConformance } from '../../src/conformance/run.js';
import { runAdmissionCase } from '../../src/conformance/runners/admission.js';
import type { AdmissionCase } from '../../src/conformance/types.js';
import { loadYamlText } from '../../src/io/yaml-load.js';

const ORIGIN = { file: 'fake', line: 1, col: 1, endLine: 1, endCol: 1 };

/** A dialect whose policies change nothing: enough to drive parsing, translation and comparison. */
function fakeDialect(name: string, generate: Dialect['generate'] = () => ({ documents: [], text: '', diagnostics: [] })): Dialect {
  const apiVersion = `${name}.transmute.test/v1`;
  return {
    name,
    lowerings: [],
    recognizes: (doc: SourceDoc) => (doc.value as JsonObject | null)?.apiVersion === apiVersion,
    parse: (docs) => {
      const policies: Policy[] = [];
      const diagnostics = [];
      for (const doc of docs) {
        const name = String(((doc.value as JsonObject).metadata as JsonObject | undefined)?.name ?? '');
        if (name.startsWith('reject')) diagnostics.push(diagnostic('TM2004', { phase: 'parse', message: `policy ${name} is invalid: empty path`, span: doc.spanOf([]) }));
        policies.push({ id: name, match: matchAll(), guards: [], rules: [], semantics: { order: 'sequential' }, origin: { ...ORIGIN, dialect: 'fake' } });
      }
      return { policies, diagnostics };
    },
    generate,
  };
}

const emitAs = (target: string): Dialect['generate'] => (policies) => {
  const docs = policies.map((p) => ({ apiVersion: `${target}.transmute.test/v1`, kind: 'FakePolicy', metadata: { name: p.id } }));
  return { documents: docs, text: docs.map((d) => stringify(d)).join('---\n'), diagnostics: [] };
};

/** The built-in dialects and the fakes, given to every run and runner call below (nothing is registered). */
const DIALECTS = withDialects([
  fakeDialect('fake-src', emitAs('fake-src')),
  fakeDialect('fake-ok', emitAs('fake-ok')),
  fakeDialect('fake-unsupported', (policies) => ({
    documents: [],
    text: '',
    diagnostics: policies.map((p) => diagnostic('TM4001', { phase: 'emit', message: `${p.id}: keyed list segments are not expressible` })),
  })),
  fakeDialect('fake-empty'),
]);

const root = mkdtempSync(join(tmpdir(), 'transmute-conformance-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const configMap = (labels: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels } });

function writeCliCase(name: string, opts: { dialect?: string; expected: JsonObject; policyName?: string; manifest?: string }): string {
  const dir = join(root, 'kyverno-cli', name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    source: 'kyverno-cli',
    dialect: opts.dialect ?? 'fake-src',
    mode: 'admission',
    target_policy: { kind: 'FakePolicy', name: opts.policyName ?? 'p' },
    expected_results: [],
    needs_cluster_or_external: [],
    offline_ok: true,
    files: ['expected.yaml', 'policy.yaml', 'resource.yaml'],
  };
  writeFileSync(join(dir, 'manifest.json'), opts.manifest ?? JSON.stringify(manifest));
  writeFileSync(join(dir, 'policy.yaml'), stringify({ apiVersion: 'fake-src.transmute.test/v1', kind: 'FakePolicy', metadata: { name: opts.policyName ?? 'p' } }));
  writeFileSync(join(dir, 'resource.yaml'), stringify(configMap({ app: 'x' })));
  writeFileSync(join(dir, 'expected.yaml'), stringify(opts.expected));
  return dir;
}

writeCliCase('same', { expected: { ...configMap({ app: 'x' }), metadata: { name: 'cm', namespace: 'default', labels: { app: 'x' } } } });
writeCliCase('differs', { expected: configMap({ app: 'x', added: 'label' }) });
writeCliCase('other-dialect', { dialect: 'not-registered', expected: configMap({ app: 'x' }) });
writeCliCase('broken', { expected: {}, manifest: '{ not json' });

const statuses = async (via?: string): Promise<Record<string, string>> => {
  const run = await runConformance([join(root, 'kyverno-cli')], { dialects: DIALECTS, ...(via ? { via } : {}) });
  return Object.fromEntries(run.outcomes.map((o) => [o.id.slice(o.id.lastIndexOf('/') + 1), `${o.status}${o.reason ? `: ${o.reason}` : ''}`]));
};

describe('conformance runner with fake dialects', () => {
  it('runs, compares, reports a missing dialect and a malformed case', async () => {
    const s = await statuses();
    expect(s.same).toBe('passed');
    expect(s.differs).toBe('failed: at /metadata/labels/added: expected "label", got nothing');
    expect(s['other-dialect']).toBe('unsupported: no dialect: not-registered');
    expect(s.broken).toMatch(/^error: TM7003: .*broken\/manifest\.json/);
  });

  it('--via translates, reads back, re-parses and runs the translation', async () => {
    const s = await statuses('fake-ok');
    expect(s.same).toBe('passed');
    expect(s.differs).toMatch(/^failed: at \/metadata\/labels\/added/);
  });

  it('--via reports a translation with TM4001 as unsupported, never passed', async () => {
    const s = await statuses('fake-unsupported');
    expect(s.same).toMatch(/^unsupported: translation to fake-unsupported: .*TM4001: p: keyed list segments are not expressible/);
    expect(s.differs).toMatch(/^unsupported: /);
  });

  it('--via fails a translation that silently produces no policy', async () => {
    expect((await statuses('fake-empty')).same).toBe('failed: translation to fake-empty produced no fake-empty policy document');
  });

  it('--via with a dialect nobody registered makes every case unsupported', async () => {
    const s = await statuses('absent');
    expect(s.same).toBe('unsupported: no dialect: absent');
    expect(s.differs).toBe('unsupported: no dialect: absent');
  });
});

function writeChainsawCase(name: string, ops: JsonObject[], files: Record<string, JsonObject[]>, extra: JsonObject = {}): void {
  const dir = join(root, 'kyverno-chainsaw', name);
  mkdirSync(dir, { recursive: true });
  const manifest = { source: 'kyverno-chainsaw', dialects: ['fake-src'], ops, features: [], needs_cluster_or_external: [], usable_offline: true, ...extra };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  for (const [file, docs] of Object.entries(files)) writeFileSync(join(dir, file), docs.map((d) => stringify(d)).join('---\n'));
}

const policyDoc = { apiVersion: 'fake-src.transmute.test/v1', kind: 'FakePolicy', metadata: { name: 'p' } };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const chainsawFiles = {
  'policy.yaml': [policyDoc],
  'pod.yaml': [pod],
  'pod-assert.yaml': [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', labels: { app: 'x' } }, status: { phase: 'Running' } }],
  'pod-wrong.yaml': [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod' }, spec: { containers: [{ image: 'busybox' }] } }],
  'policy-ready.yaml': [{ ...policyDoc, status: { ready: true } }],
};
const step = (op: string, file?: string, more: JsonObject = {}): JsonObject => ({ op, ...(file ? { file } : {}), ...more });
writeChainsawCase('assert-ok', [step('policy', 'policy.yaml'), step('wait-policy-ready'), step('apply', 'pod.yaml'), step('assert', 'pod-assert.yaml')], chainsawFiles);
writeChainsawCase('assert-wrong', [step('policy', 'policy.yaml'), step('apply', 'pod.yaml'), step('assert', 'pod-wrong.yaml')], chainsawFiles);
writeChainsawCase('error-matches', [step('policy', 'policy.yaml'), step('apply', 'pod.yaml'), step('error', 'pod-assert.yaml')], chainsawFiles);
writeChainsawCase(
  'deleted',
  [step('policy', 'policy.yaml'), step('apply', 'pod.yaml'), step('delete', undefined, { ref: { apiVersion: 'v1', kind: 'Pod', name: 'pod' } }), step('error', 'pod-assert.yaml')],
  chainsawFiles,
);
writeChainsawCase('status-only', [step('policy', 'policy.yaml'), step('assert', 'policy-ready.yaml', { non_resource: true })], chainsawFiles);
writeChainsawCase('needs-cluster', [step('script')], {}, { usable_offline: false, needs_cluster_or_external: ['chainsaw ops not modelled: script'] });

describe('chainsaw replay', () => {
  it('applies resources in a test namespace and checks asserts and errors by partial match', async () => {
    const run = await runConformance([join(root, 'kyverno-chainsaw')], { dialects: DIALECTS });
    const s = Object.fromEntries(run.outcomes.map((o) => [o.id.slice(o.id.lastIndexOf('/') + 1), `${o.status}${o.reason ? `: ${o.reason}` : ''}`]));
    expect(s).toEqual({
      'assert-ok': 'passed',
      'assert-wrong': 'failed: assert pod-wrong.yaml#0 (Pod chainsaw-test/pod): at /spec/containers/0/image: expected "busybox", got "nginx"',
      deleted: 'passed',
      'error-matches': 'failed: error pod-assert.yaml#0: Pod chainsaw-test/pod matches, but must not',
      'needs-cluster': 'skipped: needs chainsaw ops not modelled: script',
      'status-only': 'unsupported: no resource assertion can be checked offline',
    });
  });
});

describe('error and validation expectations', () => {
  const docs = (name: string): SourceDoc[] => {
    const r = loadYamlText(`${name}.yaml`, stringify({ apiVersion: 'fake-src.transmute.test/v1', kind: 'FakePolicy', metadata: { name } }));
    if (!r.ok) throw new Error('fixture');
    return r.value;
  };
  const admissionCase = (policy: string, expect: AdmissionCase['expect'], withRequest = false): AdmissionCase => ({
    id: policy,
    path: policy,
    corpus: 'test',
    source: 'test',
    format: 'gatekeeper',
    dialect: 'fake-src',
    policyDocs: docs(policy),
    siblingDocs: [],
    ...(withRequest ? { request: { object: configMap({}), operation: 'CREATE' as const } } : {}),
    expect,
    hints: {},
  });

  it('a rejection passes a validation-error case when the message matches, fails otherwise', () => {
    expect(runAdmissionCase(admissionCase('reject-me', { kind: 'error', stage: 'parse', contains: 'empty path' }), { dialects: DIALECTS }).status).toBe('passed');
    const wrong = runAdmissionCase(admissionCase('reject-me', { kind: 'error', stage: 'parse', contains: 'name too long' }), { dialects: DIALECTS });
    expect(wrong).toEqual({ status: 'failed', reason: 'expected an error containing "name too long", got: policy reject-me is invalid: empty path' });
    expect(runAdmissionCase(admissionCase('accept-me', { kind: 'error', stage: 'parse', contains: 'x' }), { dialects: DIALECTS }).status).toBe('failed');
  });

  it('an accepted policy passes a must-be-valid case; a rejected one fails it', () => {
    expect(runAdmissionCase(admissionCase('fine', { kind: 'valid' }), { dialects: DIALECTS })).toEqual({ status: 'passed' });
    expect(runAdmissionCase(admissionCase('reject-me', { kind: 'valid' }), { dialects: DIALECTS }).status).toBe('failed');
  });

  it('a request that is allowed fails a mutate-error case', () => {
    const r = runAdmissionCase(admissionCase('fine', { kind: 'error', stage: 'apply', contains: 'mismatch' }, true), { dialects: DIALECTS });
    expect(r).toEqual({ status: 'failed', reason: 'expected an error containing "mismatch", but the request was allowed' });
  });
});

describe('runners given to a run', () => {
  it('table rows are unsupported without a row runner; a case runner given to the run replaces the default', async () => {
    const dir = join(root, 'map', 'smd-merge');
    mkdirSync(dir, { recursive: true });
    const triplets = { cases: [{ name: 'pair', rootTypeName: 'pair', schema: { types: [] }, triplets: [{ lhs: { a: 1 }, rhs: { b: 2 }, out: { a: 1, b: 2 } }, { lhs: {}, rhs: { a: 1 }, out: { a: 2 } }] }] };
    writeFileSync(join(dir, 'triplets.json'), JSON.stringify(triplets));
    const tables = join(root, 'gatekeeper', 'go-unit-tables');
    mkdirSync(tables, { recursive: true });
    writeFileSync(join(tables, 'scanner.json'), JSON.stringify({ source: {}, count: 2, cases: [{ input: 'a' }, { input: 'b' }] }));

    // No row runner for any table (the default list has the Gatekeeper dialect's, scanner among them).
    const before = await runConformance([dir, tables], { runners: { 'gatekeeper-table': tableRowRunner({}) } });
    expect(before.outcomes).toHaveLength(4);
    // The default triplet runner is the project's structured merge; this schema has no type "pair".
    expect(before.outcomes.slice(0, 2).map((o) => o.status)).toEqual(['failed', 'failed']);
    expect(before.outcomes.slice(2).map((o) => [o.status, o.reason])).toEqual([
      ['unsupported', 'no engine: table scanner (no row runner registered)'],
      ['unsupported', 'no engine: table scanner (no row runner registered)'],
    ]);

    const merge = (l: JsonObject, r: JsonObject): JsonObject => ({ ...l, ...r });
    const after = await runConformance([dir, tables], {
      runners: {
        'smd-triplet': smdTripletRunner({ parseSchema: (s) => ok(s), mergeTyped: (_s, _t, l, r) => ok(merge(l as JsonObject, r as JsonObject)) }),
        'gatekeeper-table': tableRowRunner({ scanner: (row) => (row.input === 'a' ? { status: 'passed' } : { status: 'failed', reason: 'b is not a' }) }),
      },
    });
    expect(after.outcomes.map((o) => [o.id.slice(root.length + 1), o.status, o.reason])).toEqual([
      ['map/smd-merge/triplets.json#0/0', 'passed', undefined],
      ['map/smd-merge/triplets.json#0/1', 'failed', 'pair: at /a: expected 2, got 1'],
      ['gatekeeper/go-unit-tables/scanner.json#0', 'passed', undefined],
      ['gatekeeper/go-unit-tables/scanner.json#1', 'failed', 'b is not a'],
    ]);
  });

  it('a runner that throws makes its case an error, not a crash of the run', async () => {
    const tables = join(root, 'gatekeeper2', 'go-unit-tables');
    mkdirSync(tables, { recursive: true });
    writeFileSync(join(tables, 'parser.json'), JSON.stringify({ source: {}, cases: [{ input: '' }] }));
    const boom = (): never => {
      throw new Error('boom');
    };
    const run = await runConformance([tables], { runners: { 'gatekeeper-table': tableRowRunner({ parser: boom }) } });
    expect(run.outcomes).toHaveLength(1);
    expect(run.outcomes[0]!.status).toBe('error');
    expect(run.outcomes[0]!.reason).toMatch(/^crash: boom/);
  });
});
