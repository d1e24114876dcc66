/**
 * Yes/no forms of the three walks MAP runs on every mutation, over type nodes (type-nodes.ts): "does this
 * value type without errors" (validate.ts), "does the patch set no atomic container" (atomic-guard.ts),
 * "does the object declare every field" (the strict decode of src/engines/ssa.ts). Nearly every value
 * passes, and these answer without building paths or messages; when one says no, the caller runs the
 * reference walk, which words the errors. Each must answer yes exactly when its reference finds nothing
 * (test/merge/ssa/fast-checks.test.ts compares them over the conformance corpus and fixtures).
 */
import { hasOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { scalarFits } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { associativeItemError, associativeItemId, ItemKeyError, type ItemId } from './list-keys.js';
import type { ListType, Schema } from './schema.js';
import type { TypeNode } from './type-nodes.js';
import { typingCheck, type TypingWalk } from './typing-check.js';

/** validate.ts MEMO_MIN_VALUES: a memo entry costs about as much as walking a few scalars again. */
const MEMO_MIN_VALUES = 6;

/**
 * validateTyped(...).length === 0. With `checked` (duplicates allowed only, as validateTyped), containers
 * it knows valid are skipped, and a value found valid is recorded: the value only, not the containers
 * below it. This walk types a whole document the evaluation has not typed before (validateTyped takes
 * typesCleanlySince when it has), and later typings compare their document with the last one known valid
 * by identity, so marks below the root would only be paid for (a map entry each), never read.
 */
export function typesCleanly(schema: Schema, node: TypeNode, value: JsonValue, allowDuplicates: boolean, checked: CheckedSubtrees | undefined): boolean {
  const memo = allowDuplicates ? checked : undefined;
  // The generated check walks what the memo knows valid too (at the root it asks): the same answer, as the
  // memo records only valid containers (checked.ts), and a first typing finds next to nothing in it.
  const check = allowDuplicates ? typingCheck(schema, node, TYPING_WALK) : undefined;
  if (check !== undefined) {
    if (memo !== undefined && value !== null && typeof value === 'object' && memo.isValid(node.tr, value)) return true;
    if (!check(value)) return false;
  } else if (!typesCleanlyByWalk(schema, node, value, allowDuplicates, memo)) return false;
  if (memo !== undefined && value !== null && typeof value === 'object') memo.markValid(node.tr, value);
  return true;
}

/** typesCleanly's generic walk (the reference of typing-check.ts), recording nothing. */
export function typesCleanlyByWalk(schema: Schema, node: TypeNode, value: JsonValue, allowDuplicates: boolean, memo: CheckedSubtrees | undefined): boolean {
  return new CleanTyping(schema, allowDuplicates, memo, false).valid(node, value, false);
}

const TYPING_WALK: TypingWalk = {
  keyable,
  valid: (schema, node, v) => typesCleanlyByWalk(schema, node, v, true, undefined),
};

/**
 * typesCleanly with duplicates allowed, given `prev`, a value known to type cleanly so at the same node (the
 * last document this evaluation typed or merged): a copy-on-write edit of `prev` shares its untouched
 * subtrees, and those (same identity), like keys `prev` has, need no look-up; only what differs is walked.
 */
export function typesCleanlySince(schema: Schema, node: TypeNode, value: JsonValue, prev: JsonValue, checked: CheckedSubtrees | undefined): boolean {
  return new CleanTyping(schema, true, checked, true).validSince(node, value, prev);
}

/**
 * typesCleanly (strictly) && setsNoAtomic, in one walk: what MAP asks of every ApplyConfiguration patch.
 * The guard looks where setsNoAtomic does: below declared fields and list items, never below a map's
 * element type. A no says only that one of the two found something; the caller then runs both references.
 */
export function typesStrictlySettingNoAtomic(schema: Schema, node: TypeNode, value: JsonValue): boolean {
  return new CleanTyping(schema, false, undefined, false, true).valid(node, value, true);
}

/**
 * typesStrictlySettingNoAtomic for a value met below the root of a patch: `guard` false below a map's element
 * type, where the atomic guard does not look (fused-apply.ts takes such a value whole).
 */
export function typesStrictlyGuarded(schema: Schema, node: TypeNode, value: JsonValue, guard: boolean): boolean {
  // validValue's scalar case, without a walker made for it: most new keys of a patch hold a string.
  if (value !== null && typeof value !== 'object') return node.scalar !== undefined && scalarFits(node.scalar, value);
  return new CleanTyping(schema, false, undefined, false, true).valid(node, value, guard);
}

class CleanTyping {
  /** Values visited so far (only differences are used), as the reference counts them for its memo. */
  private visited = 0;

  constructor(
    private readonly schema: Schema,
    private readonly allowDuplicates: boolean,
    private readonly checked: CheckedSubtrees | undefined,
    /** Record the containers found valid in `checked` (see typesCleanly for when that does not pay). */
    private readonly markSubtrees: boolean,
    /**
     * Skip the frozen containers the schema knows to pass the guarded strict walk, and record those found
     * passing (Schema.rememberPassingPatch): a constant `Object{}` literal inside a patch is the same frozen
     * value at every evaluation, so it is walked once per schema.
     */
    private readonly frozenPatches = false,
  ) {}

  /** valid(n, v) when `prev` is valid at `n` (duplicates allowed). */
  validSince(n: TypeNode, v: JsonValue, prev: JsonValue): boolean {
    if (v === prev) return true;
    if (v === null || typeof v !== 'object' || prev === null || typeof prev !== 'object' || Array.isArray(v) !== Array.isArray(prev)) return this.valid(n, v, false);
    if (Array.isArray(v)) {
      const t = n.list;
      if (t === undefined) return false;
      const p = prev as JsonValue[];
      const item = n.item;
      const associative = t.elementRelationship === 'associative';
      for (let i = 0; i < v.length; i++) {
        const x = v[i]!;
        if (i < p.length && x === p[i]) continue;
        // With duplicates allowed an associative item only needs to be keyable (validList).
        if (associative && !keyable(this.schema, t, x)) return false;
        if (!(i < p.length ? this.validSince(item, x, p[i]!) : this.valid(item, x, false))) return false;
      }
      return true;
    }
    if (n.map === undefined) return false;
    const p = prev as JsonObject;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const x = v[key]!;
      // A JSON value is never undefined nor equal to what a map inherits: equal means an own, equal value.
      const px = p[key];
      if (x === px) continue;
      const inPrev = px !== undefined && hasOwn(p, key);
      const child = n.keyNode(key);
      if (child === undefined || !(inPrev ? this.validSince(child, x, px) : this.valid(child, x, false))) return false;
    }
    return true;
  }

  /** `guard`: also answer no for an atomic container where setsNoAtomic would (typesStrictlySettingNoAtomic). */
  valid(n: TypeNode, v: JsonValue, guard: boolean): boolean {
    const checked = this.checked;
    if (checked !== undefined && v !== null && typeof v === 'object') {
      if (checked.isValid(n.tr, v)) return true;
      const before = this.visited;
      if (!this.validValue(n, v, guard)) return false;
      if (this.markSubtrees && this.visited - before >= MEMO_MIN_VALUES) checked.markValid(n.tr, v);
      return true;
    }
    // Strict typing and the guard are facts of the value and the node alone (duplicates are looked for within lists).
    if (this.frozenPatches && guard && v !== null && typeof v === 'object' && Object.isFrozen(v)) {
      if (this.schema.isPassingPatch(n, v)) return true;
      if (!this.validValue(n, v, guard)) return false;
      this.schema.rememberPassingPatch(n, v);
      return true;
    }
    return this.validValue(n, v, guard);
  }

  /** validateValue's cases, folded: see atoms.ts atomFormFor for which form a value selects. */
  private validValue(n: TypeNode, v: JsonValue, guard: boolean): boolean {
    this.visited++;
    if (n.atom === undefined) return false;
    if (v === null) return !n.formless;
    if (typeof v !== 'object') return n.scalar !== undefined && scalarFits(n.scalar, v);
    if (Array.isArray(v)) {
      const t = n.list;
      return t !== undefined && !(guard && t.elementRelationship === 'atomic') && this.validList(n, t, v, guard);
    }
    const t = n.map;
    return t !== undefined && !(guard && t.elementRelationship === 'atomic') && this.validMap(n, v, guard);
  }

  private validMap(n: TypeNode, v: JsonObject, guard: boolean): boolean {
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      // keyNode, knowing whether the field is declared: the guard does not look below the element type.
      const declared = n.declaredNode(key);
      const child = declared ?? (n.closed ? undefined : n.elementNode);
      if (child === undefined || !this.valid(child, v[key]!, guard && declared !== undefined)) return false;
    }
    return true;
  }

  private validList(n: TypeNode, t: ListType, v: JsonValue[], guard: boolean): boolean {
    if (v.length === 0) return true;
    const item = n.item;
    if (t.elementRelationship !== 'associative') {
      for (let i = 0; i < v.length; i++) if (!this.valid(item, v[i]!, guard)) return false;
      return true;
    }
    if (!this.allowDuplicates) return this.validUniqueItems(item, t, v, guard);
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (!keyable(this.schema, t, x) || !this.valid(item, x, guard)) return false;
    }
    return true;
  }

  private validUniqueItems(item: TypeNode, t: ListType, v: JsonValue[], guard: boolean): boolean {
    const seen = new Set<ItemId>();
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      const id = associativeItemId(this.schema, t, x);
      if (id instanceof ItemKeyError || seen.has(id)) return false;
      seen.add(id);
      if (!this.valid(item, x, guard)) return false;
    }
    return true;
  }
}

