/**
 * The fast kyaml merge (merge.ts) against the step-by-step full walk (merge-full.ts) on generated resources
 * and patches: same value (key order included), same failure. The generator leans on the shapes where kyaml's
 * bookkeeping is quirky: missing, duplicate, empty and numeric merge keys, null and empty elements, `$patch`
 * directives, kind clashes, compound keys, sets of primitives, nested keyed lists, unknown kinds.
 */
import { describe, expect, it } from 'vitest';
import { jsonEqual, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { kyamlMerge, kyamlMergeFull, NormalForms } from '../../../src/merge/smp/merge.js';

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

const NAMES = ['app', 'side', 'init', 'a', 'b', '', '80', 'x'] as const;

function scalar(r: Rand): JsonValue {
  return pick(r, ['v', 'w', '', 1, 80, '80', true, 'true', null, 0]);
}

/** Occasionally the wrong shape, to reach kind clashes and kyaml's odd element handling. */
function odd(r: Rand): JsonValue | undefined {
  if (!chance(r, 0.06)) return undefined;
  return pick<JsonValue>(r, [null, {}, [], 'str', 7, { $patch: pick(r, ['delete', 'replace', 'merge', 'bogus']) }]);
}

function keyValue(r: Rand): JsonValue | undefined {
  if (chance(r, 0.05)) return undefined;
  if (chance(r, 0.04)) return pick<JsonValue>(r, [null, '', {}, [], 80]);
  return pick(r, NAMES);
}

function smallMap(r: Rand, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = Math.floor(r() * 3);
  for (let i = 0; i < n; i++) out[pick(r, ['k', 'm', 'z', 'a', '1', 'b'])] = depth > 0 && chance(r, 0.2) ? smallMap(r, depth - 1) : scalar(r);
  return out;
}

function env(r: Rand): JsonValue {
  const o = odd(r);
  if (o !== undefined) return o;
  const e: JsonObject = {};
  const name = keyValue(r);
  if (name !== undefined) e.name = name;
  if (chance(r, 0.7)) e.value = scalar(r);
  if (chance(r, 0.05)) e.$patch = pick(r, ['delete', 'replace', 'merge']);
  return e;
}

function port(r: Rand): JsonValue {
  const o = odd(r);
  if (o !== undefined) return o;
  const p: JsonObject = {};
  if (chance(r, 0.9)) p.containerPort = pick<JsonValue>(r, [80, 443, '80', 8080]);
  if (chance(r, 0.7)) p.protocol = pick(r, ['TCP', 'UDP', '']);
  if (chance(r, 0.5)) p.name = pick(r, ['http', 'https']);
  return p;
}

function list<T extends JsonValue>(r: Rand, make: (r: Rand) => T, max: number): T[] {
  const n = Math.floor(r() * (max + 1));
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(make(r));
  return out;
}

function container(r: Rand): JsonValue {
  const o = odd(r);
  if (o !== undefined) return o;
  const c: JsonObject = {};
  const name = keyValue(r);
  if (name !== undefined) c.name = name;
  if (chance(r, 0.5)) c.image = pick(r, ['nginx', 'busybox']);
  if (chance(r, 0.4)) c.env = chance(r, 0.05) ? null : list(r, env, 3);
  if (chance(r, 0.4)) c.ports = list(r, port, 3);
  if (chance(r, 0.3)) c.args = list(r, () => pick(r, ['-a', '-b']), 2);
  if (chance(r, 0.3)) c.securityContext = smallMap(r, 1);
  if (chance(r, 0.1)) c.volumeMounts = list(r, () => ({ mountPath: pick(r, ['/a', '/b']), name: 'v' }), 2);
  return c;
}

function spec(r: Rand): JsonObject {
  const s: JsonObject = {};
  if (chance(r, 0.8)) s.containers = chance(r, 0.05) ? pick<JsonValue>(r, [null, 'x', {}]) : list(r, container, 3);
  if (chance(r, 0.2)) s.initContainers = list(r, container, 2);
  if (chance(r, 0.3)) s.tolerations = list(r, () => smallMap(r, 0), 2);
  if (chance(r, 0.3)) s.nodeSelector = chance(r, 0.1) ? null : smallMap(r, 0);
  if (chance(r, 0.3)) s.restartPolicy = pick(r, ['Always', 'Never']);
  if (chance(r, 0.15)) s.volumes = list(r, () => ({ name: pick(r, ['v', 'w']), emptyDir: {} }), 2);
  if (chance(r, 0.1)) s.hostAliases = list(r, () => ({ ip: pick(r, ['1.1.1.1', '2.2.2.2']) }), 2);
  if (chance(r, 0.1)) s.topologySpreadConstraints = list(r, () => ({ topologyKey: pick(r, ['z', 'h']), whenUnsatisfiable: pick(r, ['DoNotSchedule', 'ScheduleAnyway']) }), 2);
  return s;
}

function metadata(r: Rand): JsonObject {
  const m: JsonObject = {};
  if (chance(r, 0.7)) m.name = pick(r, ['p', 'q']);
  if (chance(r, 0.6)) m.labels = chance(r, 0.05) ? null : smallMap(r, 0);
  if (chance(r, 0.4)) m.annotations = smallMap(r, 0);
  if (chance(r, 0.2)) m.finalizers = list(r, () => pick<JsonValue>(r, ['f1', 'f2', 'f1', '', 3]), 3);
  if (chance(r, 0.1)) m.ownerReferences = list(r, () => ({ uid: pick(r, ['u1', 'u2']), kind: 'X' }), 2);
  if (chance(r, 0.05)) m.$patch = pick(r, ['delete', 'replace', 'merge', 'bogus']);
  return m;
}

function typeHeader(r: Rand): JsonObject {
  const t = pick(r, [0, 0, 0, 1, 2, 3]);
  if (t === 0) return { apiVersion: 'v1', kind: 'Pod' };
  if (t === 1) return { apiVersion: 'example.com/v1', kind: 'Widget' };
  if (t === 2) return { apiVersion: 'apps/v1', kind: 'Deployment' };
  return {};
}

function resource(r: Rand, header: JsonObject): JsonObject {
  const out: JsonObject = { ...header };
  if (chance(r, 0.9)) out.metadata = metadata(r);
  if (header.kind === 'Deployment') out.spec = { replicas: 1, template: { metadata: metadata(r), spec: spec(r) } };
  else if (chance(r, 0.9)) out.spec = spec(r);
  if (chance(r, 0.05)) out.status = null;
  return out;
}

/** Patches are smaller resources; sometimes with the resource's own type header, sometimes without. */
function patchFor(r: Rand, header: JsonObject): JsonObject {
  const h = chance(r, 0.5) ? header : chance(r, 0.5) ? typeHeader(r) : {};
  const p = resource(r, h);
  for (const k of Object.keys(p)) if (chance(r, 0.3) && k !== 'apiVersion' && k !== 'kind') delete p[k];
  if (chance(r, 0.05)) p.spec = pick<JsonValue>(r, [null, 'scalar', []]);
  return p;
}

const ROUNDS = 4000;

function deepFreeze<T extends JsonValue>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

const isObject = (v: JsonValue): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

describe('fast kyaml merge ≡ full walk', () => {
  it(`agrees on ${ROUNDS} generated resource/patch pairs (values, key order, failures)`, () => {
    const r = rng(0x5eed);
    let changed = 0;
    let failed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const header = typeHeader(r);
      const res = resource(r, header);
      const patch = patchFor(r, header);
      const before = JSON.stringify([res, patch]);
      const fast = kyamlMerge(res, patch);
      const full = kyamlMergeFull(res, patch);
      expect(JSON.stringify([res, patch]), `inputs modified (case ${i})`).toBe(before);
      const context = `case ${i}: ${before}`;
      expect(JSON.stringify(fast), context).toBe(JSON.stringify(full));
      if (!fast.ok) failed++;
      else if (fast.value !== res) changed++;
      // Callers detect a change by identity (src/engines/smp.ts): the resource itself exactly when unchanged.
      if (fast.ok) expect(fast.value === res, context).toBe(jsonEqual(fast.value, res));
    }
    // The generator must reach both outcomes often, or the comparison proves little.
    expect(changed).toBeGreaterThan(ROUNDS / 4);
    expect(failed).toBeGreaterThan(ROUNDS / 50);
  });

  it('agrees when merging an empty patch (a skipped rule normalises the resource)', () => {
    const r = rng(0xbeef);
    for (let i = 0; i < 2000; i++) {
      const res = resource(r, typeHeader(r));
      const context = JSON.stringify(res);
      expect(JSON.stringify(kyamlMerge(res, {})), context).toBe(JSON.stringify(kyamlMergeFull(res, {})));
    }
  });

  it('returns the resource itself exactly when a merge leaves it equal (patches copied from the resource)', () => {
    const r = rng(0x1d);
    let same = 0;
    for (let i = 0; i < 2000; i++) {
      const res = resource(r, typeHeader(r));
      if (!isObject(res)) continue;
      const copy = JSON.parse(JSON.stringify(res)) as JsonObject;
      const partial: JsonObject = {};
      for (const k of Object.keys(copy)) if (chance(r, 0.5)) partial[k] = copy[k]!;
      for (const patch of [copy, partial, res]) {
        const fast = kyamlMerge(res, patch);
        const full = kyamlMergeFull(res, patch);
        const context = `case ${i}: ${JSON.stringify([res, patch])}`;
        expect(JSON.stringify(fast), context).toBe(JSON.stringify(full));
        if (!fast.ok) continue;
        expect(fast.value === res, context).toBe(jsonEqual(fast.value, res));
        if (fast.value === res) same++;
      }
    }
    expect(same).toBeGreaterThan(500);
  });

  it('gives the same results with a normal-form memo shared by a sequence of merges', () => {
    const r = rng(0xfeed);
    for (let i = 0; i < 500; i++) {
      const header = typeHeader(r);
      let withMemo: JsonValue = resource(r, header);
      let without: JsonValue = withMemo;
      const normalForms = new NormalForms();
      for (let step = 0; step < 6; step++) {
        const patch = patchFor(r, header);
        const a = kyamlMerge(withMemo, patch, { normalForms });
        const b = kyamlMerge(without, patch);
        const context = `case ${i} step ${step}: ${JSON.stringify([without, patch])}`;
        expect(JSON.stringify(a), context).toBe(JSON.stringify(b));
        expect(JSON.stringify(a), context).toBe(JSON.stringify(kyamlMergeFull(without, patch)));
        // An empty patch (a skipped rule) must still normalise what the memo has not verified.
        expect(JSON.stringify(kyamlMerge(withMemo, {}, { normalForms })), context).toBe(JSON.stringify(kyamlMergeFull(withMemo, {})));
        if (!a.ok || !b.ok) break;
        withMemo = a.value;
        without = b.value;
      }
    }
  });

  it('gives the same results when each merge writes in place into the maps earlier merges created (owned)', () => {
    const r = rng(0xc0ffee);
    let inPlace = 0;
    for (let i = 0; i < 500; i++) {
      const header = typeHeader(r);
      // Frozen: a write into anything the merges did not create throws (ES modules are strict).
      let withOwned: JsonValue = deepFreeze(resource(r, header));
      let without: JsonValue = withOwned;
      const owned = new Set<object>();
      const ownership = { has: (v: object) => owned.has(v), add: (v: object) => void owned.add(v) };
      const normalForms = new NormalForms();
      for (let step = 0; step < 6; step++) {
        const patch = deepFreeze(patchFor(r, header));
        const previous = JSON.stringify(withOwned);
        const previousValue: JsonValue = withOwned;
        const a = kyamlMerge(withOwned, patch, { normalForms, owned: ownership });
        const b = kyamlMerge(without, patch);
        const context = `case ${i} step ${step}: ${JSON.stringify([without, patch])}`;
        expect(JSON.stringify(a.ok ? { ok: true, value: a.value } : a), context).toBe(JSON.stringify(b));
        if (!a.ok || !b.ok) {
          // A failed merge writes nothing, not even into the maps it owns.
          expect(JSON.stringify(withOwned), context).toBe(previous);
          break;
        }
        // The result is the resource itself exactly when unchanged or changed in place, and says which.
        if (a.value === previousValue) expect(a.inPlace === true, context).toBe(previous !== JSON.stringify(a.value));
        else expect(a.inPlace, context).toBeUndefined();
        if (a.inPlace === true) inPlace++;
        withOwned = a.value;
        without = b.value;
      }
    }
    expect(inPlace).toBeGreaterThan(100);
  });

  it('shares the untouched parts of the resource', () => {
    const res: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: '1' } },
      spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    };
    const out = kyamlMerge(res, { metadata: { labels: { b: '2' } } });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect((out.value as JsonObject).spec).toBe(res.spec);
    expect(kyamlMerge(res, {})).toEqual({ ok: true, value: res });
    expect((kyamlMerge(res, {}) as { value: JsonValue }).value).toBe(res);
  });
});
