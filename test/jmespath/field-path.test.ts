/**
 * The field-path readers (src/jmespath/field-path.ts): the generated reader and the loop reader against the
 * careful reference (own-field test first, a fresh failure per miss), over random paths and documents mixing
 * maps, null-prototype maps, lists, scalars, nulls, expression references and names Object.prototype has.
 */
import { describe, expect, it } from 'vitest';
import { ExpRef } from '../../src/jmespath/functions/registry.js';
import { carefulReader, fieldPathReader, generatedReader, loopReader } from '../../src/jmespath/field-path.js';

const NAMES = ['a', 'b', 'c', 'example.com/x', 'with "quote"', 'back\\slash', '\u2028', '', 'toString', '__proto__', 'constructor'];

function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth === 0 || r < 0.15) return [null, 1, 'text', true, undefined, new ExpRef(() => null)][Math.floor(next() * 6)];
  if (r < 0.25) return [randomValue(next, depth - 1)];
  const map: Record<string, unknown> = next() < 0.3 ? Object.create(null) : {};
  for (const name of NAMES) {
    if (next() < 0.4) Object.defineProperty(map, name, { value: randomValue(next, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return map;
}

describe('field-path readers', () => {
  it('agree with the careful reader', () => {
    const next = random(7);
    let compared = 0;
    const kinds = { failure: 0, null: 0, value: 0 };
    for (let i = 0; i < 400; i++) {
      const data = randomValue(next, 4);
      for (let j = 0; j < 10; j++) {
        const path = Array.from({ length: 1 + Math.floor(next() * 4) }, () => NAMES[Math.floor(next() * (next() < 0.8 ? 5 : NAMES.length))]!);
        const want = carefulReader(path)(data, { ctx: {} });
        kinds[want === null ? 'null' : want instanceof Object && 'kind' in want ? 'failure' : 'value']++;
        // The loop and generated readers serve names Object.prototype lacks (fieldPathReader picks).
        const plainNames = path.every((name) => !(name in Object.prototype));
        const readers = plainNames ? [fieldPathReader(path), loopReader(path), generatedReader(path)!] : [fieldPathReader(path)];
        for (const read of readers) expect(read(data, { ctx: {} }), JSON.stringify(path)).toEqual(want);
        compared++;
      }
    }
    expect(compared).toBe(4000);
    expect(Math.min(kinds.failure, kinds.null, kinds.value)).toBeGreaterThan(300);
  });

  it('generates a reader for any name', () => {
    expect(generatedReader(['a', 'with "quote"', '\u2028'])).toBeTypeOf('function');
  });
});
