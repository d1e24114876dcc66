import type { Origin } from '../diagnostics/span.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { Segment, SegmentTest } from '../ir/path.js';
import { evalFailure, jsonTypeName } from './failure.js';

/** Returned by a walk or a leaf when nothing changed, so callers keep their references (copy-on-write). */
export const UNCHANGED: unique symbol = Symbol('unchanged');
/** Returned by a leaf to delete the place it was given. */
export const REMOVE: unique symbol = Symbol('remove');
/**
 * Returned by a leaf that ran but wrote nothing at its place (Gatekeeper ModifySet prune of a missing key):
 * upstream's walk still reports "mutated", so the maps and keyed elements created on the way are attached
 * (core/mutation_function.go mutateInternal: `if mutated { current[ref] = next }`).
 */
export const TOUCHED: unique symbol = Symbol('touched');

export type WalkResult = JsonValue | typeof UNCHANGED;

/**
 * Computes the new value of one place. `old` is undefined when the place does not exist yet.
 * `segment` is the last path segment (a keyed leaf receives the whole matching element).
 */
export type Leaf = (old: JsonValue | undefined, exists: boolean, segment: Segment) => JsonValue | typeof UNCHANGED | typeof REMOVE | typeof TOUCHED;

export interface WalkOptions {
  /** Create missing maps, lists and keyed elements on the way (set, merge); false for remove. */
  create: boolean;
  origin: Origin;
  /**
   * Maps and lists this evaluation created since its last snapshot point: nothing else references them, so
   * they are changed in place instead of copied again (see EvalState.owned).
   */
  owned: Owned;
  /** How many times a leaf was called (Gatekeeper counts setter calls, not changes). */
  leafCalls: number;
  /**
   * How many writes changed an owned container in place. Such a write leaves the root's identity as it was,
   * so callers that cache by identity (run-policy.ts currentRequest) must be told.
   */
  inPlace: number;
}

/**
 * The containers an evaluation created since its last snapshot point. Usually a handful: the first two are
 * held in fields (an array's first push reserves 17 slots, and most epochs that own anything own one or two:
 * a merge's copies of the root and a map below it), the next in a short array, which beats a Set (and
 * stamping objects, which changes their hidden class); past 16 entries a Set keeps a large loop linear.
 */
export class Owned {
  private first: object | undefined = undefined;
  private second: object | undefined = undefined;
  /** Made at the third add: most epochs end with nothing created (every op and snapshot starts one). */
  private items: object[] | undefined = undefined;
  private set: Set<object> | undefined = undefined;

  add(v: object): void {
    if (this.first === undefined) this.first = v;
    else if (this.second === undefined) this.second = v;
    else if (this.set !== undefined) this.set.add(v);
    else if (this.items === undefined) this.items = [v];
    else if (this.items.push(v) > 16) this.set = new Set(this.items);
  }

  has(v: object): boolean {
    if (v === this.first || v === this.second) return true;
    return this.set !== undefined ? this.set.has(v) : this.items !== undefined && this.items.includes(v);
  }
}

export function newEpoch(): Owned {
  return new Owned();
}

/** Marks a container this evaluation created, so later writes may change it in place. */
export function own<T extends object>(opts: WalkOptions, v: T): T {
  opts.owned.add(v);
  return v;
}

function owns(opts: WalkOptions, v: object): boolean {
  return opts.owned.has(v);
}

/** Names that a plain property read would find on Object.prototype: only an own-property check is right for them. */
export const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function existsOkay(test: SegmentTest | undefined): boolean {
  return test !== 'notExist';
}
function missingOkay(test: SegmentTest | undefined): boolean {
  return test !== 'exist';
}

/**
 * Writes through `segs[i..]` starting at `cur` (undefined = missing, to be created), copying only the maps and
 * lists on the changed branches. Follows Gatekeeper's core walk (pkg/mutation/mutators/core/mutation_function.go):
 * missing parents are created but attached only when something below them was written; a glob never creates;
 * a failed segment test silently skips its branch; a value whose shape contradicts the path is an error.
 */