/**
 * associativeItemError(...) === undefined, without its calls for the common item that has every key field: an
 * item an associative list of a typed object may hold.
 */
export function keyable(schema: Schema, t: ListType, x: JsonValue): boolean {
  const keys = t.keys;
  if (keys.length === 0) return x !== null && typeof x !== 'object';
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  for (let i = 0; i < keys.length; i++) if (!hasOwn(x, keys[i]!)) return associativeItemError(schema, t, x) === undefined;
  return true;
}

/** atomicGuard(...).length === 0: no map at an atomic map position, no list at an atomic list position. */
export function setsNoAtomic(n: TypeNode, v: JsonValue): boolean {
  if (v === null || typeof v !== 'object' || n.atom === undefined) return true;
  if (!Array.isArray(v)) {
    const t = n.map;
    if (t === undefined) return true;
    if (t.elementRelationship === 'atomic') return false;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const child = n.declaredNode(key);
      if (child !== undefined && !setsNoAtomic(child, v[key]!)) return false;
    }
    return true;
  }
  const t = n.list;
  if (t === undefined) return true;
  if (t.elementRelationship === 'atomic') return false;
  if (v.length === 0) return true;
  const item = n.item;
  for (let i = 0; i < v.length; i++) if (!setsNoAtomic(item, v[i]!)) return false;
  return true;
}

