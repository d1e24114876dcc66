import type { JsonValue } from '../ir/json.js';

/** Where a bound variable's value lives in the object, so writes through `vars.<name>` reach the object. */
export type Location = (string | number)[];

export interface Binding {
  value: JsonValue;
  /** Present when the variable names a place in `object` (a forEach element); absent for computed values. */
  location?: Location;
}

/**
 * A binding computed at first read (MAP variables); an error escapes only where the variable is used (and
 * the next read tries again). A class: its getter lives on the prototype, where an object literal's getter
 * would allocate a closure and an accessor pair per binding (one per variable, mutation and request).
 */
class LazyBinding<A, B> implements Binding {
  private done = false;
  private cached: JsonValue = null;

  constructor(
    private readonly compute: (a: A, b: B) => JsonValue,
    private readonly a: A,
    private readonly b: B,
  ) {}

  get value(): JsonValue {
    if (!this.done) {
      this.cached = this.compute(this.a, this.b);
      this.done = true;
    }
    return this.cached;
  }
}

/** A binding computed at first read as `compute(a, b)` (arguments instead of a closure: one object per binding). */
export function lazyBinding<A, B>(compute: (a: A, b: B) => JsonValue, a: A, b: B): Binding {
  return new LazyBinding(compute, a, b);
}

/** An immutable chain of variable bindings; a child scope shadows its parent. */
export class Scope {
  private constructor(
    private readonly name: string | undefined,
    private readonly binding: Binding | undefined,
    private readonly parent: Scope | undefined,
  ) {}

  static readonly EMPTY = new Scope(undefined, undefined, undefined);

  with(name: string, binding: Binding): Scope {
    return new Scope(name, binding, this);
  }

  lookup(name: string): Binding | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.name === name) return s.binding;
    return undefined;
  }

  /** Every visible variable, innermost first wins, for expression engines; values are read on access (lazy bindings stay lazy). */
  values(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = Object.create(null);
    for (let s: Scope | undefined = this; s; s = s.parent) {
      if (s.name === undefined || Object.prototype.hasOwnProperty.call(out, s.name)) continue;
      const binding = s.binding!;
      Object.defineProperty(out, s.name, { enumerable: true, get: () => binding.value });
    }
    return out;
  }
}
