/**
 * Shallow copies of JSON maps for copy-on-write edits, chosen by whether the copy will get keys the original
 * lacks. V8 (Node 20) gives an object spread (`{ ...m }`, copyObject) a map from which every property added
 * afterwards takes the slow path (400-900 ns per copy and new key, measured on the MAP benchmark's Pods),
 * while a copy built key by key gets ordinary shared transitions; replacing values of a spread copy stays the
 * fastest. See also copyForWrites in src/merge/smp/merge.ts.
 */
import { copyObject, defineOwn, hasOwn, type JsonObject, type JsonValue } from './json.js';

/** A shallow copy that later gets new keys, built key by key (same key order as the spread). */
export function copyForNewKeys(m: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key in m) if (hasOwn(m, key)) defineOwn(out, key, m[key]!);
  return out;
}

/** A copy of `m` with `key` set to `value` (an own data property, `__proto__` included), `m` left as it is. */
export function withEntry(m: JsonObject, key: string, value: JsonValue): JsonObject {
  const copy = hasOwn(m, key) ? copyObject(m) : copyForNewKeys(m);
  defineOwn(copy, key, value);
  return copy;
}
