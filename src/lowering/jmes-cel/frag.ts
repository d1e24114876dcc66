/**
 * A piece of emitted CEL and what the compiler knows about it. Everything the compiler emits is built from
 * these, so the two properties fidelity depends on are tracked in one place:
 * - `t`, the static CEL type as far as it is known: kube-apiserver type-checks MAP expressions, so a
 *   ternary, a list literal or `==` whose operands may have different static types is wrapped in `dyn()`;
 * - `err`, whether evaluation may fail: CEL's `&&`, `||`, `exists` and `all` absorb errors, JMESPath does
 *   not, so an operand that may fail is never put where CEL could swallow its error.
 * Readability rests on the rest: `ty`, the JSON type (types.ts), and alternative forms of the same value
 * (an optional path, a form failing where the value is null, a value known as `test ? v : null`) that a
 * consumer picks when it makes the CEL shorter and stays exact.
 */
import { inlineInto } from './inline.js';
import { fromSType, join, literalType, stypeOf, T, type Ty } from './types.js';

/**
 * The static CEL type of a fragment; 'dyn' when unknown (object fields, variables) or possibly null.
 * 'number' is an int or a double at runtime (a schema's numeric field): a JSON number, but not one static
 * CEL type, so it is never left unwrapped where kube-apiserver's type checker wants one.
 */
export type SType = 'string' | 'int' | 'double' | 'number' | 'bool' | 'null' | 'list' | 'map' | 'dyn';

export function isNumeric(t: SType): boolean {
  return t === 'int' || t === 'double' || t === 'number';
}

export interface Frag {
  cel: string;
  t: SType;
  /** May fail at runtime (a missing key in strict mode, a type error, a guard). */
  err: boolean;
  /** Cheap, pure and error-free to repeat textually (an identifier, a select path, a scalar literal, `a.?b.orValue(null)`). */
  simple: boolean;
  /** Usable as an operand without parentheses. */
  atom: boolean;
  /** The JSON value, when the fragment is a literal. */
  lit?: { value: unknown };
  /** The JSON type, when more is known than `t` says (map fields, list items, string values); see tyOf(). */
  ty?: Ty;
  /**
   * Pure and cheap to repeat, but it may fail (a plain field path, `object.spec.containers`): bind() puts it
   * in place wherever the body is sure to evaluate it, so its error still surfaces.
   */
  pure?: boolean;
  /**
   * A lenient field path as a CEL optional (`object.?spec.?containers`), none where some step is absent (the
   * fragment itself is `<cel>.orValue(null)`). `strict` is the same path with plain selects, for places where
   * the value is known to be present; `ty` the value's type when present; `present` the CEL test of presence.
   */
  optional?: { cel: string; strict: string; ty: Ty; present: string };
  /** Always fails (fail()): a ternary with it takes the other branch's type. */
  never?: boolean;
  /**
   * The same value where this one is not null, failing where it is null: the plain path of an optional
   * path, a projection over it. Kyverno fails on a null argument where a function refuses null, and so does
   * this alternative, which reads better (`size(object.spec.containers)`).
   */
  orFail?: Frag;
  /** For a list: the same list where no item is null, failing where one is (items replaced by their orFail). */
  itemsOrFail?: Frag;
  /** The value is `test ? value : null`: a field or index of it is the same of `value`, under the test. */
  whenNotNull?: { test: string; value: Frag };
}

type FragOpts = { err?: boolean; simple?: boolean; atom?: boolean; pure?: boolean };

export function frag(cel: string, t: SType, opts: FragOpts = {}): Frag {
  const f: Frag = { cel, t, err: opts.err ?? false, simple: opts.simple ?? false, atom: opts.atom ?? false };
  if (opts.pure) f.pure = true;
  return f;
}

/** A fragment of a known JSON type. */
export function tfrag(cel: string, ty: Ty, opts: FragOpts = {}): Frag {
  return { ...frag(cel, stypeOf(ty), opts), ty };
}

/** The JSON type of a fragment: its rich type, a literal's, or what its CEL type says. */
export function tyOf(f: Frag): Ty {
  return f.ty ?? (f.lit !== undefined ? literalType(f.lit.value) : fromSType(f.t));
}

/** The fragment with a (more precise) JSON type. */
export function withTy(f: Frag, ty: Ty): Frag {
  return { ...f, t: stypeOf(ty), ty };
}

/** The fragment as an operand: parenthesised unless atomic. */
export function op(f: Frag): string {
  return f.atom ? f.cel : `(${f.cel})`;
}

/** `dyn(x)`, unless the fragment is already dynamically typed. */
export function dyn(f: Frag): string {
  return f.t === 'dyn' ? op(f) : `dyn(${f.cel})`;
}

/** `c ? a : b` with both branches of one static type (wrapped in dyn() otherwise). */
export function cond(c: string, a: Frag, b: Frag, extraErr = false): Frag {
  const same = a.t === b.t && a.t !== 'null' && a.t !== 'number';
  // A dyn branch unifies with anything: only two different known types need dyn() to type-check.
  // null joins dyn too (`c ? dyn(x) : null`).
  const wrap = !same && a.t !== 'dyn' && b.t !== 'dyn';
  // CEL's grammar takes only a conditionalOr between `?` and `:`.
  const ta = wrap && a.t !== 'null' ? dyn(a) : a.atom ? a.cel : `(${a.cel})`;
  const tb = wrap && b.t !== 'null' ? dyn(b) : b.cel;
  const err = a.err || b.err || extraErr;
  if (a.never || b.never) return tfrag(`${c} ? ${ta} : ${tb}`, a.never ? tyOf(b) : tyOf(a), { err });
  return { ...frag(`${c} ? ${ta} : ${tb}`, same ? a.t : 'dyn', { err }), ty: join(tyOf(a), tyOf(b)) };
}

