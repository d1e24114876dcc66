import { describe, expect, it } from 'vitest';
import { SmallMemo } from '../../src/interpreter/state.js';

describe('SmallMemo', () => {
  it('answers as a Map does for any number of keys, updates included', () => {
    const memo = new SmallMemo();
    const map = new Map<unknown, unknown>();
    const keys: unknown[] = [Symbol('a'), 'b', Symbol('c'), 'd', Symbol('e'), 0, null];
    keys.forEach((k, i) => {
      memo.set(k, i);
      map.set(k, i);
    });
    memo.set(keys[1], 'again');
    map.set(keys[1], 'again');
    memo.set(keys[4], undefined);
    map.set(keys[4], undefined);
    for (const k of [...keys, Symbol('absent'), 'absent']) {
      expect(memo.get(k)).toBe(map.get(k));
      expect(memo.has(k)).toBe(map.has(k));
    }
  });

  it('refuses an undefined key, which its empty slots could not tell apart', () => {
    expect(() => new SmallMemo().set(undefined, 1)).toThrow(TypeError);
    expect(new SmallMemo().has(undefined)).toBe(false);
  });
});
