/**
 * Removing a key from a map (walk.ts withoutOwnKey): a small map, owned or not, is replaced by a copy without
 * the key (V8 would turn it into a slow dictionary); a large owned one loses the key in place. Either way the
 * remaining keys keep their order and values, and what the evaluation does not own is never touched.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import { newEpoch, own, withoutOwnKey, type WalkOptions } from '../../src/interpreter/walk.js';
import { deepFreeze, p, policy, remove, set } from './support.js';

function options(): WalkOptions {
  return { create: false, origin: undefined, owned: newEpoch(), leafCalls: 0, inPlace: 0 } as unknown as WalkOptions;
}

function mapOf(size: number): JsonObject {
  const m: JsonObject = { '10': 'ten' };
  Object.defineProperty(m, '__proto__', { value: 'own', enumerable: true, writable: true, configurable: true });
  for (let i = 0; i < size - 2; i++) m[`k${i}`] = i;
  return m;
}

describe('withoutOwnKey', () => {
  for (const size of [3, 16, 17, 40]) {
    for (const owned of [false, true]) {
      it(`removes a key from a ${owned ? 'owned' : 'shared'} map of ${size} keys`, () => {
        const opts = options();
        const map = mapOf(size);
        const expected = Object.keys(map).filter((k) => k !== 'k0');
        const before = { ...map };
        if (owned) own(opts, map);
        const out = withoutOwnKey(map, 'k0', opts);
        expect(Object.keys(out)).toEqual(expected);
        for (const k of expected) expect(out[k]).toBe(before[k]);
        expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
        expect(opts.owned.has(out)).toBe(true);
        const inPlace = owned && size > 16;
        expect(out === map).toBe(inPlace);
        expect(opts.inPlace).toBe(inPlace ? 1 : 0);
        // A map the evaluation does not own is never changed.
        if (!owned) expect(map).toEqual(before);
      });
    }
  }

  it('gives the same objects in generated and interpreted runs, inputs untouched', () => {
    const annotations: JsonObject = { a: '1', debug: 'true', z: '2' };
    const object = deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations } });
    const policies = [
      policy('rm', [
        set(p('object', 'metadata', 'annotations', 'policy'), 'x'),
        remove(p('object', 'metadata', 'annotations', 'debug')),
        remove(p('object', 'metadata', 'annotations', 'a')),
      ]),
    ];
    for (const interpret of [false, true]) {
      const r = apply(policies, { object, operation: 'CREATE' }, { interpret, patch: false });
      const got = (r.object as JsonObject).metadata as JsonObject;
      expect(Object.keys(got.annotations as JsonObject)).toEqual(['z', 'policy']);
    }
  });
});
