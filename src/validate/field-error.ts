/**
 * Field errors as kube-apiserver prints them (k8s.io/apimachinery/pkg/util/validation/field): a field path in
 * `spec.rules[0].name` form, the error type's text and the bad value printed as Go prints it.
 */
import type { YamlPath } from '../io/source.js';
import type { JsonValue } from '../ir/json.js';
import { goQuote } from '../k8s/go-strings.js';

export interface FieldError {
  /** Where the error is, in the document. */
  path: YamlPath;
  /** Point at the key (an unknown or forbidden field) or at the value. */
  at: 'key' | 'value';
  message: string;
}

/** `spec.rules[0].match`: map keys joined by dots, list indices in brackets (field.Path.String). */
export function fieldPath(path: YamlPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

export { goQuote };

/** A bad value as field.Error.ErrorBody prints it: strings quoted, simple types bare, the rest as Go's `%#v`. */
export function goValue(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return goSharpV(v);
}

function goSharpV(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}` : `${v}`;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  // fmt prints map keys sorted.
  const keys = Object.keys(v).sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(v[k]!)}`).join(', ')}}`;
}

export const errorText = {
  required: (path: YamlPath, detail = ''): string => `${fieldPath(path)}: Required value${detail ? `: ${detail}` : ''}`,
  invalid: (path: YamlPath, value: JsonValue | undefined, detail: string): string => `${fieldPath(path)}: Invalid value: ${goValue(value)}: ${detail}`,
  notSupported: (path: YamlPath, value: JsonValue | undefined, allowed: readonly string[]): string =>
    `${fieldPath(path)}: Unsupported value: ${goValue(value)}: supported values: ${allowed.map(goQuote).join(', ')}`,
  tooLong: (path: YamlPath, max: number): string => `${fieldPath(path)}: Too long: may not be more than ${max} bytes`,
  tooMany: (path: YamlPath, actual: number, max: number): string => `${fieldPath(path)}: Too many: ${actual}: must have at most ${max} items`,
  duplicate: (path: YamlPath, value: JsonValue): string => `${fieldPath(path)}: Duplicate value: ${goValue(value)}`,
  forbidden: (path: YamlPath, detail: string): string => `${fieldPath(path)}: Forbidden: ${detail}`,
};
