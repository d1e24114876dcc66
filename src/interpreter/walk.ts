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
}

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
  const exists = map !== undefined && hasOwn(map, name);
  if (exists ? !existsOkay(test) : !missingOkay(test)) return UNCHANGED;
  const child = exists ? map![name] : undefined;
  let next: JsonValue | undefined | typeof REMOVE;
  if (last) {
    const r = leaf(child, exists, segs[i]!);
    if (r === UNCHANGED) return UNCHANGED;
    // The map itself counts as written: a created one is attached by the caller, an existing one is unchanged.
    if (r === TOUCHED) return map ?? {};
    next = r;
  } else {
    if (!exists && !opts.create) return UNCHANGED;
    const r = walk(child, segs, i + 1, leaf, opts);
    if (r === UNCHANGED) return UNCHANGED;
    next = r;
  }
  if (next === REMOVE) {
    if (!exists) return UNCHANGED;
    const copy: JsonObject = {};
    for (const k of Object.keys(map!)) if (k !== name) defineOwn(copy, k, map![k]!);
    return copy;
  }
  if (exists && child === next) return UNCHANGED;
  const copy = map ? copyObject(map) : {};
  defineOwn(copy, name, next);
  return copy;
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
  let out: JsonValue[] | undefined;
  const put = (idx: number, v: JsonValue | typeof REMOVE) => {
    out ??= list!.slice();
    out[idx] = v as JsonValue;
  };
  let removed = false;
  const step = (idx: number, el: JsonValue | undefined, exists: boolean): void => {
    const r = last ? leaf(el, exists, seg) : walk(el, segs, i + 1, leaf, opts);
    if (r === UNCHANGED || r === TOUCHED) return;
    if (r === REMOVE) {
      if (!exists) return;
      removed = true;
      put(idx, REMOVE);
      return;
    }
    if (exists && r === el) return;
    if (exists) put(idx, r);
    else {
      out ??= list ? list.slice() : [];
      out.push(r);
    }
  };

  switch (seg.kind) {
    case 'keyed': {
      let matched = false;
      if (list) {
        for (let idx = 0; idx < list.length; idx++) {
          const el = list[idx]!;
          if (isJsonObject(el) && hasOwn(el, seg.key) && el[seg.key] === seg.value) {
            matched = true;
            if (!existsOkay(seg.test)) return UNCHANGED;
            step(idx, el, true);
            // A terminal keyed write replaces only the first matching element (Gatekeeper setListElementToValue).
            if (last) break;
          }
        }
      }
      if (!matched) {
        if (!missingOkay(seg.test) || !seg.create || !opts.create) return UNCHANGED;
        if (last) step(-1, undefined, false);
        else {
          const created: JsonObject = {};
          defineOwn(created, seg.key, seg.value);
          const r = walk(created, segs, i + 1, leaf, opts);
          if (r !== UNCHANGED) {
            out ??= list ? list.slice() : [];
            out.push(r);
          }
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
        step(idx, el, true);
      }
      break;
    }
    case 'each': {
      if (!list) return UNCHANGED;
      for (let idx = 0; idx < list.length; idx++) step(idx, list[idx]!, true);
      break;
    }
    case 'index': {
      if (!list) return UNCHANGED;
      const idx = seg.index < 0 ? list.length + seg.index : seg.index;
      const exists = idx >= 0 && idx < list.length;
      if (exists ? !existsOkay(seg.test) : !missingOkay(seg.test)) return UNCHANGED;
      if (!exists) return UNCHANGED;
      step(idx, list[idx]!, true);
      break;
    }
    case 'append': {
      if (!opts.create) return UNCHANGED;
      step(-1, undefined, false);
      break;
    }
  }
  if (!out) return UNCHANGED;
  if (removed) {
    const marker = REMOVE as unknown;
    return out.filter((v) => (v as unknown) !== marker);
  }
  return out;
}
