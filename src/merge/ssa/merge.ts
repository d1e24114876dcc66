/**
 * The structured merge of structured-merge-diff v6 (typed/merge.go, `TypedValue.Merge` with ruleKeepRHS):
 * what MAP's ApplyConfiguration does with `live.Merge(patch)`. Nothing is ever deleted; scalars and atomic
 * containers are leaves the patch replaces (even with null); granular maps and structs merge key by key;
 * sets and map-lists merge item by item in upstream's order (see mergeListItems).
 *
 * Copy-on-write: the result shares every untouched subtree with `lhs` and every new subtree with `rhs`, and
 * is `lhs` itself when nothing changed. Treat inputs and result as immutable.
 */
import { diagnostic, fail, ok, type Result } from '../../diagnostics/index.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import { copyForNewKeys } from '../../ir/json-copy.js';
import { atomFormFor, invalidAtomMessage, scalarError, scalarFits, type AtomForm } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { ErrorSink, formatValidationErrors, type ValidationError } from './errors.js';
import { associativeItemId, associativeItemString, ItemKeyError, type ItemId } from './list-keys.js';
import type { ListType, MapType, Schema, TypeRef } from './schema.js';
import type { TypeNode } from './type-nodes.js';
import { validateTyped } from './validate.js';

export interface RawMergeResult {
  /** undefined only when upstream's merge produces no value (after errors). */
  readonly value: JsonValue | undefined;
  readonly errors: readonly ValidationError[];
}

interface MergeOutcome extends RawMergeResult {
  /**
   * Some leaf (an atomic or empty container) was replaced by an equal value of another identity: only then
   * can a result other than lhs itself equal lhs.
   */
  readonly equalLeaf: boolean;
}

/**
 * The merge alone, for values already typed with validateTyped (rhs strictly, lhs with duplicates
 * allowed), as `TypedValue.Merge` assumes. Errors are upstream's merge errors (e.g. a list that is neither
 * atomic nor associative).
 */
export function mergeValidated(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue): RawMergeResult {
  const { value, errors } = mergeTypedValues(schema, typeRef, lhs, rhs);
  return { value, errors };
}

/**
 * mergeValidated by the general list walk only (no simpleListItems): the reference the fast shapes are
 * tested against (test/merge/ssa/simple-lists.test.ts).
 */
export function mergeValidatedByGeneralWalk(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue): RawMergeResult {
  const m = new Merger(schema, false);
  const value = m.merge(schema.node(typeRef), lhs, rhs);
  m.sink.release();
  return { value, errors: m.sink.errors };
}

function mergeTypedValues(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue): MergeOutcome {
  const m = new Merger(schema);
  const value = m.merge(schema.node(typeRef), lhs, rhs);
  m.sink.release();
  return { value, errors: m.sink.errors, equalLeaf: m.equalLeaf };
}

/**
 * Types both sides (rhs strictly, lhs tolerating duplicate keys, as MAP does since duplicate-tolerant live
 * objects landed) and merges rhs into lhs. Error texts follow patch/smd.go ApplyStructuredMergeDiff.
 */
export function mergeTyped(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue): Result<JsonValue> {
  const rhsErrors = validateTyped(schema, typeRef, rhs);
  if (rhsErrors.length > 0) return mergeFailure(`failed to convert patch object to typed object: ${formatValidationErrors(rhsErrors)}`);
  return mergeIntoValidatedPatch(schema, typeRef, lhs, rhs);
}

/**
 * The steps after the patch is typed (and, for MAP, guarded): type the live object, then merge. With
 * `keepEqual`, a result equal to lhs (jsonEqual) is lhs itself, so that a caller can tell "changed" by identity.
 */
