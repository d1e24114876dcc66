/**
 * JMESPath's `||` and comparisons over compiled operands. Both sides are typed where they can be: an
 * optional path (access.ts) compared with a literal, or defaulted, reads as orValue() rather than through a
 * truthiness test of an unknown value.
 */
import { jsonEqual } from '../../ir/json.js';
import type { Cx } from './context.js';
import { bind, bindAll, cond, dyn, frag, isNumeric, NULL, onlyIf, op, tfrag, tyOf, typeIs, withTy, type Frag } from './frag.js';
import { orValue, presentValue, truthy } from './truthy.js';
import { alwaysTruthy, falsyJson, falsyOf, join, stypeOf, type Ty } from './types.js';

/**
 * `a || b`: a when truthy, else b (evaluated only then). An optional path with a default that is its type's
 * falsy value, or that is never falsy when present, is orValue() of that default.
 */
export function orExpression(a: Frag, b: Frag, cx: Cx): Frag {
  const o = a.optional;
  // The default is the falsy value of type t (`|| ''` on a string, `|| \`[]\`` on a list).
  const isFalsyOf = (t: Ty): boolean => b.lit !== undefined && falsyOf(t) !== undefined && jsonEqual(b.lit.value, falsyJson(t));
  // A possibly-null list or map with its own empty value as default: the value where it is one, else the default.
  if (o && o.ty.k === 'nullable' && isFalsyOf(o.ty.of)) {
    return withTy(cond(`${o.present} && type(${o.strict}) == ${o.ty.of.k}`, tfrag(o.strict, o.ty.of, { atom: true }), b), o.ty.of);
  }
  if (o) {
    if (isFalsyOf(o.ty)) return orValue(a, falsyOf(o.ty)!, o.ty);
    if (alwaysTruthy(o.ty) && b.simple && !b.err && (b.t === stypeOf(o.ty) || (isNumeric(b.t) && isNumeric(stypeOf(o.ty))))) {
      return orValue(a, b.cel, join(o.ty, tyOf(b)));
    }
    return cond(truthy(a, cx).cel, presentValue(a), b);
  }
  if (alwaysTruthy(tyOf(a))) return a;
  return bind(a, cx.names, (x) => cond(truthy(x, cx).cel, x, b));
}

/**
 * An optional path compared with a scalar literal: `opt.orValue(zero) == lit` where a missing value reads as
 * the type's falsy value, which `lit` is not; else `has(p) && p == lit` (`!has(p) || p != lit`).
 */
function optionalEquals(o: Frag, lit: Frag, opText: string): Frag | undefined {
  const opt = o.optional!;
  const t = opt.ty;
  const v = lit.lit?.value;
  if (v === undefined || v === null || typeof v === 'object') return undefined;
  const sameKind = (t.k === 'string' && typeof v === 'string') || (t.k === 'bool' && typeof v === 'boolean') || (isNumeric(stypeOf(t)) && typeof v === 'number');
  if (!sameKind) return undefined;
  const z = falsyOf(t);
  if (z !== undefined && !jsonEqual(v, falsyJson(t))) return frag(`${orValue(o, z, t).cel} ${opText} ${lit.cel}`, 'bool');
  return frag(opText === '==' ? `${opt.present} && ${opt.strict} == ${lit.cel}` : `!${opt.present} || ${opt.strict} != ${lit.cel}`, 'bool');
}

/** A comparison operand as a number: a test that it is one (or a verdict) and its CEL text. */
function numberView(f: Frag): { is: string | boolean; text: Frag } {
  const o = f.optional;
  if (o && isNumeric(stypeOf(o.ty))) return { is: o.present, text: presentValue(f) };
  if (isNumeric(f.t)) return { is: true, text: f };
  if (f.t !== 'dyn') return { is: false, text: f };
  return { is: typeIs.number(f), text: f };
}

/** A comparator (`==`, `<`...) over its two operands, compiled leniently. */
export function comparison(name: 'EQ' | 'NE' | 'LT' | 'LTE' | 'GT' | 'GTE', l: Frag, r: Frag, cx: Cx): Frag {
  if (name === 'EQ' || name === 'NE') {
    // CEL == is JSON deep equality here: heterogeneous values are unequal, 1 == 1.0, lists and maps deep.
    const opText = name === 'EQ' ? '==' : '!=';
    const viaOptional = (l.optional && optionalEquals(l, r, opText)) || (r.optional && optionalEquals(r, l, opText));
    if (viaOptional) return viaOptional;
    const same = l.t === r.t && l.t !== 'dyn' && l.t !== 'null' && l.t !== 'list' && l.t !== 'map' && l.t !== 'number';
    return frag(`${same ? op(l) : dyn(l)} ${opText} ${same ? op(r) : dyn(r)}`, 'bool', { err: l.err || r.err });
  }
  const opText = { LT: '<', LTE: '<=', GT: '>', GTE: '>=' }[name];
  // go-jmespath orders numbers only; anything else compares to null. Both sides are evaluated first.
  return bindAll([l, r], cx.names, ([a, b]) => {
    const na = numberView(a!);
    const nb = numberView(b!);
    if (na.is === false || nb.is === false) return NULL;
    const cmp = frag(`${op(na.text)} ${opText} ${op(nb.text)}`, 'bool');
    const tests = [na.is, nb.is].filter((t): t is string => typeof t === 'string');
    return tests.length === 0 ? cmp : onlyIf(tests.join(' && '), cmp);
  });
}
