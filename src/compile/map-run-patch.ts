/**
 * A MAP JSONPatch's steps applied by a run of mutations (map-rule-runs.ts) itself, for the patches policies
 * nearly always write: adds, replaces and removes of object members (evanphx v4 replaces a member a map lacks as it
 * adds it: partialDoc.get never fails), each value typing strictly at a field its kind declares, on an object
 * known to type cleanly. The op's own path (ops/json-patch.ts, evanphx-v4-in-place.ts, then the strict decode
 * of patch/json_patch.go) would give the same document: its decode asks that every field be declared and that
 * each value set decode into its Go type, which a value typing strictly and decoding (go-decode-types.ts) at a
 * declared place in a typed object does. Anything else is left to the op, with nothing
 * changed: another step kind, a missing or non-object container on a path, `apiVersion` or `kind` (they pick
 * the schema), a value that does not type there, and steps whose paths nest or repeat (each step is checked
 * against the document before any is written, which holds only for unrelated places; appends to one list are
 * unrelated places). Paths through list items and appends are map-run-patch-items.ts's.
 */
import { memberPlaceNode, type ApplyRunFacts } from '../engines/ssa.js';
import { holdsAny } from '../interpreter/ops/merge.js';
import { sameJson } from '../interpreter/same-json.js';
import { newEpoch, type Owned } from '../interpreter/walk.js';
import { hasOwn, type JsonObject, type JsonValue } from '../ir/json.js';
import type { PatchStep } from '../jsonpatch/apply.js';
import { decodedPath } from '../jsonpatch/evanphx-v4.js';
import type { PlaceMemo } from '../jsonpatch/evanphx-v4-in-place.js';
import type { Schema } from '../merge/ssa/schema.js';
import type { TypeNode } from '../merge/ssa/type-nodes.js';
import { typesStrictlyGuarded } from '../merge/ssa/fast-checks.js';
import { goDecodes } from '../merge/ssa/go-decode-types.js';
import { typesCleanlyRemembering } from '../merge/ssa/validate.js';
import { memberPlaceCode, type MemberPlaceCode, type MemberWrite } from './member-place-code.js';
import { appendable, itemPlace, memberNow, removable, REMOVE_MEMBER, writeThroughItems, type ItemPlace } from './map-run-patch-items.js';

/** What the run holds between its mutations (map-rule-runs.ts Holding). */
export interface PatchHolding {
  owned: Owned;
  changedInPlace: boolean;
}

/**
 * The document after `steps`, or undefined (nothing changed) when the op must apply them. `doc` is the
 * object; maps of `hold.owned` are written in place, others copied and then owned.
 */
