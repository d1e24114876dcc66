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

/**
 * A JSON object (plain object with Object.prototype): the representation of string-keyed CEL maps.
 *
 * Checked as `constructor === Object`, which V8 reduces to a map check where `Object.getPrototypeOf` stays
 * a builtin call (about twice the cost of the whole E2 benchmark's optional chain). The two differ only on
 * a JSON object with its own `constructor` key (refused here, so callers take their general path, which
 * gives the same answer) and on objects made by `Object.create(plainObject)`, which no CEL value is: values
 * come from JSON decoding, object literals and the classes of values.ts.
 */
export function isJsonObject(o: unknown): o is Record<string, unknown> {
  return typeof o === 'object' && o !== null && (o as object).constructor === Object;
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

/** Where a generated field chain starts: a compiled operand, a comprehension variable, or a declared variable. */
export type ChainBase = { kind: 'fn'; fn: Fn } | { kind: 'slot'; slot: number } | { kind: 'variable'; name: string };

/** What generated chains call off the fast path; the semantics stay those of operators.ts. */
export interface ChainHelpers {
  select(x: unknown, field: string): unknown;
  optSelect(x: unknown, field: string): { has: boolean; value: unknown };
  noAttribute(name: string): never;
  absent: symbol;
}

type ChainFactory = (base: Fn | undefined, slot: number, h: ChainHelpers) => Fn;

const chainFactories = new Map<string, ChainFactory>();

/**
 * `base.f1.f2...` (or `base.?f1.?f2...` with `optional`, returning `h.absent` for no value) as generated
 * code with one named property load per field, for field names that pass isSafeFieldName.
 *
 * Why generated: a shared closure walking a field array does a keyed load whose feedback every program
 * shares, so it goes megamorphic, and `Object.getPrototypeOf` on an unknown map is a builtin call. A
 * function per field list gets its own feedback: the loads and the prototype check reduce to map checks.
 * Same results as ops.select / ops.optSelect step by step: the fast branch is taken only on a JSON object
 * (prototype Object.prototype) holding the field, where both return the field's value.
 */
export function fieldChain(base: ChainBase, fields: readonly string[], optional: boolean, h: ChainHelpers): Fn {
  const baseKey = base.kind === 'variable' ? `v:${base.name}` : base.kind;
  const id = `${optional ? '?' : '.'}${baseKey}\u0000${fields.join('\u0000')}`;
  let f = chainFactories.get(id);
  if (!f) {
    if (!fields.every(isSafeFieldName)) throw new Error('fieldChain: unsafe field name');
    const start =
      base.kind === 'fn'
        ? 'let o = base(c);'
        : base.kind === 'slot'
          ? 'let o = c.locals[slot];'
          : `let o = c.act[${JSON.stringify(base.name)}]; if (o === undefined) return h.noAttribute(${JSON.stringify(base.name)});`;
    const steps = fields.map((name) => {
      const key = JSON.stringify(name);
      const fast = `typeof o === 'object' && o !== null && o.constructor === Object && (v = o[${key}]) !== undefined`;
      return optional
        ? `if (${fast}) o = v; else { const r = h.optSelect(o, ${key}); if (!r.has) return h.absent; o = r.value; }`
        : `if (${fast}) o = v; else o = h.select(o, ${key});`;
    });
    const body = `(c) => { ${start} let v; ${steps.join(' ')} return o; }`;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    f = new Function('base', 'slot', 'h', `'use strict'; return ${body};`) as ChainFactory;
    chainFactories.set(id, f);
  }
  return f(base.kind === 'fn' ? base.fn : undefined, base.kind === 'slot' ? base.slot : -1, h);
}