export function walk(cur: JsonValue | undefined, segs: readonly Segment[], i: number, leaf: Leaf, opts: WalkOptions): WalkResult {
  const seg = segs[i]!;
  const last = i === segs.length - 1;
  switch (seg.kind) {
    case 'field':
      return walkField(cur, seg.name, seg.test, segs, i, last, leaf, opts);
    case 'keyed':
    case 'keyedGlob':
    case 'each':
    case 'index':
    case 'append':
      return walkList(cur, seg, segs, i, last, leaf, opts);
  }
}

function walkField(
  cur: JsonValue | undefined,
  name: string,
  test: SegmentTest | undefined,
  segs: readonly Segment[],
  i: number,
  last: boolean,
  leaf: Leaf,
  opts: WalkOptions,
): WalkResult {
  if (cur !== undefined && !isJsonObject(cur)) {
    throw evalFailure('TM3001', `mismatch between path entry (type: object) and received object (type: ${jsonTypeName(cur)})`, opts.origin);
  }
  const map: JsonObject | undefined = cur;
  // JSON values are never `undefined`, so a plain read answers "exists" unless the name is also a property of
  // Object.prototype (`constructor`, `__proto__`...), where only an own-property check is right.
  const read = map === undefined ? undefined : INHERITED.has(name) ? (hasOwn(map, name) ? map[name] : undefined) : map[name];
  const exists = read !== undefined;
  if (exists ? !existsOkay(test) : !missingOkay(test)) return UNCHANGED;
  const child = read;
  let next: JsonValue | undefined | typeof REMOVE;
  if (last) {
    opts.leafCalls++;
    const r = leaf(child, exists, segs[i]!);
    if (r === UNCHANGED) return UNCHANGED;
    // The map itself counts as written: a created one is attached by the caller, an existing one is unchanged.
    if (r === TOUCHED) return map ?? own(opts, {});
    next = r;
  } else {
    if (!exists && !opts.create) return UNCHANGED;
    const r = walk(child, segs, i + 1, leaf, opts);
    if (r === UNCHANGED) return UNCHANGED;
    next = r;
  }
  if (next === REMOVE) return exists ? withoutOwnKey(map!, name, opts) : UNCHANGED;
  if (exists && child === next) return UNCHANGED;
  let copy: JsonObject;
  if (map === undefined) copy = own(opts, {});
  else if (owns(opts, map)) {
    opts.inPlace++;
    copy = map;
  } else copy = own(opts, copyObject(map));
  defineOwn(copy, name, next);
  return copy;
}

/** Past this many keys an owned map loses a key in place (see withoutOwnKey). */
const SMALL_MAP = 16;

/**
 * `map` without its own key `name`: the map itself, changed in place, when this evaluation owns it and it is
 * large; otherwise an owned copy without the key, in the map's key order. A small owned map is copied too:
 * V8 turns an object that loses a key other than its last into a slow dictionary, which costs more than
 * copying a dozen keys, and every later read and copy of it pays again (issue 17; a Pod's annotations).
 */
export function withoutOwnKey(map: JsonObject, name: string, opts: WalkOptions): JsonObject {
  const keys = Object.keys(map);
  if (keys.length > SMALL_MAP && owns(opts, map)) {
    opts.inPlace++;
    delete map[name];
    return map;
  }
  const copy: JsonObject = {};
  for (const k of keys) if (k !== name) defineOwn(copy, k, map[k]!);
  return own(opts, copy);
}

/**
 * The list being written by one list segment: the original when this evaluation owns it, otherwise a copy
 * made on the first change (one small object per call, no closures: this runs per list segment, op and object).
 */
class ListWrite {
  out: JsonValue[] | undefined;
  removed = false;

  constructor(
    readonly list: JsonValue[] | undefined,
    readonly opts: WalkOptions,
  ) {}

  writable(): JsonValue[] {
    if (this.out) return this.out;
    const l = this.list;
    if (!l) this.out = own(this.opts, []);
    else if (owns(this.opts, l)) {
      this.opts.inPlace++;
      this.out = l;
    } else this.out = own(this.opts, l.slice());
    return this.out;
  }