export const NULL: Frag = frag('null', 'null', { simple: true, atom: true });

/** `when ? then : null` (remembered as such: a step into it goes into `then`), or `then` when always. */
export function onlyIf(when: string | true, then: Frag): Frag {
  return when === true ? then : { ...cond(when, then, NULL), whenNotNull: { test: when, value: then } };
}

/**
 * Always fails at runtime with a message naming transmute, so a reader (and the differential test) can
 * tell a deliberate guard from an accidental error. A map index is used because it type-checks anywhere.
 */
export function fail(message: string): Frag {
  return { ...frag(`dyn({})[${celString(`transmute: ${message}`)}]`, 'dyn', { err: true, atom: true }), never: true };
}

/** The marker every deliberate runtime failure carries. */
export const GUARD_MARKER = 'transmute: ';

/** A CEL double-quoted string literal (cel-spec escapes; everything printable is kept as is). */
export function celString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0) || c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16).padStart(4, '0');
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd'; // a lone surrogate is not valid UTF-8; Go JSON decoding made it U+FFFD already
    else out += ch;
  }
  return out + '"';
}

export function strFrag(s: string): Frag {
  return { ...frag(celString(s), 'string', { simple: true, atom: true }), lit: { value: s } };
}

/** The literal string value of a fragment, if it is one. */
export function litString(f: Frag): string | undefined {
  return f.lit !== undefined && typeof f.lit.value === 'string' ? f.lit.value : undefined;
}

/** Names for comprehension variables: a leading underscore keeps them apart from the caller's names. */
export class Names {
  private n = 0;
  fresh(hint = 'v'): string {
    this.n += 1;
    return `_${hint}${this.n}`;
  }
}

/** A simple identifier or select path (`object`, `variables.foo`, `request.userInfo.username`). */
function isPathCel(cel: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(cel);
}

/** A fragment for a caller-supplied CEL text (a scope binding), of the type the caller gives. */
export function external(cel: string, ty: Ty = T.dyn): Frag {
  const path = isPathCel(cel);
  return tfrag(cel, ty, { simple: path, atom: path || /^[A-Za-z_][\w.]*\([^()]*\)$/.test(cel) });
}

/**
 * Evaluates `f` once and lets `body` use its value as a simple fragment. A simple fragment is used as it is;
 * anything else is bound with a one-element comprehension, `[f].map(v, body)[0]`, the only let-binding the
 * Kubernetes CEL environment offers (no cel.bind). The value is computed before the body runs, as JMESPath
 * evaluates it, so its error surfaces even where the body would not read it.
 */
export function bind(f: Frag, names: Names, body: (v: Frag) => Frag): Frag {
  if (f.simple) return body(f);
  const name = names.fresh();
  // The variable stands for f, and so do f's alternatives (standalone expressions, used in its place).
  const v: Frag = { ...frag(name, f.t, { simple: true, atom: true }), ...(f.ty ? { ty: f.ty } : {}), ...(f.lit ? { lit: f.lit } : {}) };
  if (f.orFail) v.orFail = f.orFail;
  if (f.itemsOrFail) v.itemsOrFail = f.itemsOrFail;
  if (f.whenNotNull) v.whenNotNull = f.whenNotNull;
  const b = body(v);
  // A value that cannot fail and that the body no longer reads needs no binding.
  if (!f.err && !new RegExp(`(?<![\\w.?$])${name}(?!\\w)`).test(b.cel)) return b;
  // Where the body is sure to evaluate the value, it can stand in place (once, or repeatedly when pure).
  if (b.cel === name) return { ...f, ...(b.ty ? { ty: b.ty } : {}) };
  const inlined = inlineInto(b.cel, name, f.cel, f.atom, f.pure === true);
  // The body's alternatives stay valid where they do not read the variable (they are built from f's).
  const reads = (x: Frag | undefined): boolean => x !== undefined && new RegExp(`(?<![\\w.?$])${name}(?!\\w)`).test(x.cel);
  const alts = { orFail: reads(b.orFail) ? undefined : b.orFail, itemsOrFail: reads(b.itemsOrFail) ? undefined : b.itemsOrFail };
  if (inlined !== undefined) return { ...b, cel: inlined, err: f.err || b.err, simple: false, pure: b.pure === true && (f.pure === true || f.simple), optional: undefined, whenNotNull: undefined, ...alts };
  return { ...frag(`[${f.cel}].map(${name}, ${b.cel})[0]`, b.t, { err: f.err || b.err, atom: true }), ...(b.ty ? { ty: b.ty } : {}), ...alts };
}

/** Binds several fragments in order (evaluation order is JMESPath's: left to right). */
export function bindAll(fs: Frag[], names: Names, body: (vs: Frag[]) => Frag): Frag {
  const go = (i: number, acc: Frag[]): Frag => (i === fs.length ? body(acc) : bind(fs[i]!, names, (v) => go(i + 1, [...acc, v])));
  return go(0, []);
}

/** CEL type tests that never fail (type() is total). */
export const typeIs = {
  map: (v: Frag): string => `type(${v.cel}) == map`,
  list: (v: Frag): string => `type(${v.cel}) == list`,
  string: (v: Frag): string => `type(${v.cel}) == string`,
  number: (v: Frag): string => `(type(${v.cel}) == int || type(${v.cel}) == double)`,
};
