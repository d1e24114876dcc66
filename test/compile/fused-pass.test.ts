/**
 * Whole fix-point passes as one generated walk (src/compile/fused-pass.ts) on random Gatekeeper-shaped
 * systems: many policies whose locations share prefixes (fields, globs, every element), tests at the last
 * segment, sets, removals, ModifySet merges and prunes, image edits; some policies that do not match, some
 * whose match reads what the system writes, some with guards or `when` blocks (run in place as barriers),
 * some under failurePolicy ignore, with and without Gatekeeper's applied-mutations hook. The generated run
 * and the closure interpreter (the reference) must agree on the object, key order included, on the verdict,
 * on the diagnostics and on the policies reported applied.
 */
import { describe, expect, it, vi } from 'vitest';
import type * as FusedPass from '../../src/compile/fused-pass.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { MatchSpec } from '../../src/ir/match.js';
import type { Op, Policy } from '../../src/ir/nodes.js';
import type { Segment } from '../../src/ir/path.js';
import { O, exists, lit, p, remove, set, when } from '../interpreter/support.js';
import { lcg as rng, pick } from '../support/random.js';

const seen = vi.hoisted(() => ({ fused: 0 }));

vi.mock('../../src/compile/fused-pass.js', async (importOriginal) => {
  const real = await importOriginal<typeof FusedPass>();
  const fusedPasses: typeof real.fusedPasses = (policies, slots) => {
    const passes = real.fusedPasses(policies, slots);
    if (!passes) return passes;
    return {
      program(shared, st) {
        const program = passes.program(shared, st);
        if (program) seen.fused++;
        return program;
      },
    };
  };
  return { ...real, fusedPasses };
});

const FIELDS = ['x', 'y', 'constructor'];

/**
 * Few roots and names, so that neighbouring policies often share a prefix; the last field is named after
 * what the op writes (`leaf`), now and then one that other paths go through, for the odd shape mismatch.
 */
function randomSegments(r: () => number, leaf: string): Segment[] {
  const segs: Segment[] = [{ kind: 'field', name: pick(r, ['a', 'a', 'b', 'metadata']) }];
  if (segs[0]!.kind === 'field' && segs[0]!.name === 'metadata') segs.push({ kind: 'field', name: 'labels' });
  const depth = Math.floor(r() * 3);
  for (let d = 0; d < depth; d++) {
    if (r() < 0.35) {
      segs.push({ kind: 'field', name: 'l' });
      const roll = r();
      if (roll < 0.5) segs.push({ kind: 'keyedGlob', key: 'name', ...(r() < 0.1 ? { test: 'exist' as const } : {}) });
      else if (roll < 0.7) segs.push({ kind: 'each' });
      else if (roll < 0.85) segs.push({ kind: 'keyed', key: 'name', value: pick(r, ['p', 'q']), create: r() < 0.7 });
      else segs.push({ kind: 'index', index: Math.floor(r() * 3) - 1 });
    } else {
      const name = pick(r, FIELDS);
      segs.push(r() < 0.05 ? { kind: 'field', name, test: r() < 0.5 ? 'exist' : 'notExist' } : { kind: 'field', name });
    }
  }
  // Gatekeeper's pathTests most often test the location itself.
  const test = r() < 0.3 ? { test: r() < 0.7 ? ('notExist' as const) : ('exist' as const) } : {};
  segs.push({ kind: 'field', name: r() < 0.03 ? pick(r, FIELDS) : leaf, ...test });
  return segs;
}

function randomValue(r: () => number, depth = 0): JsonValue {
  const roll = r();
  if (depth > 1 || roll < 0.5) return pick(r, ['v', 'w', 1, true, null, 'registry.io/app:1']);
  if (roll < 0.65) return [pick(r, ['v', 'w']), pick(r, [1, 'x'])];
  return randomMap(r, depth);
}

function randomMap(r: () => number, depth: number): JsonObject {
  const o: JsonObject = {};
  for (const f of [...FIELDS, 's', 'img', 'args']) {
    if (r() >= 0.3) continue;
    const v = f === 'img' ? pick(r, ['registry.io/app:1', 'app', 'localhost:5000/x@sha256:1']) : f === 'args' ? ['v', 1] : FIELDS.includes(f) ? randomMap(r, depth + 1) : randomValue(r, depth + 1);
    Object.defineProperty(o, f, { value: depth > 2 && FIELDS.includes(f) ? {} : v, enumerable: true, writable: true, configurable: true });
  }
  if (r() < 0.4) o.l = randomList(r, depth + 1);
  return o;
}

