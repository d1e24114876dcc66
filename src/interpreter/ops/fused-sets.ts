import type { Origin } from '../../diagnostics/span.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';
import type { Op, SetOp } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import { evalFailure, jsonTypeName } from '../failure.js';
import { INHERITED, own, UNCHANGED, walk, type Leaf, type WalkOptions, type WalkResult } from '../walk.js';
import { setLeaf } from './set.js';
import type { OpFn } from './types.js';

/**
 * Consecutive `set` ops that write literals into the object, run as one walk that descends each shared prefix
 * once (`metadata`, `spec`, `spec.containers[name: "app"]`...) instead of once per op. Only neighbours are
 * grouped and each group runs its ops in their order, so the result, including the order in which keys and
 * list elements are created, is the one running them one by one gives (test/interpreter/fused-sets.test.ts
 * checks it on random programs). A segment with a test, a glob or an index keeps its op on the ordinary walk.
 * An interpreter-internal optimisation: the IR, and traces (which run ops one by one), are unaffected.
 */
export function isFusableSet(op: Op): op is SetOp {
  return op.kind === 'set' && op.value.kind === 'literal' && op.path.root === 'object' && op.path.segments.length > 0;
}

export interface Item {
  segs: readonly Segment[];
  leaf: Leaf;
  origin: Origin;
}

/**
 * The fused walk, planned at compile time. A plan is the list of groups at one depth; a field group descends
 * its field once and runs its steps in order: a leaf (an item ending at this field) or a sub-plan (a run of
 * items going deeper).
 */
export type Plan = Group[];
export type Group =
  | { kind: 'field'; name: string; inherited: boolean; steps: Step[]; origin: Origin }
  | { kind: 'keyed'; key: string; value: JsonScalar; steps: Step[]; origin: Origin }
  | { kind: 'opaque'; item: Item; depth: number };
export type Step = { kind: 'leaf'; item: Item; seg: Segment } | { kind: 'plan'; plan: Plan };


/**
 * The grouping key of a segment, or undefined when the item must keep its own place: fields without a test,
 * and creating keyed segments without a test that do not end the path (a terminal keyed write replaces the
 * whole element, which the ordinary walk handles). Different keys address disjoint places.
 */
function groupKey(seg: Segment, last: boolean): string | undefined {
  if ('test' in seg && seg.test !== undefined) return undefined;
  if (seg.kind === 'field') return 'f' + seg.name;
  if (seg.kind === 'keyed' && seg.create && !last) return 'k' + JSON.stringify([seg.key, seg.value]);
  return undefined;
}

/** Groups neighbouring items that share their segment at depth `i`. */
export function planAt(items: readonly Item[], i: number): Plan {
  type Pending = { kind: 'group'; key: string; seg: Segment; items: Item[] } | { kind: 'opaque'; item: Item };
  const grouped: Pending[] = [];
  for (const item of items) {
    const seg = item.segs[i]!;
    const key = groupKey(seg, i === item.segs.length - 1);
    const previous = grouped[grouped.length - 1];
    if (key !== undefined && previous?.kind === 'group' && previous.key === key) previous.items.push(item);
    else grouped.push(key === undefined ? { kind: 'opaque', item } : { kind: 'group', key, seg, items: [item] });
  }
  return grouped.map((g): Group => {
    if (g.kind === 'opaque') return { kind: 'opaque', item: g.item, depth: i };
    const steps: Step[] = [];
    for (let k = 0; k < g.items.length; ) {
      const item = g.items[k]!;
      if (item.segs.length - 1 === i) {
        steps.push({ kind: 'leaf', item, seg: item.segs[i]! });
        k++;
        continue;
      }
      let j = k + 1;
      while (j < g.items.length && g.items[j]!.segs.length - 1 !== i) j++;
      steps.push({ kind: 'plan', plan: planAt(g.items.slice(k, j), i + 1) });
      k = j;
    }
    const origin = g.items[0]!.origin;
    if (g.seg.kind === 'keyed') return { kind: 'keyed', key: g.seg.key, value: g.seg.value, steps, origin };
    const name = (g.seg as { name: string }).name;
    return { kind: 'field', name, inherited: INHERITED.has(name), steps, origin };
  });
}