export function mergeIntoValidatedPatch(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue, checked?: CheckedSubtrees, keepEqual = false): Result<JsonValue> {
  const lhsErrors = validateTyped(schema, typeRef, lhs, checked ? { allowDuplicates: true, checked } : { allowDuplicates: true });
  if (lhsErrors.length > 0) return mergeFailure(`failed to convert original object to typed object: ${formatValidationErrors(lhsErrors)}`);
  const merged = mergeTypedValues(schema, typeRef, lhs, rhs);
  if (merged.errors.length > 0) return mergeFailure(`failed to merge patch: ${formatValidationErrors(merged.errors)}`);
  // typeconverter.go valueToObject: a merge without output has no object to convert back.
  if (merged.value === undefined) return mergeFailure('failed to convert typed object to object: failed to convert value to unstructured for type <nil>');
  // Every container the merge builds differs from its lhs counterpart unless a leaf was swapped for an equal one.
  if (keepEqual && merged.value !== lhs && merged.equalLeaf && jsonEqual(merged.value, lhs)) {
    if (checked?.schema === schema && lhs !== null && typeof lhs === 'object') checked.noteValidDocument(typeRef, lhs);
    return ok(lhs);
  }
  // The result types without errors (duplicates allowed), so the next ApplyConfiguration of this evaluation
  // does not walk it again when it is still the live object, and the next typing or strict decode of a
  // JSONPatch result walks only where that differs from it (CheckedSubtrees.noteValidDocument). Every
  // value of the result is (1) a subtree of
  // lhs at the same type (valid: lhs was just typed), (2) a subtree of rhs at the same type (valid strictly,
  // hence with duplicates allowed), or (3) a container mergeMap / mergeListItems built, of the form rhs has
  // there (so a form the atom has): a map's keys are keys of lhs or rhs (declared, or under the element type,
  // with the same field type as in the walk that typed them) whose values are again (1)-(3), a key whose
  // merge has no output being left out; a list's items are lhs items, rhs items or merges of an lhs item with
  // the rhs item of the same key, which keep every field of that rhs item (its key fields, scalars, come out
  // as the rhs values, doScalar returning rhs), so every item stays keyable. Scalars and atomic containers
  // are rhs's. A merge that reports an error outside a list item fails above; an item whose merge fails is
  // left out (upstream drops those errors), which keeps the list valid.
  if (checked?.schema === schema && merged.value !== null && typeof merged.value === 'object') checked.noteValidDocument(typeRef, merged.value);
  return ok(merged.value);
}

export function mergeFailure(message: string): Result<never> {
  return fail(diagnostic('TM3010', { phase: 'eval', dialect: 'map', message }));
}

class Merger {
  readonly sink: ErrorSink;
  /** See MergeOutcome.equalLeaf. */
  equalLeaf = false;
  /** See Schema.hasUnmergeableLists: untouched subtrees must then be walked for upstream's errors. */
  private readonly walkUntouched: boolean;

  constructor(
    private readonly schema: Schema,
    /** Take simpleListItems for the list shapes it knows (off only for the reference). */
    private readonly simpleLists = true,
  ) {
    this.sink = new ErrorSink(schema);
    this.walkUntouched = schema.hasUnmergeableLists();
  }

  /**
   * mergingWalker.merge. `undefined` is an absent side (Go nil), `null` a present null. With one side
   * absent the other is the result verbatim: upstream rebuilds it unchanged.
   */
  merge(n: TypeNode, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    const tr = n.tr;
    if (rhs === undefined) {
      if (this.walkUntouched && lhs !== undefined) this.walkOneSide(tr, lhs);
      return lhs;
    }
    if (lhs === undefined) {
      if (this.walkUntouched) this.walkOneSide(tr, rhs);
      return rhs;
    }
    if (n.atom === undefined) {
      this.sink.report(`schema error: no type found matching: ${tr.namedType ?? ''}`);
      return undefined;
    }
    // The form is chosen by rhs. When lhs has another form upstream first runs it on a copy of the walker
    // whose output is discarded; only its errors matter, and only for lists that cannot be indexed.
    const form = nodeFormFor(n, rhs);
    if (this.walkUntouched && nodeFormFor(n, lhs) !== form) this.walkOneSide(tr, lhs);
    switch (form) {
      case 'map':
        return this.mergeMap(n, n.map!, lhs, rhs);
      case 'scalar': {
        // doScalar: fails only when neither side is a valid scalar.
        if (scalarFits(n.scalar!, lhs)) return rhs;
        const le = scalarError(n.scalar!, lhs, 'lhs: ');
        const re = le === undefined ? undefined : scalarError(n.scalar!, rhs, 'rhs: ');
        if (le !== undefined && re !== undefined) {
          this.sink.report(le);
          this.sink.report(re);
          return undefined;
        }
        return rhs;
      }
      case 'list':
        return this.mergeList(n, n.list!, lhs, rhs);
      case 'none':
        this.sink.report(invalidAtomMessage(tr.namedType));
        return undefined;
    }
  }

