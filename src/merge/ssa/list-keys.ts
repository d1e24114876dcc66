/**
 * Identity of list items in associative lists (typed/helpers.go listItemToPathElement): sets are keyed by
 * the scalar value, map-lists by the tuple of key fields (sorted by name), a missing key field taking the
 * element type's default. Identities are canonical strings so that lookups are hash lookups; equality
 * follows value.Equals (numbers compare numerically, map entries unordered).
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { keyElementString, valueElementString } from './go-format.js';
import type { ListType, Schema } from './schema.js';

/** A canonical string for a value: equal strings ⇔ value.Equals. */
export function canonicalValue(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i === 0 ? '' : ',') + canonicalValue(v[i]!);
    return s + ']';
  }
  const keys = Object.keys(v).sort();
  let s = '{';
  for (let i = 0; i < keys.length; i++) s += (i === 0 ? '' : ',') + JSON.stringify(keys[i]) + ':' + canonicalValue(v[keys[i]!]!);
  return s + '}';
}

/** A failure to key an item; a class so that it can never be confused with a JSON value. */
class KeyError {
  constructor(readonly error: string) {}
}

/** For list types made without makeListType (sortedKeys unset). */
const sortedKeysCache = new WeakMap<ListType, readonly string[]>();

function sortedKeys(list: ListType): readonly string[] {
  if (list.sortedKeys !== undefined) return list.sortedKeys;
  let keys = sortedKeysCache.get(list);
  if (keys === undefined) {
    keys = [...list.keys].sort();
    sortedKeysCache.set(list, keys);
  }
  return keys;
}

/**
 * The identity of an item: equal ids (SameValueZero, as Map and Set compare) ⇔ equal keys. A scalar key is
 * its own id (no string built per item), except a string that could read as a canonical string, which is
 * quoted: an id that is a string starting with `"`, `{` or `[` is canonicalValue's (a quoted string, a
 * map or a list) or, for several key fields, a `"name":value,...` tuple; the ids of one list all come from
 * the same key fields, so a tuple never meets a single value.
 */
export type ItemId = string | number | boolean | null;

export { KeyError as ItemKeyError };

/**
 * The identity of an item, or a KeyError with the upstream error text when the item cannot be keyed.
 * Requires `list.elementRelationship === 'associative'`; callers check (the merge reports
 * "invalid indexing of non-associative list" itself).
 */
export function associativeItemId(schema: Schema, list: ListType, item: JsonValue): ItemId | KeyError {
  if (list.keys.length > 0) return keyedItemId(schema, list, item);
  return setItemId(item);
}

function scalarId(v: JsonValue): ItemId {
  if (v === null || typeof v !== 'object') {
    if (typeof v !== 'string') return v;
    const c = v.charCodeAt(0);
    // `"`, `{`, `[`: quoted, so that it cannot meet a canonical string.
    return c === 34 || c === 123 || c === 91 ? JSON.stringify(v) : v;
  }
  return canonicalValue(v);
}

const NULL_IN_SET = new KeyError("associative list without keys has an element that's an explicit null");
const LIST_IN_SET = new KeyError('not supported: associative list with lists as elements');
const MAP_IN_SET = new KeyError("associative list without keys has an element that's a map type");
const NULL_IN_MAP_LIST = new KeyError('associative list with keys may not have a null element');
const NON_MAP_IN_MAP_LIST = new KeyError('associative list with keys may not have non-map elements');

function setItemId(item: JsonValue): ItemId | KeyError {
  if (item === null) return NULL_IN_SET;
  if (Array.isArray(item)) return LIST_IN_SET;
  if (typeof item === 'object') return MAP_IN_SET;
  return scalarId(item);
}

function keyedItemId(schema: Schema, list: ListType, item: JsonValue): ItemId | KeyError {
  if (item === null) return NULL_IN_MAP_LIST;
  if (!isJsonObject(item)) return NON_MAP_IN_MAP_LIST;
  const keys = sortedKeys(list);
  if (keys.length === 1) {
    // One key field (containers, ports by name...): every id of the list would start with the same name,
    // which identifies nothing.
    const value = keyFieldValue(schema, list, item, keys[0]!);
    if (value instanceof KeyError) return value;
    return scalarId(value);
  }
  let id = '';
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i]!;
    const value = keyFieldValue(schema, list, item, name);
    if (value instanceof KeyError) return value;
    id += (i === 0 ? '' : ',') + JSON.stringify(name) + ':' + canonicalValue(value);
  }
  return id;
}

/** The key field's value, its schema default, or an error (helpers.go keyedAssociativeListItemToPathElement). */
function keyFieldValue(schema: Schema, list: ListType, item: JsonObject, name: string): JsonValue | KeyError {
  if (hasOwn(item, name)) return item[name]!;
  const atom = schema.resolve(list.elementType);
  if (atom === undefined) return new KeyError(`couldn't find default value for ${name}: invalid elementType for list`);
  if (atom.map === undefined) {
    return new KeyError(`couldn't find default value for ${name}: associative list may not have non-map types`);
  }
  const def = atom.map.fieldIndex.get(name)?.default;
  if (def !== undefined) return def;
  return new KeyError(`associative list with keys has an element that omits key field "${name}" (and doesn't have default value)`);
}

/** The keying error of an item, if any, without building its identity (for duplicate-tolerant walks). */
export function associativeItemError(schema: Schema, list: ListType, item: JsonValue): string | undefined {
  if (list.keys.length === 0) {
    const k = setItemId(item);
    return k instanceof KeyError ? k.error : undefined;
  }
  if (item === null) return 'associative list with keys may not have a null element';
  if (!isJsonObject(item)) return 'associative list with keys may not have non-map elements';
  for (const name of sortedKeys(list)) {
    if (hasOwn(item, name)) continue;
    const v = keyFieldValue(schema, list, item, name);
    if (v instanceof KeyError) return v.error;
  }
  return undefined;
}

/** fieldpath.PathElement.String() of an item that has a valid key: `[name="x"]` or `[=value]`. */
export function associativeItemString(schema: Schema, list: ListType, item: JsonValue): string {
  if (list.keys.length === 0) return valueElementString(item);
  const fields: [string, JsonValue][] = [];
  for (const name of sortedKeys(list)) {
    const v = keyFieldValue(schema, list, item as JsonObject, name);
    fields.push([name, v instanceof KeyError ? null : v]);
  }
  return keyElementString(fields);
}
