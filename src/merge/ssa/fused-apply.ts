/**
 * applyStructuredMergeDiff (apply.ts, with the atomic guard, `checked` and `keepEqual`) for the patches MAP's
 * ApplyConfigurations nearly always are, in one walk: the patch is typed strictly and guarded where the merge
 * meets it, instead of in a walk of its own before the merge, and maps that earlier merges of the evaluation
 * created (`owned`, see MergeOwnership in src/interpreter/engines.ts) are written in place instead of copied.
 *
 * It answers only when the result is surely the reference's and free of errors: anything else (a value that
 * does not type, an atomic or empty leaf, a null in the patch, a list shape other than simpleListItems's two,
 * a schema with unmergeable lists, a live object that does not type) gives up with nothing changed, and the
 * caller runs the reference, which words the error (test/engines/ssa-fused.test.ts compares the two).
 */
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { copyForNewKeys } from '../../ir/json-copy.js';
import { scalarFits } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { typesStrictlyGuarded } from './fast-checks.js';
import type { MapPlan, PatchShape } from './fused-plan.js';
import { plannedMergeCode } from './fused-plan-code.js';
import { associativeItemId, ItemKeyError, type ItemId } from './list-keys.js';
import type { ListType, Schema, TypeRef } from './schema.js';
import type { TypeNode } from './type-nodes.js';
import { typesCleanlyRemembering } from './validate.js';

/** The maps a merge may change in place, and where it hands over the maps it creates (MergeOwnership). */
export interface InPlaceMaps {
  has(v: object): boolean;
  add(v: object): void;
}

/** Up to this many (lhs, rhs) key pairs, a patch list with no key in common with lhs is found by search (merge.ts). */
const SMALL_LIST_PRODUCT = 64;

const GIVE_UP: unique symbol = Symbol('give up: run the reference');
type Merged = JsonValue | typeof GIVE_UP;

/**
 * The reference's successful result (the live object itself when unchanged), or undefined when the reference
 * must run. `checked` is the evaluation's memo: the live object is typed through it first, and the result is
 * recorded valid as mergeIntoValidatedPatch records it. `walk` (FusedWalk, one per evaluation) says after a
 * result whether maps of `owned` were changed in place (the value may then be the live object itself, changed).
 * `shape`: the keys `patch` was built with (fused-plan.ts), when the caller knows them.
 */
export function applyFused(schema: Schema, typeRef: TypeRef, live: JsonValue, patch: JsonObject, checked: CheckedSubtrees, owned: InPlaceMaps | undefined, walk: FusedWalk, shape?: PatchShape): JsonValue | undefined {
  // Untouched subtrees must then be walked for upstream's errors (merge.ts walkUntouched).
  if (!isJsonObject(live) || schema.hasUnmergeableLists()) return undefined;
  if (checked.schema !== schema || !typesCleanlyRemembering(schema, typeRef, live, checked)) return undefined;
  walk.start(schema, owned);
  const node = schema.node(typeRef);
  const plan = shape?.planAt(node);
  const merged = plan !== undefined ? walk.mergePlanned(plan, live, patch, true) : walk.mergeValue(node, live, patch, true);
  if (merged === GIVE_UP) return undefined;
  walk.commit();
  checked.noteValidDocument(typeRef, merged);
  return merged;
}

/**
 * The walk of applyFused, made once per evaluation and started again for each merge (its scratch lists are
 * kept: an ApplyConfiguration is a handful of writes, and making the walk per merge cost more than them).
 */
export class FusedWalk {
  /** Writes into owned maps as (map, key, value) triples, the first `writeCount` entries: made once the whole walk succeeded. */
  private readonly writes: (JsonObject | string | JsonValue)[] = [];
  private writeCount = 0;
  /** The maps this walk copied (the first `createdCount`), handed to `owned` once it succeeded. */
  private readonly created: JsonObject[] = [];
  private createdCount = 0;
  /** Scratch lists of one list's item ids (itemIds), reused: a merge walks several lists, one at a time. */
  private readonly rhsIds: ItemId[] = [];
  private readonly lhsIds: ItemId[] = [];
  private schema: Schema | undefined;
  private owned: InPlaceMaps | undefined;
  /** The last commit changed maps of `owned` in place. */
  inPlace = false;

  /** Plans are merged by mergePlannedByLoop, never by their generated code: the reference the tests compare it with. */
  constructor(readonly byLoop = false) {}