/** A memo entry costs about as much as walking a few small containers again (src/engines/ssa.ts). */
const DECLARED_MEMO_MIN_CONTAINERS = 3;

/**
 * The strict decode finds no undeclared field below `v`: containers `checked` knows are skipped, and `v`
 * found clean is recorded (itself only: the next decode compares by identity, see typesCleanly).
 */
export function declaresEveryField(n: TypeNode, v: JsonValue, checked: CheckedSubtrees | undefined): boolean {
  if (!new DeclaredFields(checked, false).declared(n, v)) return false;
  if (checked !== undefined && v !== null && typeof v === 'object') checked.markDeclared(n.tr, v);
  return true;
}

/**
 * declaresEveryField for `v` given `prev`, a value known to declare every field at the same node (the last
 * document this evaluation decoded or typed): a copy-on-write edit of `prev` shares its untouched subtrees,
 * and those (same identity), like keys `prev` has, need no look-up; only what differs is walked.
 */
export function declaresEveryFieldSince(n: TypeNode, v: JsonValue, prev: JsonValue, checked: CheckedSubtrees | undefined): boolean {
  return new DeclaredFields(checked, true).declaredSince(n, v, prev);
}

/**
 * declaresEveryFieldSince for `v` made from `prev` by setting one member: `at` names the object members
 * from the root down to it, and every other member of the containers along it is `prev`'s own (one
 * JSONPatch step, see DocumentEdit in src/interpreter/engines.ts), so the walk goes down that path only,
 * with declaresEveryFieldSince's answer at each step.
 */