  /** rhs, replacing the whole of lhs; notes when they are equal (MergeOutcome.equalLeaf). */
  private leaf(lhs: JsonValue, rhs: JsonValue): JsonValue {
    if (!this.equalLeaf && lhs !== rhs && jsonEqual(lhs, rhs)) this.equalLeaf = true;
    return rhs;
  }

  /** doMap: a value of the wrong form counts as absent (derefMap's error is dropped upstream). */
  private mergeMap(n: TypeNode, t: MapType, lhs: JsonValue, rhs: JsonValue): JsonValue | undefined {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic') return this.leaf(lhs, rhs);
    // Both empty-or-null is a leaf, which keeps the {} / null distinction of rhs. (When both are maps, the
    // loop below finds whether rhs is empty: no emptiness walk for the usual non-empty patch.)
    if (r === undefined) {
      if (isEmptyObject(l)) return this.leaf(lhs, rhs);
      if (this.walkUntouched) this.walkMapEntries(t, l!);
      return l;
    }
    if (l === undefined) {
      if (isEmptyObject(r)) return this.leaf(lhs, rhs);
      if (this.walkUntouched) this.walkMapEntries(t, r);
      return r;
    }
    let out: JsonObject | undefined;
    let rhsEmpty = true;
    for (const key in r) {
      if (!hasOwn(r, key)) continue;
      rhsEmpty = false;
      const rv = r[key]!;
      let merged: JsonValue | undefined;
      if (hasOwn(l, key)) {
        const lv = l[key]!;
        this.sink.push(key);
        merged = this.merge(n.fieldOrElementNode(key), lv, rv);
        this.sink.pop();
        if (merged === lv) continue;
      } else {
        merged = this.walkUntouched ? this.mergeAt(key, n.fieldOrElementNode(key), undefined, rv) : rv;
      }
      out ??= addsKeys(l, r) ? copyForNewKeys(l) : copyObject(l);
      // A child without output is left out (visitMapItem only sets keys with output).
      if (merged === undefined) delete out[key];
      else defineOwn(out, key, merged);
    }
    if (rhsEmpty && isEmptyObject(l)) return this.leaf(lhs, rhs);
    if (this.walkUntouched) {
      for (const key of Object.keys(l)) if (!hasOwn(r, key)) this.mergeAt(key, n.fieldOrElementNode(key), l[key]!, undefined);
    }
    return out ?? l;
  }

  private mergeAt(field: string, n: TypeNode, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    this.sink.push(field);
    const v = this.merge(n, lhs, rhs);
    this.sink.pop();
    return v;
  }