  /** Begins a merge: the scratch lists' entries are stale (their lengths are never cut, which costs V8 more than they do). */
  start(schema: Schema, owned: InPlaceMaps | undefined): void {
    this.schema = schema;
    this.owned = owned;
    this.writeCount = 0;
    this.createdCount = 0;
    this.inPlace = false;
  }

  /** typesStrictlyGuarded in the walk's schema (for keyed-list-merge.ts). */
  typesStrictly(n: TypeNode, v: JsonValue, guard: boolean): boolean {
    return typesStrictlyGuarded(this.schema!, n, v, guard);
  }

  /** Applies the deferred writes and hands over the created maps (inPlace: whether any owned map changed). */
  commit(): void {
    const w = this.writes;
    for (let i = 0; i < this.writeCount; i += 3) defineOwn(w[i] as JsonObject, w[i + 1] as string, w[i + 2] as JsonValue);
    const owned = this.owned;
    if (owned !== undefined) for (let i = 0; i < this.createdCount; i++) owned.add(this.created[i]!);
    this.inPlace = this.writeCount > 0;
    // The values written are not kept alive by the scratch list past the evaluation's next merge.
    this.schema = undefined;
    this.owned = undefined;
  }

  private write(map: JsonObject, key: string, value: JsonValue): void {
    const w = this.writes;
    const i = this.writeCount;
    if (i < w.length) {
      w[i] = map;
      w[i + 1] = key;
      w[i + 2] = value;
    } else w.push(map, key, value);
    this.writeCount = i + 3;
  }

  private create(map: JsonObject): void {
    const i = this.createdCount++;
    if (i < this.created.length) this.created[i] = map;
    else this.created.push(map);
  }

  /**
   * The map `l`'s changes go to: `l` itself when owned, else a copy (handed to `owned` on commit). The patch's
   * keys (the map, or a plan's keys) say whether the copy will get keys `l` lacks.
   */
  writable(l: JsonObject, patchKeys: JsonObject | readonly string[]): JsonObject {
    if (this.owned !== undefined && this.owned.has(l)) return l;
    // An owned copy is written in place by the evaluation's later mutations, which mostly add keys (a spread
    // copy then takes V8's slow path for every new key: 400-1,000 ns, see json-copy.ts).
    const out = this.owned !== undefined || addsKeys(l, patchKeys) ? copyForNewKeys(l) : copyObject(l);
    this.create(out);
    return out;
  }

  /** Sets `key` of `out`: deferred to the commit when `out` is the owned `l` itself. */
  put(out: JsonObject, l: JsonObject, key: string, value: JsonValue): void {
    if (out === l) this.write(l, key, value);
    else defineOwn(out, key, value);
  }

  /**
   * Merger.merge of `rv` (present, typed here strictly, guarded when `guard`) into `lv` (present, typed).
   * A scalar patch value always wins (doScalar: it fits, so whatever lhs is, rhs comes out).
   */
  mergeValue(n: TypeNode, lv: JsonValue, rv: JsonValue, guard: boolean): Merged {
    if (n.atom === undefined || rv === null) return GIVE_UP;
    if (typeof rv !== 'object') return n.scalar !== undefined && scalarFits(n.scalar, rv) ? rv : GIVE_UP;
    if (Array.isArray(rv)) {
      const t = n.list;
      if (t === undefined || t.elementRelationship !== 'associative') return GIVE_UP;
      return this.mergeList(n, t, lv, rv, guard);
    }
    const t = n.map;
    // An atomic map is a leaf the guard rejects (or, below an element type, replaces: the reference's leaf()).
    if (t === undefined || t.elementRelationship === 'atomic') return GIVE_UP;
    return this.mergeMap(n, lv, rv, guard);
  }

  /**
   * mergeMap of a patch map built with the plan's keys (in that order, and no other: a key missing is
   * unexpected, and the reference then runs). The plan has checked what mergeValue and mergeMap check of
   * the node and of each key.
   */
  mergePlanned(plan: MapPlan, lv: JsonValue, r: JsonObject, guard: boolean): Merged {
    if (this.byLoop) return this.mergePlannedByLoop(plan, lv, r, guard);
    let code = plan.code;
    if (code === undefined) plan.code = code = plannedMergeCode(plan, GIVE_UP) ?? null;
    return code !== null ? (code(this, lv, r, guard) as Merged) : this.mergePlannedByLoop(plan, lv, r, guard);
  }