  /** Walks (or, at the last segment, calls the leaf on) one element and records its new value. */
  step(idx: number, el: JsonValue | undefined, exists: boolean, segs: readonly Segment[], i: number, leaf: Leaf, seg: Segment): void {
    const last = i === segs.length - 1;
    let r: JsonValue | typeof UNCHANGED | typeof REMOVE | typeof TOUCHED;
    if (last) {
      this.opts.leafCalls++;
      r = leaf(el, exists, seg);
    } else r = walk(el, segs, i + 1, leaf, this.opts);
    if (r === UNCHANGED || r === TOUCHED) return;
    if (r === REMOVE) {
      if (!exists) return;
      this.removed = true;
      this.writable()[idx] = REMOVE as unknown as JsonValue;
      return;
    }
    if (exists && r === el) return;
    if (exists) this.writable()[idx] = r;
    else this.writable().push(r);
  }

  result(): WalkResult {
    if (!this.out) return UNCHANGED;
    if (this.removed) {
      const marker = REMOVE as unknown;
      return own(this.opts, this.out.filter((v) => (v as unknown) !== marker));
    }
    return this.out;
  }
}

function walkList(
  cur: JsonValue | undefined,
  seg: Exclude<Segment, { kind: 'field' }>,
  segs: readonly Segment[],
  i: number,
  last: boolean,
  leaf: Leaf,
  opts: WalkOptions,
): WalkResult {
  if (cur !== undefined && !Array.isArray(cur)) {
    throw evalFailure('TM3001', `mismatch between path entry (type: List) and received object (type: ${jsonTypeName(cur)})`, opts.origin);
  }
  const list = cur;
  const w = new ListWrite(list, opts);
  switch (seg.kind) {
    case 'keyed': {
      let matched = false;
      if (list) {
        for (let idx = 0; idx < list.length; idx++) {
          const el = list[idx]!;
          if (isJsonObject(el) && hasOwn(el, seg.key) && el[seg.key] === seg.value) {
            matched = true;
            if (!existsOkay(seg.test)) return UNCHANGED;
            w.step(idx, el, true, segs, i, leaf, seg);
            // A terminal keyed write replaces only the first matching element (Gatekeeper setListElementToValue).
            if (last) break;
          }
        }
      }
      if (!matched) {
        if (!missingOkay(seg.test) || !seg.create || !opts.create) return UNCHANGED;
        if (last) w.step(-1, undefined, false, segs, i, leaf, seg);
        else {
          const created: JsonObject = own(opts, {});
          defineOwn(created, seg.key, seg.value);
          const r = walk(created, segs, i + 1, leaf, opts);
          if (r !== UNCHANGED) w.writable().push(r);
        }
      }
      break;
    }
    case 'keyedGlob': {
      if (!list || !existsOkay(seg.test)) return UNCHANGED;
      for (let idx = 0; idx < list.length; idx++) {
        const el = list[idx]!;
        if (!last && !isJsonObject(el)) {
          throw evalFailure('TM3001', `mismatch between path entry (type: object) and received object (type: ${jsonTypeName(el)})`, opts.origin);
        }
        if (!isJsonObject(el)) continue;
        w.step(idx, el, true, segs, i, leaf, seg);
      }
      break;
    }
    case 'each': {
      if (!list) return UNCHANGED;
      for (let idx = 0; idx < list.length; idx++) w.step(idx, list[idx]!, true, segs, i, leaf, seg);
      break;
    }
    case 'index': {
      if (!list) return UNCHANGED;
      const idx = seg.index < 0 ? list.length + seg.index : seg.index;
      const exists = idx >= 0 && idx < list.length;
      if (exists ? !existsOkay(seg.test) : !missingOkay(seg.test)) return UNCHANGED;
      if (!exists) return UNCHANGED;
      w.step(idx, list[idx]!, true, segs, i, leaf, seg);
      break;
    }
    case 'append': {
      if (!opts.create) return UNCHANGED;
      w.step(-1, undefined, false, segs, i, leaf, seg);
      break;
    }
  }
  return w.result();
}