  /** doList. */
  private mergeList(n: TypeNode, t: ListType, lhs: JsonValue, rhs: JsonValue): JsonValue | undefined {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) return this.leaf(lhs, rhs);
    return this.mergeListItems(n, t, l, r);
  }

  /**
   * visitListItems. Items are identified by key (rhs duplicates are errors; a key repeated in lhs maps to
   * null, so the rhs item replaces all its copies and they collapse into one). The walk emits lhs-only items
   * in place, shared and rhs-only items in rhs order: lhs [a,b,c,d] + rhs [d,e,f,a] gives [b,c,d,e,f,a].
   */
  private mergeListItems(n: TypeNode, t: ListType, l: JsonValue[] | undefined, r: JsonValue[] | undefined): JsonValue | undefined {
    const lhs = l ?? [];
    const rhs = r ?? [];
    // One side empty: upstream rebuilds the other unchanged. Indexing could only fail on values typing
    // rejects, or on lists that are not associative (then walkUntouched is set and we index to report it).
    if (!this.walkUntouched) {
      if (rhs.length === 0) return l;
      if (lhs.length === 0) return r;
    }
    const errorsBefore = this.sink.count;
    const rhsIds = this.indexItems(t, rhs, false);
    const lhsIds = this.indexItems(t, lhs, true);
    if (this.sink.count > errorsBefore || rhsIds === undefined || lhsIds === undefined) return undefined;
    const simple = this.simpleLists ? this.simpleListItems(n, t, lhs, rhs, lhsIds, rhsIds) : NOT_SIMPLE;
    if (simple !== NOT_SIMPLE) {
      if (simple === undefined) return undefined;
      return l !== undefined && sameItems(simple, l) ? l : simple;
    }

    const observedRhs = new Map<ItemId, JsonValue>();
    for (let i = 0; i < rhs.length; i++) observedRhs.set(rhsIds[i]!, rhs[i]!);
    // A duplicated lhs key is observed as null: the rhs item then merges against null, not against a copy.
    const observedLhs = new Map<ItemId, JsonValue>();
    for (let i = 0; i < lhs.length; i++) {
      const id = lhsIds[i]!;
      observedLhs.set(id, observedLhs.has(id) ? null : lhs[i]!);
    }

    const sharedOrder: ItemId[] = [];
    for (const id of rhsIds) if (observedLhs.has(id)) sharedOrder.push(id);
    let sharedAt = 0;
    let nextShared: ItemId | undefined = sharedOrder[sharedAt++];

    const mergedRhs = new Set<ItemId>();
    const out: JsonValue[] = [];
    const lLen = lhs.length;
    const rLen = rhs.length;
    let li = 0;
    let ri = 0;
    while (li < lLen || ri < rLen) {
      if (li < lLen && ri < rLen) {
        const id = lhsIds[li]!;
        if (id === rhsIds[ri]) {
          mergedRhs.add(id);
          this.emitItem(out, n, t, observedLhs.get(id), observedRhs.get(id), rhs[ri]!);
          li++;
          ri++;
          nextShared = sharedOrder[sharedAt++];
          continue;
        }
        if (observedRhs.has(id) && nextShared !== undefined && nextShared !== id) {
          // A shared item whose turn (in rhs order) has not come: it is emitted when rhs reaches it.
          li++;
          continue;
        }
      }
      if (li < lLen) {
        const id = lhsIds[li]!;
        if (!observedRhs.has(id)) {
          // The actual item at this index, so lhs duplicates the patch does not name all survive.
          this.emitItem(out, n, t, lhs[li]!, undefined, lhs[li]!);
          li++;
          continue;
        } else if (mergedRhs.has(id)) {
          // Already merged: skip it, and (as upstream) fall through to take the next rhs item.
          li++;
        }
      }
      if (ri < rLen) {
        const id = rhsIds[ri]!;
        mergedRhs.add(id);
        this.emitItem(out, n, t, observedLhs.get(id), observedRhs.get(id), rhs[ri]!);
        ri++;
        if (nextShared === id) nextShared = sharedOrder[sharedAt++];
      }
    }
    if (out.length === 0) return undefined;
    return l !== undefined && sameItems(out, l) ? l : out;
  }

  /**
   * The walk below for the two shapes most patches take, without its maps: the same keys in the same order
   * (every item merges with its counterpart), or no key in common (lhs items in place, then rhs items).
   * Returns the items, undefined for none, or NOT_SIMPLE for any other shape.
   */
  private simpleListItems(n: TypeNode, t: ListType, lhs: JsonValue[], rhs: JsonValue[], lhsIds: ItemId[], rhsIds: ItemId[]): JsonValue[] | undefined | typeof NOT_SIMPLE {
    const out: JsonValue[] = [];
    if (lhsIds.length === rhsIds.length && sameItems(lhsIds, rhsIds)) {
      // rhs keys are unique (indexItems), so lhs keys are too: each item is observed as itself.
      for (let i = 0; i < rhs.length; i++) this.emitItem(out, n, t, lhs[i]!, rhs[i]!, rhs[i]!);
      return out.length === 0 ? undefined : out;
    }
    if (lhsIds.length * rhsIds.length > SMALL_LIST_PRODUCT) return NOT_SIMPLE;
    for (const id of rhsIds) if (lhsIds.includes(id)) return NOT_SIMPLE;
    for (let i = 0; i < lhs.length; i++) this.emitItem(out, n, t, lhs[i]!, undefined, lhs[i]!);
    for (let i = 0; i < rhs.length; i++) this.emitItem(out, n, t, undefined, rhs[i]!, rhs[i]!);
    return out.length === 0 ? undefined : out;
  }

  /**
   * mergeListItem. Upstream drops the item's errors (`mergeOut, errs := ...` shadows the outer `errs` in
   * visitListItems), so they are discarded here too; an item without output is left out.
   */
  private emitItem(out: JsonValue[], n: TypeNode, t: ListType, lhs: JsonValue | undefined, rhs: JsonValue | undefined, keyed: JsonValue): void {
    const before = this.sink.count;
    this.sink.pushItem(t, keyed);
    const v = this.merge(n.item, lhs, rhs);
    this.sink.pop();
    this.sink.truncate(before);
    if (v !== undefined) out.push(v);
  }

  /** indexListPathElements: item identities, or undefined after reporting errors. */
  private indexItems(t: ListType, items: readonly JsonValue[], allowDuplicates: boolean): ItemId[] | undefined {
    const ids: ItemId[] = [];
    // Short lists look their keys up in `ids` itself (the same SameValueZero test as a Set).
    const seen = allowDuplicates || items.length <= SMALL_LIST ? undefined : new Set<ItemId>();
    let failed = false;
    for (let i = 0; i < items.length; i++) {
      if (t.elementRelationship !== 'associative') {
        this.sink.report(`element ${i}: invalid indexing of non-associative list`);
        failed = true;
        continue;
      }
      const id = associativeItemId(this.schema, t, items[i]!);
      if (id instanceof ItemKeyError) {
        this.sink.report(`element ${i}: ${id.error}`);
        failed = true;
        continue;
      }
      if (!allowDuplicates) {
        if (seen === undefined ? ids.includes(id) : seen.has(id)) {
          this.sink.report(`duplicate entries for key ${associativeItemString(this.schema, t, items[i]!)}`);
          failed = true;
          continue;
        }
        seen?.add(id);
      }
      ids.push(id);
    }
    return failed ? undefined : ids;
  }

  /** The errors upstream reports while rebuilding a one-sided value (only lists that cannot be indexed). */
  private walkOneSide(tr: TypeRef, v: JsonValue): void {
    const atom = this.schema.resolve(tr);
    if (atom === undefined) return;
    switch (atomFormFor(atom, v)) {
      case 'map': {
        const t = atom.map!;
        if (t.elementRelationship === 'atomic' || !isJsonObject(v) || isEmptyObject(v)) return;
        this.walkMapEntries(t, v);
        return;
      }
      case 'list': {
        const t = atom.list!;
        if (t.elementRelationship === 'atomic' || !Array.isArray(v) || v.length === 0) return;
        const ids = this.indexItems(t, v, true);
        if (ids === undefined) return;
        for (const item of v) {
          const before = this.sink.count;
          this.sink.pushItem(t, item);
          this.walkOneSide(t.elementType, item);
          this.sink.pop();
          this.sink.truncate(before);
        }
        return;
      }
      default:
        return;
    }
  }

  private walkMapEntries(t: MapType, m: JsonObject): void {
    for (const key of Object.keys(m)) {
      this.sink.push(key);
      this.walkOneSide(t.fieldIndex.get(key)?.type ?? t.elementType, m[key]!);
      this.sink.pop();
    }
  }
}

