/**
 * Renders JSON values the way structured-merge-diff's error messages print Go values, so that our errors
 * carry the apiserver's wording. JSON integers are int64 and other numbers float64, as after decoding an
 * unstructured object. Only error texts depend on this module.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { goQuote } from '../../k8s/go-strings.js';

/** Go `%v` of a float64 (strconv 'g' with shortest digits): exponent form when exp < -4 or exp >= 6. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // strconv/ftoa.go: with the shortest precision, %e is chosen when exp < -4 || exp >= 6.
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mantissa}e${sign}${abs < 10 ? '0' : ''}${abs}`;
  }
  return String(f);
}

function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

/** sigs.k8s.io/structured-merge-diff/v6/value.ToString: used for map-list keys and set values in paths. */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return goNumber(v);
    case 'string':
      return goQuote(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  const obj = v as JsonObject;
  return Object.keys(obj)
    .map((k) => `${k}=${valueToString(obj[k]!)}`)
    .join('');
}

/** Go `%v` of a plain interface{} holding the value (maps print sorted, like fmt). */
function goPlainV(v: JsonValue): string {
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'number':
      return goNumber(v);
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[${v.map(goPlainV).join(' ')}]`;
  const obj = v as JsonObject;
  const keys = Object.keys(obj).sort();
  return `map[${keys.map((k) => `${k}:${goPlainV(obj[k]!)}`).join(' ')}]`;
}

/** Go `%v` of a value.Value (a *valueUnstructured): `&{...}`. */
export function goValueV(v: JsonValue): string {
  return `&{${goPlainV(v)}}`;
}

/** Go `%#v` of a plain interface{} holding the value. */
function goSharpPlain(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  switch (typeof v) {
    case 'number':
      return goNumber(v);
    case 'string':
      return goQuote(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpPlain).join(', ')}}`;
  const obj = v as JsonObject;
  const keys = Object.keys(obj).sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpPlain(obj[k]!)}`).join(', ')}}`;
}

/** Go `%#v` of a value.Value: `&value.valueUnstructured{Value:...}`. */
export function goValueSharpV(v: JsonValue): string {
  return `&value.valueUnstructured{Value:${goSharpPlain(v)}}`;
}

/** Go `%T` of the unstructured form of the value. */
export function goTypeName(v: JsonValue): string {
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** fieldpath.PathElement.String() for a field name. */
export function fieldElementString(name: string): string {
  return `.${name}`;
}

/** fieldpath.PathElement.String() for an index. */
export function indexElementString(i: number): string {
  return `[${i}]`;
}

/** fieldpath.PathElement.String() for a set value. */
export function valueElementString(v: JsonValue): string {
  return `[=${valueToString(v)}]`;
}

/** fieldpath.PathElement.String() for map-list keys, already sorted by name. */
export function keyElementString(fields: readonly (readonly [string, JsonValue])[]): string {
  return `[${fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
}
