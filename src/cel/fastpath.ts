/**
 * Helpers for the compiler's fast paths on the common Kubernetes shapes (JSON objects, field chains,
 * fixed-key literals).
 *
 * Why: every compiled program's closures come from the same few function literals in compile.ts, so
 * V8 shares their feedback across programs and their property accesses go megamorphic. The fast paths
 * keep that cost to one keyed load per field, and fixed-key literals get a constructor of their own
 * so their objects are built from a boilerplate with one hidden class instead of key by key.
 */
import type { Fn } from './compile.js';

const OBJECT_PROTO = Object.prototype;

/** A JSON object (plain object with Object.prototype): the representation of string-keyed CEL maps. */
export function isJsonObject(o: unknown): o is Record<string, unknown> {
  return typeof o === 'object' && o !== null && Object.getPrototypeOf(o) === OBJECT_PROTO;
}

/**
 * True when `o[name] !== undefined` on a JSON object proves `name` is an own key: the name is not
 * inherited from Object.prototype (`constructor`, `toString`, `__proto__`, ...) and JSON values are
 * never `undefined`.
 */
export function isSafeFieldName(name: string): boolean {
  return !(name in OBJECT_PROTO);
}

type Factory = (fns: readonly Fn[], extra: unknown) => Fn;

const literalFactories = new Map<string, Factory>();
const objectFactories = new Map<string, Factory>();

/**
 * `(c) => ({k0: f0(c), k1: f1(c), ...})` for fixed, distinct, safe keys, or `(c) => new Obj(type, {...})`
 * when `wrap` is given. Keys are emitted with JSON.stringify (a valid JS string literal, never code);
 * `__proto__` must not be among them (as a literal key it would set the prototype), callers check.
 * Generated code is cached per key list, so the number of generated functions is bounded by the
 * distinct literal shapes compiled.
 */
export function fixedKeyLiteral(keys: readonly string[], fns: readonly Fn[]): Fn {
  return factory(literalFactories, keys, false)(fns, undefined);
}

export function fixedKeyObject(keys: readonly string[], fns: readonly Fn[], wrap: (fields: Record<string, unknown>) => unknown): Fn {
  return factory(objectFactories, keys, true)(fns, wrap);
}

function factory(cache: Map<string, Factory>, keys: readonly string[], wrapped: boolean): Factory {
  const id = keys.join('\u0000');
  let f = cache.get(id);
  if (!f) {
    if (keys.includes('__proto__')) throw new Error('fixedKeyLiteral: __proto__ key');
    const binds = keys.map((_, i) => `const f${i} = fns[${i}];`).join(' ');
    const body = `{${keys.map((k, i) => `${JSON.stringify(k)}: f${i}(c)`).join(', ')}}`;
    const make = wrapped ? `(c) => wrap(${body})` : `(c) => (${body})`;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    f = new Function('fns', 'wrap', `'use strict'; ${binds} return ${make};`) as Factory;
    cache.set(id, f);
  }
  return f;
}
