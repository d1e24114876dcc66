/**
 * map-run-patch.ts for JSONPatch steps whose path goes through list items, or that append to a list: the
 * shapes MAP policies write to add a container, a toleration, a volume or an environment variable
 * (`/spec/tolerations/-`, `/spec/containers/0/env/-`, `/spec/containers/1/image`). Without this, each such step
 * went to the op's own path, which decodes and types the whole object again (measured: about 2 µs per step on
 * a Pod, where the member steps take a tenth of that).
 *
 * Taken: an index on the way written as evanphx's atoi reads it and in range (`0`, `12`; a sign, a leading
 * zero or `-` on the way is left to the op, which words its error), the containers on the way present; the
 * last piece a member of a map (add or replace, as for members) or `-` on a list (add: evanphx appends). The
 * value must type strictly at the item or member and decode into its Go type (as for members) and, on an
 * associative list, be keyable: a typed object's items are, and the next ApplyConfiguration types the object
 * with duplicates allowed (fast-checks.ts keyable). A remove of a map's member (on any path) is taken where the
 * member is there and is no key field of a list item. Inserting at an index, and replacing or removing an
 * item, are left to the op.
 */
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { copyForNewKeys } from '../ir/json-copy.js';
import { keyable } from '../merge/ssa/fast-checks.js';
import type { ListType, Schema } from '../merge/ssa/schema.js';
import type { TypeNode } from '../merge/ssa/type-nodes.js';
import type { MemberWrite } from './member-place-code.js';

/** Where a step through list items writes: the container holding the place, and the place's type node. */
export interface ItemPlace {
  readonly parent: JsonObject | JsonValue[];
  /** Undefined for a remove, which sets nothing to type. */
  readonly node: TypeNode | undefined;
  /** The list appended to, when the step appends. */
  readonly list: ListType | undefined;
  /** The list whose item `parent` is, when it is one (a remove must not take a key field out of it). */
  readonly itemOf: ListType | undefined;
}

/** The index `piece` names in a list of `length` items when evanphx reads it so (no sign, no leading zero), else -1. */
function canonicalIndex(piece: string, length: number): number {
  const n = piece.length;
  if (n === 0 || n > 9 || (n > 1 && piece.charCodeAt(0) === 48)) return -1;
  let idx = 0;
  for (let i = 0; i < n; i++) {
    const d = piece.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    idx = idx * 10 + d;
  }
  return idx < length ? idx : -1;
}

/**
 * The place of `path` (decoded pieces, the root's empty one first) in `doc` typed at `root`, for an `op`
 * step, or undefined where the step is left to the op (see the header).
 */
export function itemPlace(root: TypeNode, doc: JsonObject, path: readonly string[], op: string): ItemPlace | undefined {
  const last = path.length - 1;
  let node: TypeNode | undefined = root;
  let c: JsonValue = doc;
  let itemOf: ListType | undefined;
  for (let j = 1; j < last; j++) {
    const piece = path[j]!;
    if (node.atom === undefined) return undefined;
    if (Array.isArray(c)) {
      if (node.list === undefined) return undefined;
      const idx = canonicalIndex(piece, c.length);
      if (idx < 0) return undefined;
      c = c[idx]!;
      itemOf = node.list;
      node = node.item;
    } else {
      if (node.map === undefined || !hasOwn(c as JsonObject, piece)) return undefined;
      c = (c as JsonObject)[piece]!;
      itemOf = undefined;
      node = node.keyNode(piece);
      if (node === undefined) return undefined;
    }
    if (c === null || typeof c !== 'object') return undefined;
  }
  if (node.atom === undefined) return undefined;
  if (Array.isArray(c)) {
    if (op !== 'add' || path[last] !== '-' || node.list === undefined) return undefined;
    return { parent: c, node: node.item, list: node.list, itemOf };
  }
  if (node.map === undefined) return undefined;
  if (op === 'remove') return { parent: c, node: undefined, list: undefined, itemOf };
  const member = node.keyNode(path[last]!);
  return member === undefined ? undefined : { parent: c, node: member, list: undefined, itemOf };
}

/**
 * Whether a remove of `key` from the map `place.parent` is taken: the member is there (evanphx fails on a
 * missing one: the op words it), and it is not a key field of the associative list item it would leave
 * without its key.
 */
export function removable(place: ItemPlace, key: string): boolean {
  const p = place.parent;
  if (Array.isArray(p) || !hasOwn(p, key)) return false;
  const list = place.itemOf;
  return list === undefined || list.elementRelationship !== 'associative' || !list.keys.includes(key);
}

/** Whether the appended `value` keeps `list` typing as a typed object's list does (see the header). */
export function appendable(schema: Schema, list: ListType, value: JsonValue): boolean {
  return list.elementRelationship !== 'associative' || keyable(schema, list, value);
}

/**
 * Writes `value` at `path` in `doc` (whose place itemPlace found): the containers from the root down to the
 * place's are a copy this patch made earlier, an owned one reached through owned ones (written in place), or
 * copied (pushed to `w.created`); a `-` appends, REMOVE_MEMBER takes the member out. Returns the root.
 * MemberPlaceCode.write by a loop over the pieces, through lists too (a path of members is written by it where
 * no code was made for it).
 */
export function writeThroughItems(doc: JsonObject, path: readonly string[], value: JsonValue | typeof REMOVE_MEMBER, w: MemberWrite): JsonObject {
  const last = path.length - 1;
  let out = doc;
  let m: JsonObject | JsonValue[] = doc;
  let above: JsonObject | JsonValue[] | undefined;
  let chain = true;
  for (let j = 1; ; j++) {
    if (w.created !== undefined && w.created.includes(m)) chain = false;
    else if (chain && w.owned.has(m)) w.inPlace = true;
    else {
      const copy: JsonObject | JsonValue[] = Array.isArray(m) ? m.slice() : copyForNewKeys(m);
      (w.created ??= []).push(copy);
      if (above === undefined) out = copy as JsonObject;
      else setIn(above, path[j - 1]!, copy);
      m = copy;
      chain = false;
    }
    if (j === last) break;
    above = m;
    m = (Array.isArray(m) ? m[Number(path[j])] : m[path[j]!]) as JsonObject | JsonValue[];
  }
  if (value === REMOVE_MEMBER) delete (m as JsonObject)[path[last]!];
  else if (Array.isArray(m)) m.push(value);
  else defineOwn(m, path[last]!, value);
  return out;
}

/** writeThroughItems's value for a remove: the member is taken out. */
export const REMOVE_MEMBER: unique symbol = Symbol('remove the member');

function setIn(container: JsonObject | JsonValue[], piece: string, value: JsonValue): void {
  if (Array.isArray(container)) container[Number(piece)] = value;
  else defineOwn(container, piece, value);
}

/** The member `path` names in `doc`, through maps and list items (none written in a way that moves them). */
export function memberNow(doc: JsonObject, path: readonly string[]): JsonValue | undefined {
  let c: JsonValue | undefined = doc;
  for (let j = 1; j < path.length && c !== undefined; j++) {
    if (Array.isArray(c)) c = c[Number(path[j])];
    else if (isJsonObject(c)) c = hasOwn(c, path[j]!) ? c[path[j]!] : undefined;
    else return undefined;
  }
  return c;
}
