/**
 * Static JSON types: what a caller guarantees about a binding's value (the admission request's fields, the
 * object typed from its kind's schema, a foreach element), and what the compiler derives for every value it
 * computes. A type describes the JSON value Kyverno and the CEL both see. Where it is known, the CEL can drop
 * what only an unknown value needs: a type dispatch before a field read, JSON encoding of a spliced string,
 * the second direction of a wildcard match.
 *
 * - `string`: `oneOf` lists every value it can hold; `plain` says it holds none of `* ? { } \` (no wildcard
 *   for Kyverno's operators, nothing its `{{ }}` scanner would act on);
 * - `int` (`small`: within ±2^53, so CEL's string() prints what Go prints for the float64), `double`,
 *   `number` (int or double at runtime: a schema's numeric that does not say which), `bool`, `null`;
 * - `list`: every item has type `of` (so no item is null unless `of` allows it); `nonEmpty`: never [];
 * - `map`: a key of `fields` is absent or holds its type, and is always present when listed in `required`;
 *   any other key is absent or holds `rest` (`dyn` when nothing is known);
 * - `nullable`: null or `of`; `dyn`: any JSON value, null included.
 * Every type but `null`, `nullable` and `dyn` excludes null.
 */
import type { SType } from './frag.js';

export type Ty =
  | { readonly k: 'string'; readonly oneOf?: readonly string[]; readonly plain?: boolean }
  | { readonly k: 'int'; readonly small?: boolean }
  | { readonly k: 'double' | 'number' | 'bool' | 'null' | 'dyn' }
  | { readonly k: 'list'; readonly of: Ty; readonly nonEmpty?: boolean }
  | { readonly k: 'map'; readonly fields: Readonly<Record<string, Ty>>; readonly required: readonly string[]; readonly rest: Ty }
  | { readonly k: 'nullable'; readonly of: Ty };

export type MapTy = Extract<Ty, { k: 'map' }>;

const DYN: Ty = { k: 'dyn' };

/** Characters that make a string act on Kyverno's wildcards or its `{{ }}` scanner. */
const SPECIAL = /[*?{}\\]/;

/** Constructors for callers (and the compiler). */
export const T = {
  string: { k: 'string' } as Ty,
  /** A string holding none of `* ? { } \` (a validated name, a fixed token). */
  plainString: { k: 'string', plain: true } as Ty,
  int: { k: 'int' } as Ty,
  /** An int within ±2^53 (a size, an index). */
  smallInt: { k: 'int', small: true } as Ty,
  double: { k: 'double' } as Ty,
  number: { k: 'number' } as Ty,
  bool: { k: 'bool' } as Ty,
  null: { k: 'null' } as Ty,
  dyn: DYN,
  /** A string that is one of `values`. */
  oneOf(...values: string[]): Ty {
    return { k: 'string', oneOf: [...new Set(values)], plain: values.every((v) => !SPECIAL.test(v)) };
  },
  list(of: Ty, nonEmpty = false): Ty {
    return nonEmpty ? { k: 'list', of, nonEmpty } : { k: 'list', of };
  },
  /** An object with known fields (each may be absent unless `required`); other keys unknown. */
  struct(fields: Record<string, Ty>, required: readonly string[] = []): Ty {
    return { k: 'map', fields: ownRecord(fields), required, rest: DYN };
  },
  /** map<string, T>: any keys, every value of type `values`. */
  map(values: Ty): Ty {
    return { k: 'map', fields: {}, required: [], rest: values };
  },
  nullable(of: Ty): Ty {
    return of.k === 'nullable' || of.k === 'dyn' || of.k === 'null' ? of : { k: 'nullable', of };
  },
};

/** A record without prototype keys, so a field named like an Object method is only ever a field. */
export function ownRecord<V>(r: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = Object.create(null) as Record<string, V>;
  for (const [k, v] of Object.entries(r)) out[k] = v;
  return out;
}

/** The CEL static type summary a fragment carries (frag.ts). */
export function stypeOf(t: Ty): SType {
  switch (t.k) {
    case 'nullable':
      return 'dyn';
    case 'list':
    case 'map':
    case 'string':
    case 'int':
    case 'double':
    case 'number':
    case 'bool':
    case 'null':
    case 'dyn':
      return t.k;
  }
}

/** The type a bare SType stands for (a fragment built without a rich type). */
export function fromSType(t: SType): Ty {
  switch (t) {
    case 'list':
      return T.list(DYN);
    case 'map':
      return T.map(DYN);
    default:
      return { k: t } as Ty;
  }
}

/** The type without null (what a value is once it is known not to be null). */
export function nonNull(t: Ty): Ty {
  return t.k === 'nullable' ? t.of : t;
}

export function mayBeNull(t: Ty): boolean {
  return t.k === 'nullable' || t.k === 'dyn' || t.k === 'null';
}

/** The type of a field of a map type, and whether the field is always present. */
export function fieldType(t: MapTy, name: string): { ty: Ty; always: boolean } {
  const f = Object.hasOwn(t.fields, name) ? t.fields[name] : undefined;
  return f ? { ty: f, always: t.required.includes(name) } : { ty: t.rest, always: false };
}

