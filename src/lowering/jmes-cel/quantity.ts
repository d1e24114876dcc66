/**
 * Kyverno's quantity arithmetic in CEL: `add('100Mi', '28Mi')` is `128Mi` (arithmetic.go quantity.Add →
 * resource.Quantity Add/Sub, then String()). The Kubernetes quantity library parses and adds exactly, but has
 * no way back to text, so the canonical form (apimachinery quantity.go CanonicalizeBytes) is printed here
 * from the integer value, which covers every whole-number result within int64:
 * - the format is the left operand's, or the right one's when the left is zero (Quantity.Add, Quantity.Sub);
 *   a string's format is that of its suffix: `Ki`…`Ei` binary, `e3`/`E3` exponent, anything else decimal;
 * - zero prints as `0`;
 * - binary with |n| < 1024 prints as decimal; otherwise n / 1024^k with the largest k dividing n
 *   (removeInt64Factors) and the suffix of 1024^k;
 * - decimal and exponent print n / 1000^k with the largest k ≤ 6 dividing n (all factors of ten removed, then
 *   as many put back as make the exponent a multiple of three: AsCanonicalBytes), the suffix `k`…`E` or `e3`…`e18`.
 * A fractional result (`100m` + `1`) or one beyond int64 fails, under a note.
 */
import type { Cx } from './context.js';
import { cond, fail, frag, tfrag, type Frag } from './frag.js';
import { T } from './types.js';

export const QUANTITY_NOTE =
  'Kyverno add and subtract of quantity strings ("100Mi") are computed with the Kubernetes quantity library and printed in canonical form when the result is a whole number within int64; the CEL fails on other quantity results, on Go duration strings ("1h") and on other arithmetic of quantities and durations (multiply, divide, modulo, sum), which Kyverno computes';

/** Powers of `base` from base^6 down to base^0, each with its suffix (`suffixes` from the largest). */
function powers(base: bigint, suffixes: readonly string[]): [bigint, string][] {
  return suffixes.map((suffix, i) => [base ** BigInt(suffixes.length - 1 - i), suffix]);
}

const DECIMAL = powers(1000n, ['E', 'P', 'T', 'G', 'M', 'k', '']);
const EXPONENT = powers(1000n, ['e18', 'e15', 'e12', 'e9', 'e6', 'e3', '']);
const BINARY = powers(1024n, ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki', '']);

/** `n` as `n / p` and the suffix of the largest power `p` in `table` dividing it (the table ends with 1). */
function scaled(n: string, table: [bigint, string][], cx: Cx): string {
  const p = cx.names.fresh('p');
  const powers = table.map(([q]) => String(q)).join(', ');
  const suffixes = table.map(([q, s]) => `${q}: "${s}"`).join(', ');
  return `[${powers}].filter(${p}, ${n} % ${p} == 0).map(${p}, string(${n} / ${p}) + {${suffixes}}[${p}])[0]`;
}

/** The canonical text of the whole number `n` for the format of the quantity string `format`. */
function canonical(n: string, format: string, cx: Cx): string {
  const decimal = scaled(n, DECIMAL, cx);
  return (
    `${n} == 0 ? "0" : ` +
    `${format}.matches("[KMGTPE]i$") && (${n} <= -1024 || ${n} >= 1024) ? ${scaled(n, BINARY, cx)} : ` +
    `${format}.matches("[eE][+-]?[0-9]+$") ? ${scaled(n, EXPONENT, cx)} : ${decimal}`
  );
}

/**
 * `a op b` for two (bound) operands known to be quantity strings at this point: the canonical text of the
 * result, failing where that is not a whole number within int64.
 */
export function quantityArithmetic(a: Frag, b: Frag, method: 'add' | 'sub', cx: Cx): Frag {
  const q = cx.names.fresh('q');
  const n = cx.names.fresh('n');
  const format = `(quantity(${a.cel}).sign() == 0 ? ${b.cel} : ${a.cel})`;
  const printed = frag(`[${q}.asInteger()].map(${n}, ${canonical(n, format, cx)})[0]`, 'string', { atom: true });
  const body = cond(`${q}.isInteger()`, printed, fail(`${method === 'add' ? 'add' : 'subtract'}(): a quantity result that is not a whole number within int64 is not printed in CEL`));
  return tfrag(`[quantity(${a.cel}).${method}(quantity(${b.cel}))].map(${q}, ${body.cel})[0]`, T.string, { err: true, atom: true });
}