  /** mergePlanned by the loop over the plan's keys: the reference of its generated code (fused-plan-code.ts). */
  mergePlannedByLoop(plan: MapPlan, lv: JsonValue, r: JsonObject, guard: boolean): Merged {
    if (!isJsonObject(lv)) return this.typesPlanned(plan, r, guard) ? r : GIVE_UP;
    const l = lv;
    const keys = plan.keys;
    let out: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const rv = r[key];
      if (rv === undefined) return GIVE_UP;
      const child = plan.children[i]!;
      const childGuard = guard && plan.declared[i]!;
      const sub = plan.subPlans[i];
      let merged: Merged;
      if (hasOwn(l, key)) {
        const old = l[key]!;
        const items = plan.itemPlans[i];
        if (sub !== undefined) {
          if (!isJsonObject(rv)) return GIVE_UP;
          merged = this.mergePlanned(sub, old, rv, childGuard);
        } else if (items !== undefined && Array.isArray(rv)) merged = this.mergeList(child, child.list!, old, rv, childGuard, items);
        else merged = this.mergeValue(child, old, rv, childGuard);
        if (merged === GIVE_UP) return GIVE_UP;
        if (merged === old) continue;
      } else {
        if (!this.typesPlannedValue(plan, i, rv, childGuard)) return GIVE_UP;
        merged = rv;
      }
      out ??= this.writable(l, keys);
      this.put(out, l, key, merged);
    }
    return out ?? l;
  }

  /** typesStrictlyGuarded of a whole planned patch map inserted where the live object has none. */
  typesPlanned(plan: MapPlan, r: JsonObject, guard: boolean): boolean {
    if (Object.isFrozen(r)) return typesStrictlyGuarded(this.schema!, plan.node, r, guard);
    for (let i = 0; i < plan.keys.length; i++) {
      const rv = r[plan.keys[i]!];
      if (rv === undefined || !this.typesPlannedValue(plan, i, rv, guard && plan.declared[i]!)) return false;
    }
    return true;
  }

  /** typesStrictlyGuarded of the value at the plan's key `i`, remembered for a frozen constant. */
  typesPlannedValue(plan: MapPlan, i: number, rv: JsonValue, guard: boolean): boolean {
    if (rv !== null && typeof rv === 'object') {
      if (plan.typedConstants[i] === rv && plan.constantGuards[i] === guard) return true;
      const sub = plan.subPlans[i];
      if (sub !== undefined && isJsonObject(rv) && !Object.isFrozen(rv)) return this.typesPlanned(sub, rv, guard);
      if (!typesStrictlyGuarded(this.schema!, plan.children[i]!, rv, guard)) return false;
      if (Object.isFrozen(rv)) {
        plan.typedConstants[i] = rv;
        plan.constantGuards[i] = guard;
      }
      return true;
    }
    return typesStrictlyGuarded(this.schema!, plan.children[i]!, rv, guard);
  }

  /** Merger.mergeMap for a non-empty, non-atomic rhs map (an empty one is a leaf: the reference decides). */
  private mergeMap(n: TypeNode, lv: JsonValue, r: JsonObject, guard: boolean): Merged {
    if (!isJsonObject(lv)) return isEmpty(r) || !typesStrictlyGuarded(this.schema!, n, r, guard) ? GIVE_UP : r;
    const l = lv;
    let out: JsonObject | undefined;
    let rhsEmpty = true;
    for (const key in r) {
      if (!hasOwn(r, key)) continue;
      rhsEmpty = false;
      // As CleanTyping.validMap: a key the struct does not declare fails typing; the guard stops at element types.
      const declared = n.declaredNode(key);
      const child = declared ?? (n.closed ? undefined : n.elementNode);
      if (child === undefined) return GIVE_UP;
      const childGuard = guard && declared !== undefined;
      const rv = r[key]!;
      let merged: Merged;
      if (hasOwn(l, key)) {
        const old = l[key]!;
        merged = this.mergeValue(child, old, rv, childGuard);
        if (merged === GIVE_UP) return GIVE_UP;
        if (merged === old) continue;
      } else {
        if (!typesStrictlyGuarded(this.schema!, child, rv, childGuard)) return GIVE_UP;
        merged = rv;
      }
      out ??= this.writable(l, r);
      this.put(out, l, key, merged);
    }
    if (rhsEmpty) return isEmpty(l) ? GIVE_UP : l;
    return out ?? l;
  }

  /**
   * Merger.mergeListItems's simple shapes for an associative rhs list: lhs empty or absent (rhs as it is), the
   * same keys in the same order (items merged pairwise), or no key in common (lhs items, then rhs items).
   * `itemPlan`: the plan of the patch's items (each a map of its keys), for the pairwise merges.
   */
  mergeList(n: TypeNode, t: ListType, lv: JsonValue, r: JsonValue[], guard: boolean, itemPlan?: MapPlan): Merged {
    const l = Array.isArray(lv) ? lv : undefined;
    // Both empty is a leaf; rhs empty leaves lhs as it is.
    if (r.length === 0) return l === undefined || l.length === 0 ? GIVE_UP : l;
    if (l === undefined || l.length === 0) return typesStrictlyGuarded(this.schema!, n, r, guard) ? r : GIVE_UP;
    // The ids are compared before any item is merged, so the scratch lists are free again for the lists below.
    const rhsIds = this.rhsIds;
    const lhsIds = this.lhsIds;
    if (!this.itemIds(t, r, false, rhsIds) || !this.itemIds(t, l, true, lhsIds)) return GIVE_UP;
    const item = n.item;
    if (sameIds(lhsIds, l.length, rhsIds, r.length)) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < r.length; i++) {
        const ri = r[i]!;
        const merged = itemPlan !== undefined && isJsonObject(ri) ? this.mergePlanned(itemPlan, l[i]!, ri, guard) : this.mergeValue(item, l[i]!, ri, guard);
        if (merged === GIVE_UP) return GIVE_UP;
        if (merged !== l[i] && out === undefined) out = l.slice(0, i);
        if (out !== undefined) out.push(merged);
      }
      return out ?? l;
    }
    if (l.length * r.length > SMALL_LIST_PRODUCT) return GIVE_UP;
    for (let i = 0; i < r.length; i++) if (indexOf(lhsIds, l.length, rhsIds[i]!) >= 0) return GIVE_UP;
    for (let i = 0; i < r.length; i++) if (!typesStrictlyGuarded(this.schema!, item, r[i]!, guard)) return GIVE_UP;
    return appended(l, r);
  }

  /**
   * The items' identities (indexItems) written to the first `items.length` entries of `ids` (a scratch list,
   * whose later entries are stale: its length is never cut, which costs V8 more than the ids), or false for
   * an item that cannot be keyed or a repeated rhs key.
   */
  private itemIds(t: ListType, items: readonly JsonValue[], allowDuplicates: boolean, ids: ItemId[]): boolean {
    for (let i = 0; i < items.length; i++) {
      const id = associativeItemId(this.schema!, t, items[i]!);
      if (id instanceof ItemKeyError || (!allowDuplicates && indexOf(ids, i, id) >= 0)) return false;
      if (i < ids.length) ids[i] = id;
      else ids.push(id);
    }
    return true;
  }
}

