/**
 * JMESPath truthiness (go-jmespath util.go isFalse): null, false, "", [] and {} are false, everything else
 * (every number, 0 included) is true. In CEL one membership test covers every JSON type: `in` compares with
 * heterogeneous equality, so `0 in [false]` is false and `[] in [[]]` true. A value of a known type needs
 * one comparison; an optional path (access.ts) is compared through orValue() with its type's falsy value,
 * which stands for the missing value too (both are false).
 */
import { bind, frag, tfrag, tyOf, type Frag } from './frag.js';
import type { Cx } from './context.js';
import { alwaysTruthy, falsyOf, type Ty } from './types.js';
import { topLevel } from './operand.js';

const FALSY = '[dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]';

const TRUE = frag('true', 'bool', { simple: true, atom: true });

/** The value of an optional path where it is known to be present: its plain path. */
export function presentValue(f: Frag): Frag {
  const o = f.optional!;
  return tfrag(o.strict, o.ty, { simple: true, atom: true });
}

/** An optional path with `fallback` (CEL text of a value of type `ty`) for the missing value. */
export function orValue(f: Frag, fallback: string, ty: Ty): Frag {
  return tfrag(`${f.optional!.cel}.orValue(${fallback})`, ty, { simple: true, atom: true });
}

/** A CEL bool that is true when `f` is JMESPath-truthy; errors of `f` propagate. */
export function truthy(f: Frag, cx: Cx): Frag {
  const o = f.optional;
  if (o) {
    if (alwaysTruthy(o.ty)) return frag(o.present, 'bool', { atom: true });
    const z = falsyOf(o.ty);
    if (z !== undefined) return truthy(orValue(f, z, o.ty), cx);
  }
  if (alwaysTruthy(tyOf(f))) return f.err ? bind(f, cx.names, () => TRUE) : TRUE;
  // `test ? v : null` is truthy where the test holds and v is (null is not); && only skips v where the
  // ternary would not read it either.
  const w = f.whenNotNull;
  if (w && !f.err) {
    const t = truthy(w.value, cx);
    const paren = (cel: string): string => (topLevel(cel, ['||', '?']) ? `(${cel})` : cel);
    return frag(`${paren(w.test)} && ${paren(t.cel)}`, 'bool', { err: t.err });
  }
  switch (f.t) {
    case 'bool':
      return f;
    case 'null':
      return frag('false', 'bool', { simple: true, atom: true });
    case 'string':
      return frag(`${f.atom ? f.cel : `(${f.cel})`} != ""`, 'bool', { err: f.err });
    case 'list':
    case 'map':
      return frag(`size(${f.cel}) != 0`, 'bool', { err: f.err });
    default:
      return frag(`!(${f.atom ? f.cel : `(${f.cel})`} in ${FALSY})`, 'bool', { err: f.err, atom: true });
  }
}