function runPlan(cur: JsonValue | undefined, plan: Plan, opts: WalkOptions): WalkResult {
  let node = cur;
  for (const group of plan) {
    let r: WalkResult;
    if (group.kind === 'opaque') {
      opts.origin = group.item.origin;
      r = walk(node, group.item.segs, group.depth, group.item.leaf, opts);
    } else if (group.kind === 'keyed') r = runKeyed(node, group, opts);
    else r = runField(node, group, opts);
    if (r !== UNCHANGED) node = r;
  }
  return node === cur ? UNCHANGED : (node as JsonValue);
}

/** Like walkField (walk.ts) for several items under the same test-free field, in their order. */
function runField(cur: JsonValue | undefined, group: Extract<Group, { kind: 'field' }>, opts: WalkOptions): WalkResult {
  if (cur !== undefined && !isJsonObject(cur)) {
    opts.origin = group.origin;
    throw evalFailure('TM3001', `mismatch between path entry (type: object) and received object (type: ${jsonTypeName(cur)})`, opts.origin);
  }
  const map: JsonObject | undefined = cur;
  const name = group.name;
  const original = map === undefined ? undefined : group.inherited ? (hasOwn(map, name) ? map[name] : undefined) : map[name];
  const child = runSteps(original, group.steps, opts);
  if (child === original) return UNCHANGED;
  let copy: JsonObject;
  if (map === undefined) copy = own(opts, {});
  else if (opts.owned.has(map)) {
    opts.inPlace++;
    copy = map;
  } else copy = own(opts, copyObject(map));
  defineOwn(copy, name, child as JsonValue);
  return copy;
}

function runSteps(child: JsonValue | undefined, steps: readonly Step[], opts: WalkOptions): JsonValue | undefined {
  for (const step of steps) {
    if (step.kind === 'leaf') {
      opts.leafCalls++;
      opts.origin = step.item.origin;
      const r = step.item.leaf(child, child !== undefined, step.seg);
      if (r !== UNCHANGED) child = r as JsonValue;
    } else {
      const r = runPlan(child, step.plan, opts);
      if (r !== UNCHANGED) child = r;
    }
  }
  return child;
}

/**
 * Like walkList (walk.ts) for several items under the same creating keyed segment: every element whose key
 * matches (type-sensitive) runs the steps; with none, one element `{key: value}` is created, kept only if
 * the steps wrote into it.
 */
function runKeyed(cur: JsonValue | undefined, group: Extract<Group, { kind: 'keyed' }>, opts: WalkOptions): WalkResult {
  if (cur !== undefined && !Array.isArray(cur)) {
    opts.origin = group.origin;
    throw evalFailure('TM3001', `mismatch between path entry (type: List) and received object (type: ${jsonTypeName(cur)})`, opts.origin);
  }
  const list = cur;
  let out: JsonValue[] | undefined;
  let matched = false;
  if (list) {
    for (let idx = 0; idx < list.length; idx++) {
      const el = list[idx]!;
      if (!isJsonObject(el) || !hasOwn(el, group.key) || el[group.key] !== group.value) continue;
      matched = true;
      const r = runSteps(el, group.steps, opts);
      if (r === el || r === undefined) continue;
      out ??= writableList(list, opts);
      out[idx] = r;
    }
  }
  if (!matched) {
    const created: JsonObject = own(opts, {});
    defineOwn(created, group.key, group.value);
    const r = runSteps(created, group.steps, opts);
    // Attached only if something below was written, as the walk does (mutation_function.go createMissingElement).
    if (r !== undefined && (r !== created || Object.keys(created).length > 1)) {
      out ??= list ? writableList(list, opts) : own(opts, []);
      out.push(r);
    }
  }
  return out ?? UNCHANGED;
}

function writableList(list: JsonValue[], opts: WalkOptions): JsonValue[] {
  if (!opts.owned.has(list)) return own(opts, list.slice());
  opts.inPlace++;
  return list;
}


export function compileFusedSets(ops: readonly SetOp[]): OpFn {
  const items: Item[] = ops.map((op) => {
    const json = (op.value as { json: JsonValue }).json;
    return { segs: op.path.segments, leaf: setLeaf(op, () => json), origin: op.origin };
  });
  const plan = planAt(items, 0);
  return (st, scope) => {
    const opts: WalkOptions = { create: true, origin: items[0]!.origin, owned: st.owned, leafCalls: 0, inPlace: 0 };
    const r = runPlan(st.object ?? undefined, plan, opts);
    st.writes += opts.leafCalls;
    if (opts.inPlace > 0) st.matchRequest = undefined;
    if (r !== UNCHANGED) st.object = r;
    return scope;
  };
}