/**
 * l.concat(r) by hand: either list may be a frozen constant (mutation.ts constantObjectJson), and V8's concat
 * and slice take their slow generic paths for frozen elements (Node 20: concat of the benchmark's frozen
 * proxy container about 170 ns against 40 ns, slice of a frozen list about 20 times slower).
 */
function appended(l: readonly JsonValue[], r: readonly JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (let i = 0; i < l.length; i++) out.push(l[i]!);
  for (let i = 0; i < r.length; i++) out.push(r[i]!);
  return out;
}

/** The index of `id` among the first `count` ids (SameValueZero, as Array.includes), or -1. */
function indexOf(ids: readonly ItemId[], count: number, id: ItemId): number {
  for (let i = 0; i < count; i++) {
    const x = ids[i];
    if (x === id || (x !== x && id !== id)) return i;
  }
  return -1;
}

/** The first `na` ids of `a` are the first `nb` of `b`, in order. */
function sameIds(a: readonly ItemId[], na: number, b: readonly ItemId[], nb: number): boolean {
  if (na !== nb) return false;
  for (let i = 0; i < na; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The patch (a map, or the keys of a plan) has a key `l` lacks, so that the copy of `l` gets new keys (see src/ir/json-copy.ts). */
function addsKeys(l: JsonObject, patchKeys: JsonObject | readonly string[]): boolean {
  if (Array.isArray(patchKeys)) {
    for (let i = 0; i < patchKeys.length; i++) if (!hasOwn(l, patchKeys[i]!)) return true;
    return false;
  }
  for (const key in patchKeys) if (hasOwn(patchKeys, key) && !hasOwn(l, key)) return true;
  return false;
}

function isEmpty(m: JsonObject): boolean {
  for (const k in m) if (hasOwn(m, k)) return false;
  return true;
}
