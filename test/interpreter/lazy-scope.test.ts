/**
 * Scope.withLazy (src/interpreter/scope.ts): a lazy variable is its own scope node, computed at first read
 * against the scope it extends, once, retried after an error, shadowed by an inner binding of its name.
 */
import { describe, expect, it } from 'vitest';
import { Scope } from '../../src/interpreter/scope.js';
import type { JsonValue } from '../../src/ir/json.js';

describe('a lazy scope binding', () => {
  it('computes at first read, once, against the scope it extends, and retries after an error', () => {
    let calls = 0;
    let fail = true;
    const base = Scope.EMPTY.with('a', { value: 1 });
    const compute = (st: { k: number }, scope: Scope): JsonValue => {
      calls++;
      if (fail) throw new Error('not yet');
      return st.k + (scope.lookup('a')!.value as number);
    };
    const scope = base.withLazy('b', compute, { k: 10 }).with('a', { value: 100 });
    expect(calls).toBe(0);
    const b = scope.lookup('b')!;
    expect(() => b.value).toThrow('not yet');
    fail = false;
    expect(b.value).toBe(11);
    expect(b.value).toBe(11);
    expect(calls).toBe(2);
    expect(scope.values()).toEqual({ a: 100, b: 11 });
  });

  it('is shadowed by an inner binding of its name', () => {
    const scope = Scope.EMPTY.withLazy('x', () => 'lazy', undefined).with('x', { value: 'eager' });
    expect(scope.lookup('x')!.value).toBe('eager');
    expect(Scope.EMPTY.withLazy('x', () => 'lazy', undefined).lookup('x')!.value).toBe('lazy');
  });
});
