/**
 * Numbers: Kyverno decodes JSON into float64 and prints numbers with encoding/json, which writes
 * strconv 'f' form for 1e-6 <= |x| < 1e21 and 'e' form otherwise, cleaning `e-07` to `e-7`
 * (encoding/json floatEncoder). CEL's string(double) is strconv 'g' with the shortest digits, which uses
 * 'e' form from exponent 6 and below -4, and string(int) prints all digits. Both print the same shortest
 * digits, so the 'g' text is re-spelled: mantissa digits and exponent placed as 'f' form would.
 */
import type { Cx } from './context.js';
import { bind, frag, tyOf, type Frag } from './frag.js';

const ZEROS = '"' + '0'.repeat(24) + '"';
/** Integers up to 2^53 are exact in float64, so CEL's string(int) is Go's 'f' text of them. */
const EXACT_INT = 9007199254740992;

/**
 * 'json': encoding/json ('f' form for 1e-6 <= |x| < 1e21, else 'e' form with `e-7` exponents).
 * 'sprint': the `%v` text src/dialects/kyverno/operators.ts gives numbers ('f' form for 1e-4 <= |x| < 1e21,
 * else %g's 'e' form), which Kyverno's AnyIn/AllIn... compare as strings.
 */
export type NumberStyle = 'json' | 'sprint';

/** The text of a float64 held in a simple double fragment. */
function doubleText(d: string, cx: Cx, style: NumberStyle): string {
  const g = cx.names.fresh('g');
  const p = cx.names.fresh('p');
  const e = cx.names.fresh('x');
  const s = cx.names.fresh('s');
  const m = cx.names.fresh('m');
  // 'e' form of %g with an exponent in [-6, -5] or [6, 20]: spell it out in 'f' form.
  const spelled =
    `[${p}[0].startsWith("-") ? "-" : ""].map(${s}, [${p}[0].replace("-", "").replace(".", "")].map(${m}, [int(${p}[1])].map(${e}, ` +
    `${e} < 0 ? ${s} + "0." + ${ZEROS}.substring(0, -${e} - 1) + ${m} : ` +
    `size(${m}) <= ${e} + 1 ? ${s} + ${m} + ${ZEROS}.substring(0, ${e} + 1 - size(${m})) : ` +
    `${s} + ${m}.substring(0, ${e} + 1) + "." + ${m}.substring(${e} + 1))[0])[0])[0]`;
  return (
    `[string(${d})].map(${g}, !${g}.contains("e") ? ${g} : ` +
    (style === 'json'
      ? `${d} >= 1.0e21 || ${d} <= -1.0e21 || (${d} < 1.0e-6 && ${d} > -1.0e-6) ? ${g}.replace("e-0", "e-") : `
      : `${d} >= 1.0e21 || ${d} <= -1.0e21 || (${d} < 1.0e-4 && ${d} > -1.0e-4) ? ${g} : `) +
    `[${g}.split("e")].map(${p}, ${spelled})[0])[0]`
  );
}

/** The text of a JMESPath number held in a simple fragment (int or double at runtime). */
export function numberText(v: Frag, cx: Cx, style: NumberStyle = 'json'): string {
  if (v.t === 'double') return doubleText(v.cel, cx, style);
  const ty = tyOf(v);
  if (ty.k === 'int' && ty.small) return `string(${v.cel})`;
  // Beyond 2^53 an int is first rounded to float64, as Kyverno's JSON decoding rounds it.
  const asDouble = bind(frag(v.t === 'int' ? `double(${v.cel})` : `(type(${v.cel}) == int ? double(${v.cel}) : ${v.cel})`, 'double', { atom: true }), cx.names, (d) =>
    frag(doubleText(d.cel, cx, style), 'string'),
  ).cel;
  const small = `${v.cel} >= -${EXACT_INT} && ${v.cel} <= ${EXACT_INT}`;
  return `${v.t === 'int' ? small : `type(${v.cel}) == int && ${small}`} ? string(${v.cel}) : ${asDouble}`;
}
