/**
 * Go's formatting of the error values Kyverno's webhook returns:
 * - k8s.io/apimachinery field.Error (`<field>: <Type>[: <value>][: <detail>]`) and ErrorList.ToAggregate
 *   (duplicates dropped; one error alone, several as `[a, b]`), used by the api/kyverno/v1 Validate methods;
 * - `%q` of a string, `%v` of a []string, `%T` / reflect.Kind of a decoded JSON value.
 * A struct value that field.Invalid prints with `%#v` (a whole v1.Rule, for instance) cannot be reproduced from
 * YAML, so it is abbreviated to `v1.Rule{…}`.
 */
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import type { Issue } from './issue.js';

export { goQuote } from '../../../k8s/go-strings.js';
import { goQuote } from '../../../k8s/go-strings.js';

/** fmt `%v` of a []string. */
export function goStringSlice(xs: readonly string[]): string {
  return '[' + xs.join(' ') + ']';
}

/** fmt `%+q` of a []string. */
export function goQuotedSlice(xs: readonly string[]): string {
  return '[' + xs.map(goQuote).join(' ') + ']';
}

/** fmt `%T` of a value decoded by encoding/json into interface{}. */
export function goTypeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** reflect.Kind of the same value, as `%v` prints it. */
export function goKindName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'invalid';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'slice';
  return isJsonObject(v) ? 'map' : 'invalid';
}

/** A Go struct printed with `%#v`, abbreviated (see the module comment). */
export function goStruct(type: string): string {
  return `${type}{…}`;
}

/** field.Invalid(path, value, detail).Error() for a string, number or pre-formatted value. */
export function fieldInvalid(field: string, value: string | number | { raw: string }, detail: string): string {
  const shown = typeof value === 'string' ? goQuote(value) : typeof value === 'number' ? String(value) : value.raw;
  return `${field}: Invalid value: ${shown}: ${detail}`;
}

export function fieldRequired(field: string, detail = ''): string {
  return detail === '' ? `${field}: Required value` : `${field}: Required value: ${detail}`;
}

export function fieldForbidden(field: string, detail: string): string {
  return `${field}: Forbidden: ${detail}`;
}

export function fieldTooLong(field: string, max: number): string {
  return `${field}: Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`;
}

/**
 * field.ErrorList.ToAggregate().Error(): duplicate messages dropped, a single error as is, several in brackets.
 * The span is the first error's.
 */
export function aggregate(issues: readonly Issue[]): Issue | undefined {
  const seen = new Set<string>();
  const kept: Issue[] = [];
  for (const i of issues) {
    if (seen.has(i.message)) continue;
    seen.add(i.message);
    kept.push(i);
  }
  if (kept.length === 0) return undefined;
  if (kept.length === 1) return kept[0];
  return { message: '[' + kept.map((i) => i.message).join(', ') + ']', at: kept[0]!.at };
}
