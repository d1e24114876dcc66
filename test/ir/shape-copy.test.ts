import { describe, expect, it } from 'vitest';
import { copyForNewKeys } from '../../src/ir/json-copy.js';
import type { JsonObject } from '../../src/ir/json.js';
import { copyByShape } from '../../src/ir/shape-copy.js';
import { rng } from './arbitrary.js';

/** What a copy must be: the same own keys in the same order, the same values, plain data properties. */
function expectFaithfulCopy(copy: JsonObject, m: JsonObject): void {
  expect(copy).not.toBe(m);
  expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  expect(Reflect.ownKeys(copy)).toEqual(Reflect.ownKeys(m));
  for (const key of Object.keys(m)) {
    expect(Object.getOwnPropertyDescriptor(copy, key)).toEqual({ value: m[key], writable: true, enumerable: true, configurable: true });
  }
}

describe('copyByShape', () => {
  it('copies a map by the literal of a shape met before, and says so only for that shape', () => {
    const first = { shapeA: 1, b: { x: 1 }, c: 'three' };
    const second = { shapeA: 2, b: { y: 2 }, c: 'four' };
    copyByShape(first);
    const copy = copyByShape(second);
    expect(copy).toBeDefined();
    expectFaithfulCopy(copy!, second);
    expect(copy!['b']).toBe(second.b);
    // Same first key, other keys or order: not that shape.
    expect(copyByShape({ shapeA: 1, c: 'x', b: 2 })).toBeUndefined();
    expect(copyByShape({ shapeA: 1, b: 2 })).toBeUndefined();
    expect(copyByShape({ shapeA: 1, b: 2, c: 3, d: 4 })).toBeUndefined();
  });

  it('lets the copy grow like any map', () => {
    const m = { growA: 1, growB: 2 };
    copyByShape(m);
    const copy = copyByShape({ growA: 3, growB: 4 })!;
    copy['growC'] = 5;
    expect(Object.keys(copy)).toEqual(['growA', 'growB', 'growC']);
  });

  it('never takes a __proto__ key into a shape (a literal would set the prototype)', () => {
    const m = JSON.parse('{"protoA": 1, "__proto__": {"polluted": true}}') as JsonObject;
    copyByShape(m);
    expect(copyByShape(JSON.parse('{"protoA": 2, "__proto__": {"polluted": true}}') as JsonObject)).toBeUndefined();
    const copy = copyForNewKeys(m);
    expectFaithfulCopy(copy, m);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('keeps array-index keys first, as the map enumerates them', () => {
    const m = { idxA: 1, 7: 'seven', 2: 'two' } as unknown as JsonObject;
    copyByShape(m);
    const copy = copyByShape({ idxA: 2, 7: 'x', 2: 'y' } as unknown as JsonObject)!;
    expect(Object.keys(copy)).toEqual(['2', '7', 'idxA']);
    expect(copy['7']).toBe('x');
  });

  it('copies keys that are not identifiers, and empty maps by the caller', () => {
    const odd = { 'odd key"\\': 1, '': 2, 'example.com/x': 3, constructor: 4 } as JsonObject;
    copyByShape(odd);
    const copy = copyByShape({ ...odd })!;
    expectFaithfulCopy(copy, odd);
    expect(copyByShape({})).toBeUndefined();
  });

  it('gives up on a first key after a few shapes (maps of arbitrary keys)', () => {
    for (let i = 0; i < 10; i++) copyByShape({ manyA: 1, [`k${i}`]: i });
    const known = [0, 1, 2, 3].filter((i) => copyByShape({ manyA: 1, [`k${i}`]: i }) !== undefined);
    expect(known).toEqual([0, 1, 2, 3]);
    expect(copyByShape({ manyA: 1, k9: 9 })).toBeUndefined();
  });

  it('copyForNewKeys copies every map faithfully, seeded random maps included', () => {
    const r = rng(17);
    const names = ['a', 'b', 'c', 'name', 'image', '0', '12', 'x.y', 'x/y', '', 'constructor', 'toString'];
    for (let n = 0; n < 400; n++) {
      const m: JsonObject = {};
      const size = Math.floor(r() * 8);
      for (let i = 0; i < size; i++) m[names[Math.floor(r() * names.length)]!] = Math.floor(r() * 5);
      expectFaithfulCopy(copyForNewKeys(m), m);
      expectFaithfulCopy(copyForNewKeys(m), m);
    }
  });
});
