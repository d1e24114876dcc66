import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Op } from '../../src/ir/nodes.js';
import type { Segment } from '../../src/ir/path.js';
import { O, p, policy, set } from './support.js';
import { lcg as rng } from '../support/random.js';

/**
 * Literal sets run fused when tracing is off (ops/fused-sets.ts) and one by one when it is on; the two must
 * always agree, on the object and on errors. Random programs over random objects check it.
 */

const FIELDS = ['a', 'b', 'constructor'];
const KEYS = ['x', 'y'];

/** Paths over maps with fields a, b, constructor and lists `l` of elements keyed by `name`. */
function randomSegments(r: () => number): Segment[] {
  const segs: Segment[] = [];
  const depth = 1 + Math.floor(r() * 3);
  for (let d = 0; d < depth; d++) {
    if (r() < 0.3) {
      segs.push({ kind: 'field', name: 'l' });
      const roll = r();
      if (roll < 0.7) segs.push({ kind: 'keyed', key: 'name', value: KEYS[Math.floor(r() * KEYS.length)]!, create: r() < 0.8 });
      else if (roll < 0.9) segs.push({ kind: 'keyedGlob', key: 'name' });
      else segs.push({ kind: 'index', index: Math.floor(r() * 2) });
    } else {
      const name = FIELDS[Math.floor(r() * FIELDS.length)]!;
      segs.push(r() < 0.15 ? { kind: 'field', name, test: r() < 0.5 ? 'exist' : 'notExist' } : { kind: 'field', name });
    }
  }
  return segs;
}

function randomValue(r: () => number, depth = 0): JsonValue {
  const roll = r();
  if (depth > 2 || roll < 0.3) return roll < 0.1 ? Math.floor(r() * 3) : ['v', 'w', 'x'][Math.floor(r() * 3)]!;
  const o: Record<string, JsonValue> = {};
  for (const f of FIELDS) if (r() < 0.5) o[f] = randomValue(r, depth + 1);
  if (r() < 0.5) o.l = Array.from({ length: Math.floor(r() * 3) }, () => ({ name: KEYS[Math.floor(r() * KEYS.length)]!, a: randomValue(r, depth + 1) }));
  return o;
}

describe('fused literal sets', () => {
  it('agree with one-by-one execution on 3,000 random programs', () => {
    const r = rng(42);
    let changed = 0;
    for (let n = 0; n < 3000; n++) {
      const ops: Op[] = Array.from({ length: 2 + Math.floor(r() * 6) }, () => {
        const segs = randomSegments(r);
        const last = segs[segs.length - 1]!;
        const value = last.kind === 'keyed' ? { name: last.value, a: randomValue(r) } : randomValue(r);
        return set(p('object', ...segs), value);
      });
      const object: JsonValue = { a: randomValue(r), b: randomValue(r), c: randomValue(r) };
      const pol = [policy('p', ops)];
      const fused = apply(pol, { object, operation: 'CREATE' }, { trace: false });
      const stepwise = apply(pol, { object, operation: 'CREATE' }, { trace: true });
      expect(fused.allowed, JSON.stringify({ ops, object })).toBe(stepwise.allowed);
      expect(fused.object, JSON.stringify({ ops, object })).toEqual(stepwise.object);
      expect(fused.diagnostics.map((d) => d.code)).toEqual(stepwise.diagnostics.map((d) => d.code));
      if (fused.allowed && fused.object !== object) changed++;
    }
    // The programs must mostly succeed and write, or the comparison proves little.
    expect(changed).toBeGreaterThan(600);
    expect(O.file).toBe('t.yaml');
  });
});