export function patchMembers(facts: ApplyRunFacts, hold: PatchHolding, doc: JsonObject, steps: readonly PatchStep[]): JsonObject | undefined {
  const { schema, typeRef, checked } = facts;
  // The op's decode runs on an empty patch too: a typed object declares every field.
  if (!typesCleanlyRemembering(schema, typeRef, doc, checked)) return undefined;
  if (steps.length === 0) return doc;
  const root = schema.node(typeRef);
  // The first step's container in `doc`: where the first write finds it (nothing is written before it).
  let firstParent: JsonObject | undefined;
  // Per step, its place when its path goes through list items or appends (map-run-patch-items.ts); made at the first such step.
  let items: (ItemPlace | undefined)[] | undefined;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const remove = s.op === 'remove';
    if ((s.op !== 'add' && s.op !== 'replace' && !remove) || s.path.charCodeAt(0) !== 47) return undefined;
    const path = s.segments ?? decodedPath(s.path);
    const last = path.length - 1;
    if (last < 1 || path[1] === 'apiVersion' || path[1] === 'kind') return undefined;
    const code = placeCode(s, path);
    const parent = code !== undefined ? code.parent(doc) : parentOf(doc, path);
    const value = stepValue(s);
    if (remove) {
      const place: ItemPlace | undefined = parent !== undefined ? { parent, node: undefined, list: undefined, itemOf: undefined } : itemPlace(root, doc, path, 'remove');
      if (place === undefined || !removable(place, path[last]!)) return undefined;
      (items ??= new Array<ItemPlace | undefined>(steps.length).fill(undefined))[i] = place;
    } else if (parent !== undefined) {
      if (i === 0) firstParent = parent;
      const node = memberPlaceNode(root, path, s.place);
      if (node === undefined || !typesAt(schema, node, value, s.place)) return undefined;
    } else {
      const place = itemPlace(root, doc, path, s.op);
      if (place === undefined || !typesAt(schema, place.node!, value, s.place) || (place.list !== undefined && !appendable(schema, place.list, value))) return undefined;
      (items ??= new Array<ItemPlace | undefined>(steps.length).fill(undefined))[i] = place;
    }
    for (let j = 0; j < i; j++) {
      // Appends to one list are two places; any other pair of paths one of which holds the other is left to the op.
      if (nested(path, steps[j]!.segments ?? decodedPath(steps[j]!.path)) && !(items?.[i]?.list !== undefined && items[j]?.list !== undefined)) return undefined;
    }
  }
  // A value holding a map the run owns would give it a second parent (ops/json-patch.ts inPlaceOwner).
  for (let i = 0; i < steps.length; i++) {
    const v = steps[i]!.value;
    if (v !== undefined && v !== null && typeof v === 'object' && holdsAny(v, hold.owned)) {
      hold.owned = newEpoch();
      break;
    }
  }
  const w: MemberWrite = { owned: hold.owned, created: undefined, inPlace: false };
  let out = doc;
  // Whether a member was added, or set to a value unequal to the one it held: the paths are unrelated (checked
  // above), so the document is equal to `doc` exactly when neither happened.
  let differs = false;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const path = s.segments ?? decodedPath(s.path);
    const key = path[path.length - 1]!;
    const value = stepValue(s);
    const place = items?.[i];
    if (place !== undefined) {
      if (place.node === undefined) {
        // A remove of a member that is there (removable).
        differs = true;
        out = writeThroughItems(out, path, REMOVE_MEMBER, w);
        continue;
      }
      if (place.list !== undefined) differs = true;
      else {
        const had = memberNow(out, path);
        if ((value === null || typeof value !== 'object') && had === value) continue;
        if (!differs) differs = had === undefined || !sameJson(had, value);
      }
      out = writeThroughItems(out, path, value, w);
      continue;
    }
    const code = placeCode(s, path);
    const parent = i === 0 ? firstParent! : code !== undefined ? code.parent(out)! : parentOf(out, path)!;
    const had = hasOwn(parent, key) ? parent[key] : undefined;
    // A member that already holds the scalar is left as it is (evanphx-v4-in-place.ts does the same).
    if ((value === null || typeof value !== 'object') && had === value) continue;
    if (!differs) differs = had === undefined || !sameJson(had, value);
    out = code !== undefined ? code.write(out, value, w) : writeThroughItems(out, path, value, w);
  }
  const inPlace = w.inPlace;
  if (inPlace) hold.changedInPlace = true;
  else if (!differs && out !== doc) {
    // Copies only, to an equal document: it keeps its identity, and nothing is owned (as patchInPlace).
    hold.owned = newEpoch();
    return doc;
  }
  const created = w.created;
  if (created !== undefined) for (let i = 0; i < created.length; i++) hold.owned.add(created[i]!);
  checked.noteValidDocument(typeRef, out);
  return out;
}

/** The step's place's code (member-place-code.ts), made once per kept place; undefined for a step without one. */
function placeCode(s: PatchStep, path: readonly string[]): MemberPlaceCode | undefined {
  const memo = s.place;
  if (memo === undefined) return undefined;
  if (memo.code === undefined) memo.code = memberPlaceCode(path) ?? null;
  return (memo.code as MemberPlaceCode | null) ?? undefined;
}

/** MemberPlaceCode.parent by a loop over the pieces. */
function parentOf(doc: JsonObject, path: readonly string[]): JsonObject | undefined {
  let cur: JsonValue | undefined = doc;
  for (let j = 1; j < path.length - 1; j++) {
    cur = hasOwn(cur as JsonObject, path[j]!) ? (cur as JsonObject)[path[j]!] : undefined;
    if (cur === undefined || cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
  }
  return cur as JsonObject;
}

/**
 * Whether `value` types strictly at `node` (typesStrictlyGuarded, unguarded: the place is declared) and
 * decodes into its Go type there (go-decode-types.ts: an IntOrString, Quantity or Time the schema's `untyped`
 * takes may not). `memo` is the step's place: a frozen value (a constant of the program, frozen whole) found
 * to do both at `node` is remembered with it, and the same value at the same node checked once.
 */
function typesAt(schema: Schema, node: TypeNode, value: JsonValue, memo: PlaceMemo | undefined): boolean {
  if (value === null || typeof value !== 'object' || memo === undefined || !Object.isFrozen(value)) return typesStrictlyGuarded(schema, node, value, false) && goDecodes(node, value);
  if (memo.typedValue === value && memo.typedAt === node) return true;
  if (!typesStrictlyGuarded(schema, node, value, false) || !goDecodes(node, value)) return false;
  memo.typedValue = value;
  memo.typedAt = node;
  return true;
}

/** The value a step sets (evanphx: an add or replace without `value` sets null). */
function stepValue(s: PatchStep): JsonValue {
  return s.hasValue === false ? null : (s.value ?? null);
}

/** One path is the other or lies below it. */
function nested(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 1; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
