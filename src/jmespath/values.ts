/**
 * JSON value helpers with Go semantics: go-jmespath's truthiness and type names, encoding/json output
 * for `to_string`, and Go's byte-wise string ordering.
 */
import { hasOwn, jsonEqual } from '../ir/json.js';

export type JsonMap = Record<string, unknown>;

export function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** go-jmespath util.IsFalse: null, false, "", [] and {} are false; every number (even 0) is true. */
export function isFalse(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    for (const k in v as object) if (hasOwn(v as object, k)) return false;
    return true;
  }
  return false;
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** util.ObjsEqual is reflect.DeepEqual over decoded JSON, i.e. structural equality. */
export function objsEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(a ?? null, b ?? null);
}

/** Go compares strings byte-wise on UTF-8, which is code point order (not UTF-16 unit order). */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) {
      const cx = a.codePointAt(i)!;
      const cy = b.codePointAt(i)!;
      if (cx !== cy) return cx < cy ? -1 : 1;
      continue;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Go's strconv 'g'-free float formatting as encoding/json does it (same thresholds as JS). */
export function goJsonNumber(n: number): string {
  if (Object.is(n, -0)) return '-0';
  return String(n);
}

const JSON_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** encoding/json string encoding: HTML-safe escapes, invalid UTF-16 (lone surrogates) becomes U+FFFD. */
export function goJsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = ch.charCodeAt(0);
    const esc = JSON_ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += ch + s[i + 1]!;
        i++;
      } else out += '\\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

/** encoding/json.Marshal of a decoded JSON value: map keys sorted byte-wise, no whitespace. */
export function goJsonMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return goJsonString(v);
    case 'number':
      return goJsonNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      break;
  }
  if (Array.isArray(v)) return '[' + v.map(goJsonMarshal).join(',') + ']';
  const keys = Object.keys(v as object).sort(compareGoStrings);
  const parts = keys.map((k) => goJsonString(k) + ':' + goJsonMarshal((v as JsonMap)[k]));
  return '{' + parts.join(',') + '}';
}

/** Expands a JS number string in exponent form ("1.5e+21") to plain decimal digits. */
export function toPlainDecimal(s: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, intPart, frac = '', expStr] = m;
  const exp = Number(expStr);
  const digits = intPart! + frac;
  const point = intPart!.length + exp;
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = digits.slice(0, point) + '.' + digits.slice(point);
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/\.?0+$/, '');
  return sign + out;
}

/** strconv.FormatFloat(f, 'f', -1, 32): the shortest float32 digits, never in exponent form. */
export function formatFloat32(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const f = Math.fround(n);
  let s = String(f);
  for (let p = 1; p <= 9; p++) {
    const candidate = f.toPrecision(p);
    if (Math.fround(Number(candidate)) === f) {
      s = String(Number(candidate));
      break;
    }
  }
  return toPlainDecimal(s);
}

/** Go's `%v` of a float64 (strconv 'g' with the shortest digits, exponent when exp < -4 or >= 6). */
export function goFormatFloatG(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const sign = n < 0 ? '-' : '';
  const [mantissa, expPart] = Math.abs(n).toExponential().split('e') as [string, string];
  const exp = Number(expPart);
  if (exp < -4 || exp >= 6) {
    const ea = Math.abs(exp);
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${ea < 10 ? '0' + ea : ea}`;
  }
  return sign + toPlainDecimal(Math.abs(n).toExponential());
}

/** Go `%v` of a decoded JSON value, used in go-jmespath's type error messages. */
export function goFormatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return goFormatFloatG(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(goFormatValue).join(' ') + ']';
  const keys = Object.keys(v as object).sort(compareGoStrings);
  return 'map[' + keys.map((k) => `${k}:${goFormatValue((v as JsonMap)[k])}`).join(' ') + ']';
}
