/**
 * What generated code calls: the few operations of the closure interpreter's walk (src/interpreter/walk.ts)
 * that are not worth writing out inline. Passed to every generated function as its first argument, so the
 * generated source refers to nothing global and stays a pure function of its IR node.
 */
import { copyObject, defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../ir/json.js';
import { evalFailure, jsonTypeName } from '../interpreter/failure.js';
import { REMOVE, TOUCHED, UNCHANGED, own, withoutOwnKey, type WalkOptions } from '../interpreter/walk.js';

export interface Helpers {
  UNCHANGED: typeof UNCHANGED;
  REMOVE: typeof REMOVE;
  TOUCHED: typeof TOUCHED;
  isJsonObject: typeof isJsonObject;
  hasOwn: typeof hasOwn;
  defineOwn: typeof defineOwn;
  jsonEqual: typeof jsonEqual;
  own: typeof own;
  /** The map to write `name` into: a fresh one, the owned one itself, or an owned copy (walkField). */
  writableMap(map: JsonObject | undefined, opts: WalkOptions): JsonObject;
  /** The map without `name` (walk.ts withoutOwnKey, walkField's REMOVE). */
  withoutKey(map: JsonObject, name: string, opts: WalkOptions): JsonObject;
  /** The list to write into: a fresh one, the owned one itself, or an owned copy (ListWrite.writable). */
  writableList(list: JsonValue[] | undefined, opts: WalkOptions): JsonValue[];
  /** The list without the elements a leaf removed (ListWrite.result). */
  withoutRemoved(list: JsonValue[], opts: WalkOptions): JsonValue[];
  /** walk.ts's shape-mismatch error, with the op's origin. */
  mismatch(expected: 'object' | 'List', found: unknown, opts: WalkOptions): never;
}

export const HELPERS: Helpers = Object.freeze({
  UNCHANGED,
  REMOVE,
  TOUCHED,
  isJsonObject,
  hasOwn,
  defineOwn,
  jsonEqual,
  own,
  writableMap(map: JsonObject | undefined, opts: WalkOptions): JsonObject {
    if (map === undefined) return own(opts, {});
    if (opts.owned.has(map)) {
      opts.inPlace++;
      return map;
    }
    return own(opts, copyObject(map));
  },
  withoutKey: withoutOwnKey,
  writableList(list: JsonValue[] | undefined, opts: WalkOptions): JsonValue[] {
    if (!list) return own(opts, []);
    if (opts.owned.has(list)) {
      opts.inPlace++;
      return list;
    }
    return own(opts, list.slice());
  },
  withoutRemoved(list: JsonValue[], opts: WalkOptions): JsonValue[] {
    const marker = REMOVE as unknown;
    return own(opts, list.filter((v) => (v as unknown) !== marker));
  },
  mismatch(expected: 'object' | 'List', found: unknown, opts: WalkOptions): never {
    throw evalFailure('TM3001', `mismatch between path entry (type: ${expected}) and received object (type: ${jsonTypeName(found)})`, opts.origin);
  },
});
