import type { JsonValue } from '../ir/json.js';

/** Where a bound variable's value lives in the object, so writes through `vars.<name>` reach the object. */
export type Location = (string | number)[];

export interface Binding {
  value: JsonValue;
  /** Present when the variable names a place in `object` (a forEach element); absent for computed values. */
  location?: Location;
}

/**
 * An immutable chain of variable bindings; a child scope shadows its parent. A binding computed at first
 * read is the scope node itself (LazyScope): one object per lazy variable, mutation and request instead of a
 * node and a binding.
 */
export class Scope {
  protected constructor(
    protected readonly name: string | undefined,
    /** Set once, by this constructor or by a subclass's that is its own binding. */
    protected binding: Binding | undefined,
    protected readonly parent: Scope | undefined,
  ) {}

  static readonly EMPTY = new Scope(undefined, undefined, undefined);

  with(name: string, binding: Binding): Scope {
    return new Scope(name, binding, this);
  }

  /**
   * This scope with `name` bound to `compute(st, this)`, computed at first read (MAP variables); an error
   * escapes only where the variable is used, and the next read tries again.
   */
  withLazy<S>(name: string, compute: (st: S, scope: Scope) => JsonValue, st: S): Scope {
    return new LazyScope(name, this, compute, st);
  }

  lookup(name: string): Binding | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.name === name) return s.binding;
    return undefined;
  }

  /**
   * Computes the lazy bindings of the chain not computed yet whose name `wanted` accepts, outermost first
   * (the order they were bound), shadowed ones included: Kyverno's deferred loading loads every loader whose
   * name a query mentions (dialects/kyverno/deferred-loading.ts). One that fails throws, as its read would.
   */
  loadLazy(wanted: (name: string) => boolean): void {
    let pending: LazyScope<unknown>[] | undefined;
    for (let s: Scope | undefined = this; s; s = s.parent) {
      if (s instanceof LazyScope && !s.computed && wanted(s.name!)) (pending ??= []).push(s);
    }
    if (pending === undefined) return;
    for (let i = pending.length - 1; i >= 0; i--) void pending[i]!.value;
  }

  /** Whether a lazy binding of the chain is not computed yet. */
  hasPendingLazy(): boolean {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s instanceof LazyScope && !s.computed) return true;
    return false;
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

/**
 * A scope node that is its own lazy binding, computed against the scope it extends. A class: its getter
 * lives on the prototype, where an object literal's getter would allocate a closure and an accessor pair.
 */
class LazyScope<S> extends Scope implements Binding {
  private done = false;
  private cached: JsonValue = null;

  constructor(
    name: string,
    parent: Scope,
    private readonly compute: (st: S, scope: Scope) => JsonValue,
    private readonly st: S,
  ) {
    super(name, undefined, parent);
    this.binding = this;
  }

  get computed(): boolean {
    return this.done;
  }

  get value(): JsonValue {
    if (!this.done) {
      this.cached = this.compute(this.st, this.parent!);
      this.done = true;
    }
    return this.cached;
  }
}
