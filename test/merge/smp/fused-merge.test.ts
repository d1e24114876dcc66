/**
 * Set-only patterns merged as one (src/merge/smp/fused-merge.ts) against the same patterns merged one after
 * the other by the general path (strategicMerge with `reference`): random runs of patterns (plain and `+()`
 * keys, `(k)` and `<(k)` conditions, nested maps, scalars of every JSON type, lists (replaced or merged by the
 * schema), names Object.prototype has) over random documents (maps,
 * `null`, scalars and lists where the patterns have maps), copying and writing in place into owned maps.
 * Where the fused merge decides, the document must be the sequential one, key order included, and the input
 * untouched unless owned; where it cannot, it must say so before writing anything. Also which runs fuse.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { compileMerge, CompiledMergeRun, type CompiledMerge } from '../../../src/merge/smp/compiled-merge.js';
import { fuseMerges } from '../../../src/merge/smp/fused-merge.js';
import { strategicMerge } from '../../../src/merge/smp/index.js';
import { NormalForms } from '../../../src/merge/smp/normal-forms.js';
import { lcg as rng, pick } from '../../support/random.js';

const KEYS = ['a', 'b', 'z', 'B', 'é', 'constructor', 'containers', 'tolerations'];
const SCALARS: JsonValue[] = ['x', 'y', '1', 'true', '', 1, 2.5, -0, true, false];
/** List leaves: under a Pod's spec `containers` is a merge list (keyed by name), `tolerations` and the others are replaced. */
const LISTS: JsonValue[] = [['x'], [], [{ name: 'c', image: 'i' }], [{ key: 'k', operator: 'Exists' }], [null], [{ name: 'c' }, { name: 'c', image: 'j' }], [{ name: 'c', x: null }]];

/** A set-only pattern map: nested maps and scalar leaves, some under `+()`, some `(k)` / `<(k)` conditions. */
function randomPatternMap(r: () => number, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const key = pick(r, KEYS);
    const roll = r();
    if (roll < 0.12) out[`(${key})`] = pick(r, ['x', 'y', '1', 'true', '*']);
    else if (roll < 0.16) out[`<(${key})`] = pick(r, ['x', 'y']);
    else out[r() < 0.3 ? `+(${key})` : key] = depth > 0 && r() < 0.35 ? randomPatternMap(r, depth - 1) : r() < 0.12 ? pick(r, LISTS) : pick(r, SCALARS);
  }
  return out;
}

function randomPattern(r: () => number): JsonObject {
  const roll = r();
  if (roll < 0.35) return { metadata: { labels: randomPatternMap(r, 0) } };
  if (roll < 0.55) return { metadata: { annotations: randomPatternMap(r, 0) } };
  if (roll < 0.8) return { spec: randomPatternMap(r, 2) };
  return { spec: randomPatternMap(r, 1), metadata: { labels: randomPatternMap(r, 0) } };
}

function randomValue(r: () => number, depth: number): JsonValue {
  const roll = r();
  if (roll < 0.08) return null;
  if (roll < 0.12) return ['l'];
  if (roll < 0.45 && depth > 0) {
    const out: JsonObject = {};
    const n = Math.floor(r() * 3);
    for (let i = 0; i < n; i++) out[pick(r, KEYS)] = randomValue(r, depth - 1);
    return out;
  }
  return pick(r, SCALARS);
}

function randomDocument(r: () => number): JsonObject {
  const metadata: JsonObject = { name: 'd' };
  if (r() < 0.7) metadata.labels = r() < 0.1 ? null : (randomValue(r, 1) as JsonValue);
  if (r() < 0.5) metadata.annotations = { [pick(r, KEYS)]: 'v' };
  const doc: JsonObject = { apiVersion: 'v1', kind: pick(r, ['Pod', 'ConfigMap']), metadata };
  if (r() < 0.8) doc.spec = r() < 0.05 ? null : { ...(randomValue(r, 3) as JsonObject) };
  return doc;
}

/** The patterns merged one after the other by the general path; undefined when one of them fails. */
function sequential(doc: JsonValue, patterns: readonly JsonObject[]): JsonValue | undefined {
  let out = doc;
  for (const p of patterns) {
    const m = strategicMerge(out, p, { reference: true });
    if (!m.ok) return undefined;
    out = m.value.value;
  }
  return out;
}

/** A deep copy whose every map is owned, for in-place writes. */
function ownedCopy(v: JsonValue, owned: Set<object>): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => ownedCopy(x, owned));
  const out: JsonObject = {};
  for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: ownedCopy(v[k]!, owned), enumerable: true, writable: true, configurable: true });
  owned.add(out);
  return out;
}

