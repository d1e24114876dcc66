/**
 * A piece of emitted CEL and what the compiler knows about it. Everything the compiler emits is built from
 * these, so the two properties fidelity depends on are tracked in one place:
 * - `t`, the static CEL type as far as it is known: kube-apiserver type-checks MAP expressions, so a
 *   ternary, a list literal or `==` whose operands may have different static types is wrapped in `dyn()`;
 * - `err`, whether evaluation may fail: CEL's `&&`, `||`, `exists` and `all` absorb errors, JMESPath does
 *   not, so an operand that may fail is never put where CEL could swallow its error.
 */

/** The static CEL type of a fragment; 'dyn' when unknown (object fields, variables). */
export type SType = 'string' | 'int' | 'double' | 'bool' | 'null' | 'list' | 'map' | 'dyn';

export interface Frag {
  cel: string;
  t: SType;
  /** May fail at runtime (a missing key in strict mode, a type error, a guard). */
  err: boolean;
  /** Cheap and pure to repeat textually (an identifier, a select path, a scalar literal). */
  simple: boolean;
  /** Usable as an operand without parentheses. */
  atom: boolean;
  /** The JSON value, when the fragment is a literal. */
  lit?: { value: unknown };
}

export function frag(cel: string, t: SType, opts: { err?: boolean; simple?: boolean; atom?: boolean } = {}): Frag {
  return { cel, t, err: opts.err ?? false, simple: opts.simple ?? false, atom: opts.atom ?? false };
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
  const same = a.t === b.t && a.t !== 'null';
  // CEL's grammar takes only a conditionalOr between `?` and `:`.
  const ta = same ? (a.atom ? a.cel : `(${a.cel})`) : dyn(a);
  const tb = same ? b.cel : dyn(b);
  return frag(`${c} ? ${ta} : ${tb}`, same ? a.t : 'dyn', { err: a.err || b.err || extraErr });
}

export const NULL: Frag = frag('null', 'null', { simple: true, atom: true });

/**
 * Always fails at runtime with a message naming transmute, so a reader (and the differential test) can
 * tell a deliberate guard from an accidental error. A map index is used because it type-checks anywhere.
 */
export function fail(message: string): Frag {
  return frag(`dyn({})[${celString(`transmute: ${message}`)}]`, 'dyn', { err: true, atom: true });
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

/** A fragment for a caller-supplied CEL text (a scope binding). */
export function external(cel: string): Frag {
  const path = isPathCel(cel);
  return frag(cel, 'dyn', { simple: path, atom: path || /^[A-Za-z_][\w.]*\([^()]*\)$/.test(cel) });
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
  const v = frag(name, f.t, { simple: true, atom: true });
  const b = body(v);
  return frag(`[${f.cel}].map(${name}, ${b.cel})[0]`, b.t, { err: f.err || b.err, atom: true });
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