/**
 * The item type of a list type (dyn when not a list): what a foreach `element` over a list of this type
 * holds. Kyverno skips null elements, so a nullable item type is given without its null.
 */
export function itemType(t: Ty): Ty {
  const l = nonNull(t);
  return l.k === 'list' ? nonNull(l.of) : DYN;
}

/** A string type holding none of `* ? { } \`. */
export function isPlainString(t: Ty): boolean {
  return t.k === 'string' && (t.plain === true || (t.oneOf !== undefined && t.oneOf.every((v) => !SPECIAL.test(v))));
}

/** Whether a value of this type is always JMESPath-truthy (numbers always are; a string that cannot be ""). */
export function alwaysTruthy(t: Ty): boolean {
  return t.k === 'int' || t.k === 'double' || t.k === 'number' || (t.k === 'string' && t.oneOf !== undefined && !t.oneOf.includes(''));
}

/** The JSON of the one JMESPath-falsy value of a type, when it has exactly one (see falsyOf). */
export function falsyJson(t: Ty): unknown {
  const z = falsyOf(t);
  return z === undefined ? undefined : JSON.parse(z);
}

/** The CEL text of the one JMESPath-falsy value of a type, when it has exactly one ("", [], {}, false). */
export function falsyOf(t: Ty): string | undefined {
  switch (t.k) {
    case 'string':
      return '""';
    case 'list':
      return '[]';
    case 'map':
      return '{}';
    case 'bool':
      return 'false';
    default:
      return undefined;
  }
}

/** The type of a JSON literal. */
export function literalType(v: unknown): Ty {
  if (v === null || v === undefined) return T.null;
  if (typeof v === 'string') return T.oneOf(v);
  if (typeof v === 'boolean') return T.bool;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? T.smallInt : T.double;
  if (Array.isArray(v)) return T.list(v.map(literalType).reduce(join, v.length === 0 ? DYN : literalType(v[0])));
  const entries = Object.entries(v as Record<string, unknown>);
  const fields: Record<string, Ty> = {};
  for (const [k, x] of entries) fields[k] = literalType(x);
  return { k: 'map', fields: ownRecord(fields), required: entries.map(([k]) => k), rest: DYN };
}

/**
 * The least type holding every value of `a` and of `b`: the type of a value that is one or the other (the
 * branches of a ternary, the same place under several kinds). Keeps what both agree on, dyn elsewhere.
 */
export function join(a: Ty, b: Ty): Ty {
  if (a === b) return a;
  if (a.k === 'dyn' || b.k === 'dyn') return DYN;
  if (a.k === 'null') return T.nullable(b);
  if (b.k === 'null') return T.nullable(a);
  if (a.k === 'nullable' || b.k === 'nullable') return T.nullable(join(nonNull(a), nonNull(b)));
  const numeric = (t: Ty): boolean => t.k === 'int' || t.k === 'double' || t.k === 'number';
  if (a.k !== b.k) return numeric(a) && numeric(b) ? T.number : DYN;
  switch (a.k) {
    case 'string': {
      const s = b as typeof a;
      const oneOf = a.oneOf && s.oneOf ? [...new Set([...a.oneOf, ...s.oneOf])] : undefined;
      const plain = isPlainString(a) && isPlainString(s);
      return { k: 'string', ...(oneOf ? { oneOf } : {}), ...(plain ? { plain } : {}) };
    }
    case 'int':
      return a.small && (b as typeof a).small ? T.smallInt : T.int;
    case 'list':
      return T.list(join(a.of, (b as typeof a).of), a.nonEmpty === true && (b as typeof a).nonEmpty === true);
    case 'map': {
      const m = b as MapTy;
      const fields: Record<string, Ty> = {};
      for (const name of new Set([...Object.keys(a.fields), ...Object.keys(m.fields)])) {
        const t = join(fieldType(a, name).ty, fieldType(m, name).ty);
        const kept = t.k !== 'dyn' || m.rest.k !== 'dyn' || a.rest.k !== 'dyn' || (a.required.includes(name) && m.required.includes(name));
        if (kept) fields[name] = t;
      }
      return { k: 'map', fields: ownRecord(fields), required: a.required.filter((r) => m.required.includes(r)), rest: join(a.rest, m.rest) };
    }
    default:
      return a;
  }
}

/** A short text of a type, for tests and messages: `{metadata!: {name: string}}`, `list<string>`. */
export function typeText(t: Ty, depth = 2): string {
  switch (t.k) {
    case 'string':
      return t.oneOf ? t.oneOf.map((v) => JSON.stringify(v)).join('|') : t.plain ? 'plain string' : 'string';
    case 'int':
      return t.small ? 'small int' : 'int';
    case 'list':
      return `list<${typeText(t.of, depth)}>`;
    case 'nullable':
      return `${typeText(t.of, depth)}?`;
    case 'map': {
      const names = Object.keys(t.fields);
      if (names.length === 0) return `map<${typeText(t.rest, depth)}>`;
      if (depth <= 0) return '{…}';
      return `{${names.map((n) => `${n}${t.required.includes(n) ? '!' : ''}: ${typeText(t.fields[n]!, depth - 1)}`).join(', ')}}`;
    }
    default:
      return t.k;
  }
}
