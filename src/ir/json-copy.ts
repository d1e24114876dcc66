/**
 * Shallow copies of JSON maps for copy-on-write edits, chosen by whether the copy will get keys the original
 * lacks. V8 (Node 20) gives an object spread (`{ ...m }`, copyObject) a map from which every property added
 * afterwards takes the slow path (400-900 ns per copy and new key, measured on the MAP benchmark's Pods),
 * while Object.assign into `{}` gets ordinary shared transitions (and is about a quarter faster than a copy
 * built key by key); replacing values of a spread copy stays the fastest.
 */
import { copyObject, defineOwn, hasOwn, type JsonObject, type JsonValue } from './json.js';
import { copyByShape } from './shape-copy.js';

/**
 * A shallow copy that later gets new keys (same key order as the spread): Object.assign into `{}`; it assigns,
 * so a map with a `__proto__` key (the prototype's setter) is copied key by key.
 */
export function copyForNewKeys(m: JsonObject): JsonObject {
  // A map of a shape met before is copied by that shape's literal (shape-copy.ts), several times faster.
  const byShape = copyByShape(m);
  if (byShape !== undefined) return byShape;
  if (!hasOwn(m, '__proto__')) return Object.assign({}, m);
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
