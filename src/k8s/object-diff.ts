/**
 * The first place two JSON objects differ, as a JSON pointer and a readable message
 * (`at /spec/containers/0/image: expected "x", got "y"`): what test runners report when a mutated object is not
 * the expected one.
 */
import { hasOwn, isJsonObject, jsonEqual, type JsonValue } from '../ir/json.js';

export interface Difference {
  /** JSON pointer of the first place the two values differ. */
  path: string;
  message: string;
}

export function describeDifference(d: Difference): string {
  return `at ${d.path === '' ? '/' : d.path}: ${d.message}`;
}

/** A JSON round trip: what Go's encoding/json would print (Gatekeeper decodes numbers as float64). */
export function jsonNormalize(v: JsonValue | undefined): JsonValue | undefined {
  return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as JsonValue);
}

/**
 * The first place two JSON values differ: map key order is not significant, list order is. `placeholder`
 * lets an expected string stand for a class of actual values.
 */
export function firstDifference(
  expected: JsonValue | undefined,
  actual: JsonValue | undefined,
  path = '',
  placeholder?: (expected: string, actual: JsonValue) => boolean,
): Difference | undefined {
  if (expected === undefined || actual === undefined) {
    if (expected === actual) return undefined;
    return { path, message: `expected ${showJson(expected)}, got ${showJson(actual)}` };
  }
  if (typeof expected === 'string' && placeholder?.(expected, actual)) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}/${i}`, placeholder);
      if (d) return d;
    }
    return undefined;
  }
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const k of Object.keys(expected)) {
      const d = firstDifference(expected[k], hasOwn(actual, k) ? actual[k] : undefined, `${path}/${escapePointer(k)}`, placeholder);
      if (d) return d;
    }
    for (const k of Object.keys(actual).sort()) {
      if (!hasOwn(expected, k)) return { path: `${path}/${escapePointer(k)}`, message: `expected nothing, got ${showJson(actual[k])}` };
    }
    return undefined;
  }
  if (jsonEqual(expected, actual)) return undefined;
  return { path, message: `expected ${showJson(expected)}, got ${showJson(actual)}` };
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function showJson(v: JsonValue | undefined): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