export function declaresEveryFieldAlong(n: TypeNode, v: JsonValue, prev: JsonValue, at: readonly string[], checked: CheckedSubtrees | undefined): boolean {
  const walk = new DeclaredFields(checked, true);
  let node = n;
  let cur = v;
  let old = prev;
  for (let i = 0; i < at.length; i++) {
    if (cur === old) return true;
    if (!isMap(cur) || !isMap(old)) return walk.declaredSince(node, cur, old);
    if (node.atom === undefined || node.map === undefined) return true;
    const key = at[i]!;
    // As declaredSince at this level, where `key` is the only member that may differ.
    if (!hasOwn(cur, key)) return walk.declaredSince(node, cur, old);
    const x = cur[key]!;
    const px = old[key];
    const inPrev = px !== undefined && hasOwn(old, key);
    const child = node.keyNode(key);
    if (child === undefined) return false;
    if (!inPrev) return walk.declared(child, x);
    node = child;
    cur = x;
    old = px;
  }
  return walk.declaredSince(node, cur, old);
}

function isMap(v: JsonValue): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

class DeclaredFields {
  private containers = 0;

  constructor(
    private readonly checked: CheckedSubtrees | undefined,
    /** Record the containers found clean in `checked` (see typesCleanly for when that does not pay). */
    private readonly markSubtrees: boolean,
  ) {}

  /** `prev` declares every field at `n`. */
  declaredSince(n: TypeNode, v: JsonValue, prev: JsonValue): boolean {
    if (v === prev) return true;
    if (v === null || typeof v !== 'object' || prev === null || typeof prev !== 'object' || Array.isArray(v) !== Array.isArray(prev)) return this.declared(n, v);
    // As declaredContainer: no atom or a form the atom lacks has nothing to check below it.
    if (n.atom === undefined) return true;
    if (Array.isArray(v)) {
      if (n.list === undefined || v.length === 0) return true;
      const p = prev as JsonValue[];
      const item = n.item;
      for (let i = 0; i < v.length; i++) {
        if (!(i < p.length ? this.declaredSince(item, v[i]!, p[i]!) : this.declared(item, v[i]!))) return false;
      }
      return true;
    }
    if (n.map === undefined) return true;
    const p = prev as JsonObject;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const x = v[key]!;
      // A JSON value is never undefined nor equal to what a map inherits: equal means an own, equal value.
      const px = p[key];
      if (x === px) continue;
      const inPrev = px !== undefined && hasOwn(p, key);
      const child = n.keyNode(key);
      if (child === undefined || !(inPrev ? this.declaredSince(child, x, px) : this.declared(child, x))) return false;
    }
    return true;
  }

  declared(n: TypeNode, v: JsonValue): boolean {
    if (v === null || typeof v !== 'object') return true;
    const checked = this.checked;
    if (checked === undefined) return this.declaredContainer(n, v);
    if (checked.isDeclared(n.tr, v)) return true;
    const before = this.containers;
    if (!this.declaredContainer(n, v)) return false;
    if (this.markSubtrees && this.containers - before >= DECLARED_MEMO_MIN_CONTAINERS) checked.markDeclared(n.tr, v);
    return true;
  }

  private declaredContainer(n: TypeNode, v: JsonValue[] | JsonObject): boolean {
    this.containers++;
    if (n.atom === undefined) return true;
    if (Array.isArray(v)) {
      if (n.list === undefined || v.length === 0) return true;
      const item = n.item;
      for (let i = 0; i < v.length; i++) if (!this.declared(item, v[i]!)) return false;
      return true;
    }
    if (n.map === undefined) return true;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const child = n.keyNode(key);
      if (child === undefined || !this.declared(child, v[key]!)) return false;
    }
    return true;
  }
}
