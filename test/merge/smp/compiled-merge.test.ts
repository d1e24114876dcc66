/**
 * The specialised merge per pattern (compiled-merge.ts) against the general path it stands in for
 * (strategicMerge with `reference`): the same value (key order included), the same skip message, the same
 * identity and in-place outcome, the same in-place writes into owned maps. Pairs come from the Kyverno
 * conformance corpus of ../shared, the fixtures and golden cases, and the benchmark's 30 rules; each pair is
 * also run on resources perturbed where the pattern reaches (kind clashes, nulls, missing keys), and the
 * patterns of a case are run in sequence, as rules are, sharing one evaluation's memo and owned maps.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thirtyRulePolicies } from '../../../bench/kyverno.js';
import { makePods } from '../../../bench/pods.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { ok, type Result } from '../../../src/diagnostics/index.js';
import { compileMerge, runCompiledMerge, type CompiledOutcome } from '../../../src/merge/smp/compiled-merge.js';
import { kyamlMerge, NormalForms, strategicMerge, type MergeOwnership, type StrategicMergeValue } from '../../../src/merge/smp/index.js';
import { describeShared, REPO_ROOT, sharedPath } from '../../support/shared.js';

function* yamlFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* yamlFiles(p);
    else if (/\.ya?ml$/.test(name)) yield p;
  }
}

interface Case {
  patterns: JsonObject[];
  resources: JsonObject[];
}

function collectPatterns(v: JsonValue, out: JsonObject[]): void {
  if (Array.isArray(v)) for (const x of v) collectPatterns(x, out);
  else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      const x = v[k]!;
      if (k === 'patchStrategicMerge' && isJsonObject(x)) out.push(x);
      else collectPatterns(x, out);
    }
  }
}

const POLICY_KINDS = new Set(['ClusterPolicy', 'Policy', 'MutatingPolicy', 'Test', 'Values', 'Assign', 'AssignMetadata', 'ModifySet', 'AssignImage']);

/** Patterns and resources per folder (a conformance case, a fixture folder). */
function cases(root: string): Map<string, Case> {
  const byDir = new Map<string, Case>();
  for (const file of yamlFiles(root)) {
    const docs = loadYamlText(file, readFileSync(file, 'utf8'));
    if (!docs.ok) continue;
    let c = byDir.get(dirname(file));
    if (c === undefined) byDir.set(dirname(file), (c = { patterns: [], resources: [] }));
    for (const d of docs.value) {
      collectPatterns(d.value, c.patterns);
      const v = d.value;
      if (isJsonObject(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && !POLICY_KINDS.has(v.kind)) c.resources.push(v);
    }
  }
  return byDir;
}

/** The resource in normal form, and a memo that knows it (as after an earlier rule of the same evaluation). */
function normalised(resource: JsonObject): JsonObject {
  const r = kyamlMerge(resource, {});
  return r.ok && isJsonObject(r.value) ? r.value : resource;
}

function primed(resource: JsonObject): NormalForms {
  const forms = new NormalForms();
  kyamlMerge(resource, {}, { normalForms: forms });
  return forms;
}

function allMaps(v: JsonValue, into: Set<object>): Set<object> {
  if (Array.isArray(v)) for (const x of v) allMaps(x, into);
  else if (isJsonObject(v)) {
    into.add(v);
    for (const k of Object.keys(v)) allMaps(v[k]!, into);
  }
  return into;
}

const copy = (v: JsonObject): JsonObject => structuredClone(v);

interface Tally {
  compiled: number;
  general: number;
  uncompiled: number;
}

/** Runs one pattern on one resource both ways and compares every outcome. */
function compare(resource: JsonObject, pattern: JsonObject, owned: boolean, tally: Tally): void {
  const compiled = compileMerge(pattern);
  if (compiled === undefined) {
    tally.uncompiled++;
    return;
  }
  const base = normalised(resource);
  const a = owned ? copy(base) : base;
  const b = owned ? copy(base) : base;
  const before = JSON.stringify(base);
  const ownA: MergeOwnership | undefined = owned ? allMaps(a, new Set()) : undefined;
  const ownB: MergeOwnership | undefined = owned ? allMaps(b, new Set()) : undefined;
  const got = runCompiledMerge(compiled, a, primed(a), ownA);
  const want = strategicMerge(b, pattern, { normalForms: primed(b), owned: ownB, reference: true });
  if (got === undefined) {
    tally.general++;
    return;
  }
  tally.compiled++;
  const what = `pattern ${JSON.stringify(pattern)} on ${JSON.stringify(base)}`;
  expect(want.ok, what).toBe(true);
  if (!want.ok) return;
  expect(JSON.stringify(got.value), what).toBe(JSON.stringify(want.value.value));
  expect(got.skipped, what).toBe(want.value.skipped);
  expect(got.inPlace === true, what).toBe(want.value.inPlace === true);
  expect(got.value === a, what).toBe(want.value.value === b);
  if (owned) {
    expect(JSON.stringify(a), what).toBe(JSON.stringify(b));
    expect((ownA as Set<object>).size, what).toBe((ownB as Set<object>).size);
  } else expect(JSON.stringify(base), what).toBe(before);
}

/** Runs patterns in order on one resource, as the rules of a policy: one memo and one owned set per side. */
function compareSequence(resource: JsonObject, patterns: JsonObject[], tally: Tally): void {
  let a: JsonValue = normalised(resource);
  let b: JsonValue = a;
  const formsA = new NormalForms();
  const formsB = new NormalForms();
  const ownA = new Set<object>();
  const ownB = new Set<object>();
  for (const pattern of patterns) {
    const compiled = compileMerge(pattern);
    const fast: CompiledOutcome | undefined = compiled === undefined ? undefined : runCompiledMerge(compiled, a, formsA, ownA);
    if (fast !== undefined) tally.compiled++;
    const gotResult: Result<StrategicMergeValue> = fast !== undefined ? ok(fast) : strategicMerge(a, pattern, { normalForms: formsA, owned: ownA, reference: true });
    const want = strategicMerge(b, pattern, { normalForms: formsB, owned: ownB, reference: true });
    const what = `pattern ${JSON.stringify(pattern)} in sequence on ${JSON.stringify(resource)}`;
    expect(gotResult.ok, what).toBe(want.ok);
    if (!gotResult.ok || !want.ok) return;
    expect(JSON.stringify(gotResult.value.value), what).toBe(JSON.stringify(want.value.value));
    expect(gotResult.value.skipped, what).toBe(want.value.skipped);
    expect((gotResult.value.value === a) === (want.value.value === b), what).toBe(true);
    a = gotResult.value.value;
    b = want.value.value;
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD: (JsonValue | undefined)[] = [undefined, null, 'x', 1, '80', true, [], {}, ['a'], { x: 'y' }];

/** The pattern's keys without their anchors, as paths into the resource. */
function patternPaths(p: JsonValue, prefix: string[], out: string[][]): string[][] {
  if (!isJsonObject(p)) return out;
  for (const raw of Object.keys(p)) {
    const key = raw.replace(/^[+<=X^]?\((.*)\)$/, '$1');
    out.push([...prefix, key]);
    patternPaths(p[raw]!, [...prefix, key], out);
  }
  return out;
}

/** A copy of `r` with the value at `path` replaced by `v` (or removed), creating maps on the way. */
function perturbed(r: JsonObject, path: string[], v: JsonValue | undefined): JsonObject {
  const out = copy(r);
  let at: JsonObject = out;
  for (let i = 0; i < path.length - 1; i++) {
    const next = at[path[i]!];
    if (!isJsonObject(next)) at[path[i]!] = {};
    at = at[path[i]!] as JsonObject;
  }
  const last = path[path.length - 1]!;
  if (v === undefined) delete at[last];
  else at[last] = v;
  return out;
}

function comparePerturbed(resource: JsonObject, pattern: JsonObject, seed: number, tally: Tally): void {
  const paths = patternPaths(pattern, [], []);
  if (paths.length === 0) return;
  const r = rng(seed);
  for (let i = 0; i < 4; i++) {
    const path = paths[Math.floor(r() * paths.length)]!;
    const odd = ODD[Math.floor(r() * ODD.length)];
    const changed = perturbed(resource, path, odd);
    compare(changed, pattern, i % 2 === 1, tally);
  }
}

function compareCases(byDir: Map<string, Case>, extra: JsonObject[]): Tally {
  const tally: Tally = { compiled: 0, general: 0, uncompiled: 0 };
  let seed = 1;
  for (const c of byDir.values()) {
    if (c.patterns.length === 0) continue;
    const resources = [...c.resources, ...extra];
    for (const resource of resources) {
      for (const pattern of c.patterns) {
        compare(resource, pattern, false, tally);
        compare(resource, pattern, true, tally);
        comparePerturbed(resource, pattern, seed++, tally);
      }
      compareSequence(resource, c.patterns, tally);
    }
  }
  return tally;
}

const pods = makePods(6);

describe('compiled strategic merge against the general path', () => {
  it('agrees on the benchmark rules over Pods, alone and in sequence', () => {
    const patterns: JsonObject[] = [];
    collectPatterns(JSON.parse(JSON.stringify(thirtyRulePolicies())) as JsonValue, patterns);
    // The merge ops' literal values (the IR names them `json`): the 30 rules' patterns, foreach included.
    const literal: JsonObject[] = [];
    const walk = (v: JsonValue): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (isJsonObject(v)) {
        if (v.kind === 'merge' && isJsonObject(v.value) && isJsonObject(v.value.json)) literal.push(v.value.json);
        for (const k of Object.keys(v)) walk(v[k]!);
      }
    };
    walk(JSON.parse(JSON.stringify(thirtyRulePolicies())) as JsonValue);
    expect(literal.length).toBe(30);
    const named = literal.map((p) => JSON.parse(JSON.stringify(p).replace('{{ element.name }}', 'side-1')) as JsonObject);
    const tally = compareCases(new Map([['bench', { patterns: named, resources: pods }]]), []);
    expect(tally.compiled).toBeGreaterThan(500);
  });

  it('agrees on the fixtures and golden cases', () => {
    const tally = compareCases(new Map([...cases(join(REPO_ROOT, 'test', 'fixtures')), ...cases(join(REPO_ROOT, 'golden'))]), pods.slice(0, 2));
    expect(tally.compiled).toBeGreaterThan(0);
  });
});

describeShared('compiled strategic merge over the Kyverno conformance corpus', () => {
  it('agrees with the general path on every pattern and resource of each case', () => {
    const tally = compareCases(cases(sharedPath('conformance', 'kyverno')), pods.slice(0, 1));
    expect(tally.compiled).toBeGreaterThan(1000);
  });
});
