/**
 * How Go spells JSON values in the places the strategic merge depends on the text: the value of a YAML
 * scalar node parsed from Kyverno's JSON (go-yaml v3 Node.Value), strconv and fmt float formats used by
 * Kyverno's pattern matcher, and fmt's %v in its error messages.
 */
import { isJsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';

/**
 * encoding/json float64 text (Marshal uses 'f', or 'e' below 1e-6 / from 1e21 with a one-digit exponent
 * minimum); JavaScript's Number#toString picks the same forms at the same thresholds.
 */
export function goJsonNumber(n: number): string {
  return String(n);
}

/** go-yaml v3 Node.Value of a scalar parsed from JSON text: the literal as written (null is "null"). */
export function scalarText(v: JsonScalar): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goJsonNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return 'null';
}

/** Node.Value of any node: collections have an empty Value. */
export function nodeText(v: JsonValue | undefined): string {
  if (v === undefined || Array.isArray(v) || isJsonObject(v)) return '';
  return scalarText(v);
}

function splitExponential(n: number): { mantissa: string; exp: number } {
  const [m, e] = n.toExponential().split('e');
  return { mantissa: m!, exp: Number(e) };
}

function twoDigitExp(exp: number, marker: string): string {
  const abs = Math.abs(exp);
  return `${marker}${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
}

/** strconv.FormatFloat(v, 'E', -1, 64), e.g. 3 → "3E+00". */
export function goFloatE(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const { mantissa, exp } = splitExponential(n);
  return mantissa + twoDigitExp(exp, 'E');
}

/** fmt "%f" (six decimals, never an exponent). */
export function goFloatF6(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (Math.abs(n) < 1e21) return n.toFixed(6);
  return `${BigInt(Math.trunc(n)).toString()}.000000`;
}

/** strconv.FormatFloat(v, 'g', -1, 64), which fmt's %v uses for float64. */
function goFloatG(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const { mantissa, exp } = splitExponential(n);
  if (exp < -4 || exp >= 6) return mantissa + twoDigitExp(exp, 'e');
  return String(n);
}

/** fmt %v of a decoded JSON value: maps as map[k:v ...] with sorted keys, slices as [a b]. */
export function goV(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloatG(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  const keys = Object.keys(v).sort(compareGoStrings);
  return `map[${keys.map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
}

/** Go string order (bytewise UTF-8, i.e. by code point), which differs from UTF-16 order above U+D7FF. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * The value go-yaml gives a plain scalar when decoding (YAML 1.2 core schema as go-yaml v3 resolves it):
 * kyaml creates such untagged nodes when it writes a merge key back into a list element.
 */
export function resolvePlainScalar(text: string): JsonScalar {
  if (text === '' || text === '~' || text === 'null' || text === 'Null' || text === 'NULL') return null;
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}
