/**
 * Go `fmt` verbs that upstream error messages use (`%q`, `%v`), so that a refused mutator reads exactly like
 * Gatekeeper's webhook answer. Only the cases reachable from decoded JSON values are covered.
 */

export { goQuote } from '../../k8s/go-strings.js';

/**
 * Go's `%v` of a float64: `strconv.FormatFloat(f, 'g', -1, 64)`, the shortest digits, in exponent form when
 * the decimal exponent is < -4 or >= 6 (strconv/ftoa.go: "if precision was the shortest possible, use
 * precision 6 for this decision"), so 1000000 prints as `1e+06`.
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    // Go pads the exponent to two digits ("1e-07", "1e+06").
    const sign = exp < 0 ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(f);
}

/**
 * Go's `%v` (and `%+v`) of a value decoded by encoding/json: maps print as `map[k:v ...]` with sorted keys,
 * slices as `[a b]`, nil as `<nil>`; numbers are float64 (assign.value is decoded that way), bigints are the
 * int64 key values of a location.
 */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`).join(' ')}]`;
  }
  return String(v);
}
