/**
 * Compiled vs interpreted on random programs (issue 17): sets, removes, ModifySet merges and prunes, image
 * edits and guarded blocks over random paths (fields with and without tests, keyed, globbed, indexed and
 * appended list segments, names Object.prototype also has) on random objects. The generated code
 * (src/compile) and the closure interpreter must agree on the object, key order included, on the verdict and
 * on the diagnostics, traced or not.
 */
import { describe, expect, it } from 'vitest';
import { singlePassConverges } from '../../src/compile/fixpoint.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Guard, Op } from '../../src/ir/nodes.js';
import type { Path, Segment } from '../../src/ir/path.js';
import { O, exists, lit, p, policy, remove, set, when } from '../interpreter/support.js';
import { lcg as rng, pick } from '../support/random.js';

const FIELDS = ['a', 'b', 'constructor', '__proto__'];
const KEYS = ['x', 'y'];

function randomSegments(r: () => number): Segment[] {
  const segs: Segment[] = [];
  const depth = 1 + Math.floor(r() * 4);
  for (let d = 0; d < depth; d++) {
    if (r() < 0.35) {
      segs.push({ kind: 'field', name: 'l' });
      const roll = r();
      const test = r() < 0.15 ? { test: r() < 0.5 ? ('exist' as const) : ('notExist' as const) } : {};
      if (roll < 0.45) segs.push({ kind: 'keyed', key: 'name', value: pick(r, KEYS), create: r() < 0.8, ...test });
      else if (roll < 0.65) segs.push({ kind: 'keyedGlob', key: 'name', ...test });
      else if (roll < 0.8) segs.push({ kind: 'index', index: Math.floor(r() * 4) - 1, ...test });
      else if (roll < 0.9) segs.push({ kind: 'each' });
      else segs.push({ kind: 'append' });
    } else {
      const name = pick(r, FIELDS);
      segs.push(r() < 0.15 ? { kind: 'field', name, test: r() < 0.5 ? 'exist' : 'notExist' } : { kind: 'field', name });
    }
  }
  return segs;
}

function randomValue(r: () => number, depth = 0): JsonValue {
  const roll = r();
  if (depth > 2 || roll < 0.3) return roll < 0.1 ? Math.floor(r() * 3) : roll < 0.15 ? null : pick(r, ['v', 'w', 'registry.io/app:1']);
  if (roll < 0.4) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  const o: Record<string, JsonValue> = {};
  for (const f of FIELDS) if (r() < 0.4) Object.defineProperty(o, f, { value: randomValue(r, depth + 1), enumerable: true, writable: true, configurable: true });
  if (r() < 0.6) o.l = randomList(r, depth + 1);
  return o;
}

/** Lists keyed by `name`, with duplicate keys and the odd element that is not a map. */
function randomList(r: () => number, depth: number): JsonValue[] {
  return Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.1 ? 'odd' : { name: pick(r, KEYS), a: randomValue(r, depth) }));
}

function randomGuard(r: () => number): Guard {
  const path = p('object', ...randomSegments(r));
  const roll = r();
  if (roll < 0.3) return exists(path);
  if (roll < 0.45) return { kind: 'notExists', path, origin: O };
  if (roll < 0.65) return { kind: roll < 0.55 ? 'eq' : 'neq', path, value: lit(randomValue(r, 2)), origin: O };
  if (roll < 0.8) return { kind: 'in', path, values: [lit('v'), lit(1)], origin: O };
  if (roll < 0.9) return { kind: 'match', path, pattern: 'v*', origin: O };
  return { kind: 'not', arg: exists(path), origin: O };
}

function randomOp(r: () => number, depth = 0): Op {
  const path: Path = p('object', ...randomSegments(r));
  const last = path.segments[path.segments.length - 1]!;
  const roll = r();
  if (roll < 0.45) return set(path, last.kind === 'keyed' ? { name: last.value, a: randomValue(r) } : randomValue(r));
  if (roll < 0.6) return remove(path);
  if (roll < 0.72) return { kind: 'setMembers', path, values: [lit(pick(r, ['v', 'w'])), lit(randomValue(r, 2))], mode: r() < 0.6 ? 'merge' : 'prune', origin: O };
  if (roll < 0.8) return { kind: 'image', path, domain: 'mirror.io', origin: O };
  if (depth < 2) return when(randomGuard(r), randomOps(r, depth + 1), r() < 0.5 ? randomOps(r, depth + 1) : undefined);
  return remove(path);
}

function randomOps(r: () => number, depth = 0): Op[] {
  return Array.from({ length: 1 + Math.floor(r() * 6) }, () => randomOp(r, depth));
}

describe('generated code on random programs', () => {
  it('agrees with the closure interpreter on 2,500 programs, traced and not', () => {
    const r = rng(17);
    let changed = 0;
    let singlePass = 0;
    for (let n = 0; n < 2500; n++) {
      const ops = randomOps(r);
      const object: JsonValue = { a: randomValue(r), b: randomValue(r), l: randomList(r, 1) };
      // Sequential, one fix-point policy, or a fix-point system of one policy per op (Gatekeeper's shape,
      // where the idle second pass is skipped when proven idle).
      const pol =
        n % 3 === 0
          ? [policy('p', ops)]
          : n % 3 === 1
            ? [policy('p', ops, { order: 'fixpoint' })]
            : ops.map((op, i) => policy(`p${i}`, [op], { order: 'fixpoint' }));
      if (n % 3 === 2 && singlePassConverges(pol)) singlePass++;
      const before = JSON.stringify(object);
      for (const trace of [false, true]) {
        const compiled = apply(pol, { object, operation: 'CREATE' }, { trace });
        const interpreted = apply(pol, { object, operation: 'CREATE' }, { trace, interpret: true });
        const context = JSON.stringify({ ops, object, trace });
        expect(compiled.allowed, context).toBe(interpreted.allowed);
        expect(JSON.stringify(compiled.object), context).toBe(JSON.stringify(interpreted.object));
        expect(compiled.diagnostics.map((d) => [d.code, d.message]), context).toEqual(interpreted.diagnostics.map((d) => [d.code, d.message]));
        expect(compiled.trace, context).toEqual(interpreted.trace);
        if (!trace && compiled.allowed && compiled.object !== object) changed++;
      }
      expect(JSON.stringify(object)).toBe(before);
    }
    // Most programs must write, or the comparison proves little.
    expect(changed).toBeGreaterThan(700);
    expect(singlePass).toBeGreaterThan(100);
  });
});