describe('fused set-only merges', () => {
  it('fuse set-only patterns that agree on every place, and nothing else', () => {
    const c = (p: JsonValue): CompiledMerge => compileMerge(p)!;
    expect(fuseMerges([c({ metadata: { labels: { '+(a)': 'x' } } }), c({ metadata: { annotations: { b: 1 } } })])).toBeDefined();
    // A place that is a scalar in one pattern and a map in another.
    expect(fuseMerges([c({ spec: { a: 'x' } }), c({ spec: { a: { b: 1 } } })])).toBeUndefined();
    // Conditions fuse, unless one reads what an earlier pattern writes.
    expect(fuseMerges([c({ spec: { '(a)': 'x', b: 1 } }), c({ spec: { c: 1 } })])).toBeDefined();
    expect(fuseMerges([c({ spec: { c: 1 } }), c({ spec: { '(a)': 'x', b: 1 } })])).toBeDefined();
    expect(fuseMerges([c({ spec: { a: 'y' } }), c({ spec: { '(a)': 'x', b: 1 } })])).toBeUndefined();
    expect(fuseMerges([c({ metadata: { labels: { '+(a)': 'y' } } }), c({ metadata: { labels: { '<(a)': 'x' } }, spec: { b: 1 } })])).toBeUndefined();
    // A list is a leaf (whether the schema merges it is decided per schema, when the merge is generated)...
    expect(fuseMerges([c({ spec: { a: ['x'] } }), c({ spec: { c: 1 } })])).toBeDefined();
    // ...of its own kind: a place that is a list in one pattern and a scalar or a map in another.
    expect(fuseMerges([c({ spec: { a: ['x'] } }), c({ spec: { a: 'x' } })])).toBeUndefined();
    expect(fuseMerges([c({ spec: { a: { b: 1 } } }), c({ spec: { a: ['x'] } })])).toBeUndefined();
    // Nulls and a new kind are left to the merges one by one.
    expect(fuseMerges([c({ spec: { a: null } }), c({ spec: { c: 1 } })])).toBeUndefined();
    expect(fuseMerges([c({ kind: 'Pod' }), c({ spec: { c: 1 } })])).toBeUndefined();
  });

  it('insert a map the resource lacks holding a list as it is only where the schema replaces the list', () => {
    let inserted = 0;
    let replaced = 0;
    for (const key of ['containers', 'tolerations', 'a']) {
      for (const list of LISTS) {
        for (const spec of [undefined, null]) {
          const patterns: JsonObject[] = [{ spec: { [key]: list, b: 'x' } }, { metadata: { labels: { a: '1' } } }];
          const compiled = patterns.map((p) => compileMerge(p));
          if (compiled.some((c) => c === undefined)) continue; // `[]` needs the anchors' preprocessing
          const merge = fuseMerges(compiled as CompiledMerge[]);
          expect(merge).toBeDefined();
          if (key !== 'containers' && spec === undefined) replaced++;
          const doc: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
          if (spec === null) doc.spec = null;
          const expected = sequential(doc, patterns);
          const out = new CompiledMergeRun(new NormalForms(), undefined).step(merge!, doc);
          if (out === undefined) {
            // Only a merge list (containers) goes to the general path, or a document not in normal form (`spec: null`).
            expect(key === 'containers' || spec === null, JSON.stringify({ key, list, spec })).toBe(true);
            continue;
          }
          expect(JSON.stringify(out), JSON.stringify({ key, list, spec })).toBe(JSON.stringify(expected));
          inserted++;
        }
      }
    }
    expect(inserted).toBe(replaced);
    expect(inserted).toBeGreaterThanOrEqual(10);
  });

  it('give the sequential result on random patterns and documents', () => {
    const r = rng(4242);
    let fused = 0;
    let fusedWithLists = 0;
    let declined = 0;
    for (let round = 0; round < 1500; round++) {
      const patterns: JsonObject[] = [];
      const count = 2 + Math.floor(r() * 5);
      for (let i = 0; i < count; i++) patterns.push(randomPattern(r));
      const compiled = patterns.map((p) => compileMerge(p));
      if (compiled.some((c) => c === undefined)) continue;
      const merge = fuseMerges(compiled as CompiledMerge[]);
      if (merge === undefined) continue;
      for (let k = 0; k < 4; k++) {
        const doc = randomDocument(r);
        const merged = sequential(doc, patterns);
        const expected = merged === undefined ? undefined : JSON.stringify(merged);
        const before = JSON.stringify(doc);
        const inPlace = r() < 0.5;
        const owned = new Set<object>();
        const input = inPlace ? (ownedCopy(doc, owned) as JsonObject) : doc;
        const run = new CompiledMergeRun(new NormalForms(), inPlace ? owned : undefined);
        const out = run.step(merge, input);
        if (out === undefined) {
          declined++;
          expect(JSON.stringify(input)).toBe(before);
          continue;
        }
        run.finish();
        // A failing merge is one the checks send to the general path.
        expect(expected, JSON.stringify({ patterns, doc })).toBeDefined();
        expect(typeof out).toBe('object');
        expect(JSON.stringify(out), JSON.stringify({ patterns, doc })).toBe(expected);
        expect(JSON.stringify(doc)).toBe(before);
        fused++;
        if (patterns.some((p) => JSON.stringify(p).includes('['))) fusedWithLists++;
      }
    }
    expect(fused).toBeGreaterThan(1000);
    expect(fusedWithLists).toBeGreaterThan(100);
    expect(declined).toBeGreaterThan(50);
  });
});