function randomList(r: () => number, depth: number): JsonValue[] {
  return Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.03 ? 'odd' : { name: pick(r, ['p', 'q']), ...(depth < 3 ? randomMap(r, depth + 1) : {}) }));
}

function randomOp(r: () => number): Op {
  // Writes to the label the BY_LABEL match reads: that match is then not stable, its policy a barrier.
  if (r() < 0.04) return r() < 0.7 ? set(p('object', 'metadata', 'labels', 'team'), pick(r, ['x', 'y'])) : remove(p('object', 'metadata', 'labels', 'team'));
  const roll = r();
  if (roll < 0.45) {
    const path = p('object', ...randomSegments(r, pick(r, ['s', 't'])));
    const last = path.segments[path.segments.length - 1]!;
    return set(path, last.kind === 'keyed' ? { name: last.value, s: randomValue(r) } : randomValue(r));
  }
  if (roll < 0.6) return remove(p('object', ...randomSegments(r, pick(r, ['s', 't', 'args']))));
  if (roll < 0.8) {
    const path = p('object', ...randomSegments(r, 'args'));
    return { kind: 'setMembers', path, values: [lit(pick(r, ['v', 'w'])), lit(pick(r, [1, 'x', { k: 1 }]))], mode: r() < 0.7 ? 'merge' : 'prune', origin: O };
  }
  if (roll < 0.92) return { kind: 'image', path: p('object', ...randomSegments(r, 'img')), domain: pick(r, ['mirror.io', 'localhost:5000']), origin: O };
  return when(exists(p('object', 'a', 'x')), [set(p('object', 'b', 'y'), 'w')]);
}

const MATCH_ALL: MatchSpec = { globs: 'wildcard' };
const NO_MATCH: MatchSpec = { globs: 'wildcard', any: [{ kinds: [{ kind: 'Other' }] }] };
const BY_LABEL: MatchSpec = { globs: 'wildcard', any: [{ labelSelector: { matchLabels: { team: 'x' } } }] };

function randomPolicy(r: () => number, i: number): Policy {
  const body = Array.from({ length: 1 + Math.floor(r() * 2) }, () => randomOp(r));
  const roll = r();
  const match = roll < 0.1 ? NO_MATCH : roll < 0.2 ? BY_LABEL : MATCH_ALL;
  const guards = r() < 0.08 ? [exists(p('object', 'a'))] : [];
  return {
    id: `p${i}`,
    match,
    guards,
    rules: [{ name: 'r', guards: [], body, origin: O }],
    semantics: { order: 'fixpoint', ...(r() < 0.15 ? { failurePolicy: 'ignore' as const } : {}) },
    origin: O,
  };
}

function randomObject(r: () => number): JsonObject {
  const labels: JsonObject = r() < 0.5 ? { team: 'x' } : {};
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'n', labels }, a: randomMap(r, 0), b: randomMap(r, 0), l: randomList(r, 1) };
}

describe('fused fix-point passes on random systems', () => {
  it('agree with the closure interpreter on 3,000 systems', () => {
    const r = rng(42);
    let changed = 0;
    const fusedBefore = seen.fused;
    for (let n = 0; n < 3000; n++) {
      const policies = Array.from({ length: 2 + Math.floor(r() * 10) }, (_, i) => randomPolicy(r, i));
      const object = randomObject(r);
      const before = JSON.stringify(object);
      const hook = n % 2 === 0;
      const annotate = (o: JsonValue, applied: readonly Policy[]): JsonValue => ({ ...(o as JsonObject), applied: applied.map((a) => a.id) });
      const opts = { trace: false, ...(hook ? { onFixpointConverged: annotate } : {}) };
      const compiled = apply(policies, { object, operation: 'CREATE' }, opts);
      const interpreted = apply(policies, { object, operation: 'CREATE' }, { ...opts, interpret: true });
      const context = JSON.stringify({ policies: policies.map((x) => ({ match: x.match, guards: x.guards.length, body: x.rules[0]!.body, semantics: x.semantics })), object });
      expect(compiled.allowed, context).toBe(interpreted.allowed);
      expect(JSON.stringify(compiled.object), context).toBe(JSON.stringify(interpreted.object));
      expect(compiled.diagnostics.map((d) => [d.code, d.message]), context).toEqual(interpreted.diagnostics.map((d) => [d.code, d.message]));
      expect(JSON.stringify(object)).toBe(before);
      if (compiled.allowed && compiled.object !== object) changed++;
    }
    // Most systems must write and most must take the fused pass, or the comparison proves little.
    expect(changed).toBeGreaterThan(1500);
    expect(seen.fused - fusedBefore).toBeGreaterThan(1500);
  });
});
