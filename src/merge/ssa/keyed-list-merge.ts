/**
 * FusedWalk.mergeList (fused-apply.ts) for a list keyed by one field whose items are planned maps (a Pod's
 * containers by `name`, built by `map()` or a list literal of `Object.spec.containers{...}`), as the two shapes
 * it takes: the live list's keys in the same order (items merged pairwise) or none in common (rhs appended).
 * The key of an item is then its field's string itself (list-keys.ts: a string not starting with `"`, `{` or
 * `[` is its own id), compared in place instead of written to the walk's id lists. Anything else (an item
 * without the field or with another value there, an empty side, a repeated rhs key, keys partly in common)
 * is mergeList's, which the merge calls with the same arguments: the same answer either way.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { MapPlan } from './fused-plan.js';
import type { ListType } from './schema.js';
import type { TypeNode } from './type-nodes.js';

/** What the merge calls back (FusedWalk's methods). */
export interface KeyedListWalk {
  mergeList(n: TypeNode, t: ListType, lv: JsonValue, r: JsonValue[], guard: boolean, itemPlan?: MapPlan): unknown;
  mergePlanned(plan: MapPlan, lv: JsonValue, r: JsonObject, guard: boolean): unknown;
  typesStrictly(n: TypeNode, v: JsonValue, guard: boolean): boolean;
}

export type KeyedListMerge = (w: KeyedListWalk, lv: JsonValue, r: JsonValue[], guard: boolean) => unknown;

/** mergeList's limit on the pairs it searches for a key in common. */
const SMALL_LIST_PRODUCT = 64;

/**
 * The merge of a list at `n` (associative, keyed by one field) whose patch items follow `itemPlan`, or
 * undefined for any other list. `giveUp` is the walk's give-up value.
 */
export function keyedListMerge(n: TypeNode, itemPlan: MapPlan, giveUp: symbol): KeyedListMerge | undefined {
  const t = n.list;
  if (n.atom === undefined || t === undefined || t.elementRelationship !== 'associative' || t.keys.length !== 1) return undefined;
  const key = t.keys[0]!;
  const item = n.item;
  /** The item's key when it is its own id (see the header), else undefined. */
  const idOf = (x: JsonValue): string | undefined => {
    if (!isJsonObject(x) || !Object.prototype.hasOwnProperty.call(x, key)) return undefined;
    const v = x[key];
    if (typeof v !== 'string') return undefined;
    const c = v.charCodeAt(0);
    return c === 34 || c === 123 || c === 91 ? undefined : v;
  };
  // The last frozen patch list found to type strictly as new items, with the guard it was typed under.
  let typedList: JsonValue[] | undefined;
  let typedGuard = false;
  return (w, lv, r, guard) => {
    if (!Array.isArray(lv) || lv.length === 0 || r.length === 0) return w.mergeList(n, t, lv, r, guard, itemPlan);
    const l = lv;
    // The same keys in the same order is the common case (a `map()` over the live list): one id per item
    // decides it; only another shape pays for the search of keys in common.
    let same = l.length === r.length;
    for (let i = 0; i < r.length; i++) {
      const id = idOf(r[i]!);
      if (id === undefined) return w.mergeList(n, t, lv, r, guard, itemPlan);
      for (let j = 0; j < i; j++) if (idOf(r[j]!) === id) return w.mergeList(n, t, lv, r, guard, itemPlan);
      if (same) {
        const lid = idOf(l[i]!);
        if (lid === undefined) return w.mergeList(n, t, lv, r, guard, itemPlan);
        if (lid !== id) same = false;
      }
    }
    if (same) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < r.length; i++) {
        const merged = w.mergePlanned(itemPlan, l[i]!, r[i] as JsonObject, guard);
        if (merged === giveUp) return giveUp;
        if (merged !== l[i] && out === undefined) out = l.slice(0, i);
        if (out !== undefined) out.push(merged as JsonValue);
      }
      return out ?? l;
    }
    if (l.length * r.length > SMALL_LIST_PRODUCT) return w.mergeList(n, t, lv, r, guard, itemPlan);
    for (let j = 0; j < l.length; j++) {
      const lid = idOf(l[j]!);
      if (lid === undefined) return w.mergeList(n, t, lv, r, guard, itemPlan);
      for (let i = 0; i < r.length; i++) if (idOf(r[i]!) === lid) return w.mergeList(n, t, lv, r, guard, itemPlan);
    }
    if (!(Object.isFrozen(r) && typedList === r && typedGuard === guard)) {
      for (let i = 0; i < r.length; i++) if (!w.typesStrictly(item, r[i]!, guard)) return giveUp;
      if (Object.isFrozen(r) && r.every(Object.isFrozen)) {
        typedList = r;
        typedGuard = guard;
      }
    }
    const out: JsonValue[] = [];
    for (let i = 0; i < l.length; i++) out.push(l[i]!);
    for (let i = 0; i < r.length; i++) out.push(r[i]!);
    return out;
  };
}
