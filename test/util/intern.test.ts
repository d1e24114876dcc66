import { describe, expect, it } from 'vitest';
import { internString } from '../../src/util/intern.js';

describe('internString', () => {
  it('gives back an equal string for names, indexes, prototype names and the empty string', () => {
    const sliced = 'prefix/metadata/annotations/example.com~1mutated-by'.slice(6);
    const joined = ['/metadata/', 'labels'].join('');
    for (const s of [sliced, joined, '0', '42', '-1', '1e3', '', '__proto__', 'constructor', 'hasOwnProperty', 'ünïcödé ✓', 'x'.repeat(10_000)]) {
      const interned = internString(s);
      expect(interned).toBe(s);
      expect(typeof interned).toBe('string');
    }
  });

  it('leaves Object.prototype as it was', () => {
    internString('__proto__');
    internString('toString');
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['__proto__']).toBe(Object.prototype);
  });
});
