/**
 * The compiled anchor preprocessing (anchors-fast.ts) against the step-by-step one (anchors.ts) on generated
 * map patterns and resources: same patch (key order included) or the same condition failure.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { preprocessPattern } from '../../../src/merge/smp/anchors.js';
import { compileFastPattern, runFastPattern } from '../../../src/merge/smp/anchors-fast.js';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rand, p: number): boolean => r() < p;

const KEYS = ['a', 'b', 'c', 'tier', '1'] as const;
const SCALARS: JsonValue[] = ['x', 'y', '', 'true', true, 1, '1', null, '(x)', 'x*', '?', '>0', 0];

function resourceValue(r: Rand, depth: number): JsonValue {
  if (depth > 0 && chance(r, 0.5)) {
    const out: JsonObject = {};
    for (let i = 0, n = Math.floor(r() * 4); i < n; i++) out[pick(r, KEYS)] = resourceValue(r, depth - 1);
    return out;
  }
  if (chance(r, 0.05)) return [pick(r, SCALARS)];
  if (depth > 0 && chance(r, 0.4)) {
    const items: JsonValue[] = [];
    for (let i = 0, n = Math.floor(r() * 4); i < n; i++) items.push(chance(r, 0.85) ? element(r) : pick<JsonValue>(r, [null, 'x', {}]));
    return items;
  }
  return pick(r, SCALARS);
}

function listOf(r: Rand): JsonValue[] {
  const items: JsonValue[] = [];
  for (let i = 0, n = Math.floor(r() * 4); i < n; i++) items.push(chance(r, 0.9) ? element(r) : pick<JsonValue>(r, [null, 'x', {}]));
  return items;
}

/** A resource list element: a map with a name (sometimes odd) and a few keys conditions can look at. */
function element(r: Rand): JsonObject {
  const out: JsonObject = {};
  if (chance(r, 0.85)) out.name = pick<JsonValue>(r, ['app', 'side', '', 3, null, {}, '(x)', { a: 1 }]);
  for (let i = 0, n = Math.floor(r() * 3); i < n; i++) out[pick(r, KEYS)] = pick(r, SCALARS);
  return out;
}

/** A one-element list pattern: conditions on the element plus plain keys (the foreach-by-name shape). */
function listPattern(r: Rand): JsonValue[] {
  const el: JsonObject = {};
  if (chance(r, 0.7)) el['(name)'] = pick(r, ['app', 'side', 'app', '*']);
  for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++) {
    const key = pick<string>(r, ['name', ...KEYS]);
    el[chance(r, 0.25) ? `(${key})` : chance(r, 0.9) ? key : `+(${key})`] = chance(r, 0.15) ? { k: pick(r, SCALARS) } : pick(r, ['app', 'side', 'x', '(x)', 1, '', null]);
  }
  return chance(r, 0.9) ? [el] : [el, { a: 'x' }];
}

function patternKey(r: Rand, key: string): string {
  const k = chance(r, 0.6) ? key : pick(r, ['+', '(', '<', '=', ' (', 'X'])!;
  if (k === key) return key;
  if (k === '(') return `(${key})`;
  if (k === ' (') return ` (${key})`;
  return `${k}(${key})`;
}

function pattern(r: Rand, depth: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0, n = Math.floor(r() * 4); i < n; i++) {
    const key = patternKey(r, pick(r, KEYS));
    let v: JsonValue;
    if (depth > 0 && chance(r, 0.45)) v = pattern(r, depth - 1);
    else if (chance(r, 0.15)) v = listPattern(r);
    else v = pick(r, SCALARS);
    out[key] = v;
  }
  return out;
}

describe('compiled anchor preprocessing ≡ anchors.ts', () => {
  it('agrees on generated map patterns and resources', () => {
    const r = rng(0xa11c);
    let compiled = 0;
    let evaluated = 0;
    let lists = 0;
    let failures = 0;
    let changedKeys = 0;
    for (let i = 0; i < 12000; i++) {
      // Every other case: the foreach-by-name shape, with the resource's list where the pattern's is.
      const focused = i % 2 === 1;
      const pat = focused ? { spec: { ...(chance(r, 0.4) ? pattern(r, 1) : {}), c: listPattern(r) } } : pattern(r, 3);
      const res = focused ? { spec: { ...(resourceValue(r, 1) as JsonObject), c: chance(r, 0.9) ? listOf(r) : pick<JsonValue>(r, [null, 'x']) } } : resourceValue(r, 4);
      const before = JSON.stringify([pat, res]);
      const fast = compileFastPattern(pat);
      if (fast === undefined) continue;
      compiled++;
      const a = runFastPattern(fast, res);
      if (a === undefined) continue; // the resource needs anchors.ts
      evaluated++;
      const b = preprocessPattern(pat, res);
      expect(JSON.stringify(a), `case ${i}: ${before}`).toBe(JSON.stringify(b));
      expect(JSON.stringify([pat, res])).toBe(before);
      if (!a.ok) failures++;
      else if (JSON.stringify(a.patch) !== JSON.stringify(pat)) changedKeys++;
      if (a.ok && JSON.stringify(a.patch).includes('[{')) lists++;
    }
    // The generator must reach every outcome often, or the comparison proves little.
    expect(compiled).toBeGreaterThan(4000);
    expect(evaluated).toBeGreaterThan(4000);
    expect(lists).toBeGreaterThan(120);
    expect(failures).toBeGreaterThan(150);
    expect(changedKeys).toBeGreaterThan(1500);
  });

  it('leaves lists, map-valued conditions and odd spellings to anchors.ts', () => {
    expect(compileFastPattern({ spec: { containers: [{ '(name)': 'a' }, { name: 'b' }] } })).toBeUndefined();
    expect(compileFastPattern({ spec: { containers: [{ '(name)': 'a', '+(image)': 'b' }] } })).toBeUndefined();
    expect(compileFastPattern({ spec: { containers: [{ '(name)': 'a', args: '(x)' }] } })).toBeUndefined();
    expect(compileFastPattern({ spec: { containers: [{ '(name)': 'a', image: 'b' }] } })).toBeDefined();
    expect(compileFastPattern({ metadata: { '(labels)': { a: 'b' } } })).toBeUndefined();
    expect(compileFastPattern({ metadata: { ' (name)': 'a' } })).toBeUndefined();
    expect(compileFastPattern({ metadata: { '+(a)': '1', a: '2' } })).toBeUndefined();
    expect(compileFastPattern({ metadata: { '=(a)': '1' } })).toBeUndefined();
    expect(compileFastPattern({ metadata: { labels: { '+(a)': '1' } } })).toBeDefined();
  });
});