/** Lists up to this long are searched instead of hashed. */
const SMALL_LIST = 16;
/** Up to this many (lhs, rhs) key pairs, a patch list with no key in common with lhs is found by search. */
const SMALL_LIST_PRODUCT = 64;
const NOT_SIMPLE: unique symbol = Symbol('not a simple list merge');

/**
 * atomFormFor(n.atom, v) read from the node, whose members are all present: an atom holds only the forms it
 * has, and reading a member an object lacks is a slow look-up in V8 once the read site has seen several shapes.
 */
function nodeFormFor(n: TypeNode, v: JsonValue): AtomForm {
  if (v !== null) {
    if (typeof v !== 'object') {
      if (n.scalar !== undefined) return 'scalar';
    } else if (Array.isArray(v)) {
      if (n.list !== undefined) return 'list';
    } else if (n.map !== undefined) {
      return 'map';
    }
  }
  if (n.map !== undefined) return 'map';
  if (n.scalar !== undefined) return 'scalar';
  if (n.list !== undefined) return 'list';
  return 'none';
}

/** rhs has a key lhs lacks, so that the copy of lhs gets new keys (see src/ir/json-copy.ts). */
function addsKeys(l: JsonObject, r: JsonObject): boolean {
  for (const key in r) if (hasOwn(r, key) && !hasOwn(l, key)) return true;
  return false;
}

function isEmptyObject(m: JsonObject | undefined): boolean {
  if (m === undefined) return true;
  for (const k in m) if (hasOwn(m, k)) return false;
  return true;
}

function sameItems(a: readonly JsonValue[], b: readonly JsonValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
export { atomicGuard, atomicGuardMessage } from './atomic-guard.js';
