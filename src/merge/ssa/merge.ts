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
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { atomFormFor, invalidAtomMessage, scalarError } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { ErrorSink, formatValidationErrors, type ValidationError } from './errors.js';
import { associativeItemId, associativeItemString, ItemKeyError, type ItemId } from './list-keys.js';
import type { ListType, MapType, Schema, TypeRef } from './schema.js';
import { validateTyped } from './validate.js';

export interface RawMergeResult {
  /** undefined only when upstream's merge produces no value (after errors). */
  readonly value: JsonValue | undefined;
  readonly errors: readonly ValidationError[];
}

/**
 * The merge alone, for values already typed with validateTyped (rhs strictly, lhs with duplicates
 * allowed), as `TypedValue.Merge` assumes. Errors are upstream's merge errors (e.g. a list that is neither
 * atomic nor associative).
 */
export function mergeValidated(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue): RawMergeResult {
  return mergeTypedValues(schema, typeRef, lhs, rhs, undefined);
}

/** mergeValidated, recording in `checked` the containers it builds (see mergeIntoValidatedPatch for why they are valid). */
function mergeTypedValues(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue, checked: CheckedSubtrees | undefined): RawMergeResult {
  const m = new Merger(schema, checked?.schema === schema ? checked : undefined);
  const value = m.merge(typeRef, lhs, rhs);
  m.sink.release();
  return { value, errors: m.sink.errors };
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

/** The steps after the patch is typed (and, for MAP, guarded): type the live object, then merge. */
export function mergeIntoValidatedPatch(schema: Schema, typeRef: TypeRef, lhs: JsonValue, rhs: JsonValue, checked?: CheckedSubtrees): Result<JsonValue> {
  const lhsErrors = validateTyped(schema, typeRef, lhs, checked ? { allowDuplicates: true, checked } : { allowDuplicates: true });
  if (lhsErrors.length > 0) return mergeFailure(`failed to convert original object to typed object: ${formatValidationErrors(lhsErrors)}`);
  const merged = mergeTypedValues(schema, typeRef, lhs, rhs, checked);
  if (merged.errors.length > 0) return mergeFailure(`failed to merge patch: ${formatValidationErrors(merged.errors)}`);
  // typeconverter.go valueToObject: a merge without output has no object to convert back.
  if (merged.value === undefined) return mergeFailure('failed to convert typed object to object: failed to convert value to unstructured for type <nil>');
  // The result types without errors (duplicates allowed), so the next ApplyConfiguration of this evaluation
  // does not walk it again when it is still the live object, nor the typed decode of a JSONPatch result the
  // containers it shares with it (the Merger records the containers it builds). Every value of the result is (1) a subtree of
  // lhs at the same type (valid: lhs was just typed), (2) a subtree of rhs at the same type (valid strictly,
  // hence with duplicates allowed), or (3) a container mergeMap / mergeListItems built, of the form rhs has
  // there (so a form the atom has): a map's keys are keys of lhs or rhs (declared, or under the element type,
  // with the same field type as in the walk that typed them) whose values are again (1)-(3), a key whose
  // merge has no output being left out; a list's items are lhs items, rhs items or merges of an lhs item with
  // the rhs item of the same key, which keep every field of that rhs item (its key fields, scalars, come out
  // as the rhs values, doScalar returning rhs), so every item stays keyable. Scalars and atomic containers
  // are rhs's. A merge that reports an error outside a list item fails above; an item whose merge fails is
  // left out (upstream drops those errors), which keeps the list valid.
  if (checked?.schema === schema && merged.value !== null && typeof merged.value === 'object') checked.markValid(typeRef, merged.value);
  return ok(merged.value);
}

export function mergeFailure(message: string): Result<never> {
  return fail(diagnostic('TM3010', { phase: 'eval', dialect: 'map', message }));
}

class Merger {
  readonly sink: ErrorSink;
  /** See Schema.hasUnmergeableLists: untouched subtrees must then be walked for upstream's errors. */
  private readonly walkUntouched: boolean;

  /**
   * Where the containers the merge builds are recorded as valid; only for inputs typed as
   * mergeIntoValidatedPatch types them. Each is valid by itself, whatever happens elsewhere in the merge
   * (see there); one the merge later discards is unreachable, so its entry is never looked up.
   */
  private readonly checked: CheckedSubtrees | undefined;

  constructor(
    private readonly schema: Schema,
    checked?: CheckedSubtrees,
  ) {
    this.checked = checked;
    this.sink = new ErrorSink(schema);
    this.walkUntouched = schema.hasUnmergeableLists();
  }

  /**
   * mergingWalker.merge. `undefined` is an absent side (Go nil), `null` a present null. With one side
   * absent the other is the result verbatim: upstream rebuilds it unchanged.
   */
  merge(tr: TypeRef, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    if (rhs === undefined) {
      if (this.walkUntouched && lhs !== undefined) this.walkOneSide(tr, lhs);
      return lhs;
    }
    if (lhs === undefined) {
      if (this.walkUntouched) this.walkOneSide(tr, rhs);
      return rhs;
    }
    const atom = this.schema.resolve(tr);
    if (atom === undefined) {
      this.sink.report(`schema error: no type found matching: ${tr.namedType ?? ''}`);
      return undefined;
    }
    // The form is chosen by rhs. When lhs has another form upstream first runs it on a copy of the walker
    // whose output is discarded; only its errors matter, and only for lists that cannot be indexed.
    const form = atomFormFor(atom, rhs);
    if (this.walkUntouched && atomFormFor(atom, lhs) !== form) this.walkOneSide(tr, lhs);
    switch (form) {
      case 'map':
        return this.built(tr, lhs, rhs, this.mergeMap(atom.map!, lhs, rhs));
      case 'scalar': {
        // doScalar: fails only when neither side is a valid scalar.
        const le = scalarError(atom.scalar!, lhs, 'lhs: ');
        const re = le === undefined ? undefined : scalarError(atom.scalar!, rhs, 'rhs: ');
        if (le !== undefined && re !== undefined) {
          this.sink.report(le);
          this.sink.report(re);
          return undefined;
        }
        return rhs;
      }
      case 'list':
        return this.built(tr, lhs, rhs, this.mergeList(atom.list!, lhs, rhs));
      case 'none':
        this.sink.report(invalidAtomMessage(tr.namedType));
        return undefined;
    }
  }

  /** Records `v` as valid at `tr` when the merge built it (it is neither input). */
  private built(tr: TypeRef, lhs: JsonValue, rhs: JsonValue, v: JsonValue | undefined): JsonValue | undefined {
    if (this.checked !== undefined && v !== lhs && v !== rhs && v !== undefined && v !== null && typeof v === 'object') this.checked.markValid(tr, v);
    return v;
  }

  /** doMap: a value of the wrong form counts as absent (derefMap's error is dropped upstream). */
  private mergeMap(t: MapType, lhs: JsonValue, rhs: JsonValue): JsonValue | undefined {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    // Both empty-or-null is a leaf, which keeps the {} / null distinction of rhs.
    if (t.elementRelationship === 'atomic' || (isEmptyObject(l) && isEmptyObject(r))) return rhs;
    if (r === undefined) {
      if (this.walkUntouched) this.walkMapEntries(t, l!);
      return l;
    }
    if (l === undefined) {
      if (this.walkUntouched) this.walkMapEntries(t, r);
      return r;
    }
    let out: JsonObject | undefined;
    for (const key in r) {
      if (!hasOwn(r, key)) continue;
      const fieldType = t.fieldIndex.get(key)?.type ?? t.elementType;
      const rv = r[key]!;
      let merged: JsonValue | undefined;
      if (hasOwn(l, key)) {
        const lv = l[key]!;
        this.sink.push(key);
        merged = this.merge(fieldType, lv, rv);
        this.sink.pop();
        if (merged === lv) continue;
      } else {
        merged = this.walkUntouched ? this.mergeAt(key, fieldType, undefined, rv) : rv;
      }
      out ??= copyObject(l);
      // A child without output is left out (visitMapItem only sets keys with output).
      if (merged === undefined) delete out[key];
      else defineOwn(out, key, merged);
    }
    if (this.walkUntouched) {
      for (const key of Object.keys(l)) if (!hasOwn(r, key)) this.mergeAt(key, t.fieldIndex.get(key)?.type ?? t.elementType, l[key]!, undefined);
    }
    return out ?? l;
  }

  private mergeAt(field: string, tr: TypeRef, lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
    this.sink.push(field);
    const v = this.merge(tr, lhs, rhs);
    this.sink.pop();
    return v;
  }

  /** doList. */
  private mergeList(t: ListType, lhs: JsonValue, rhs: JsonValue): JsonValue | undefined {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    if (t.elementRelationship === 'atomic' || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) return rhs;
    return this.mergeListItems(t, l, r);
  }

  /**
   * visitListItems. Items are identified by key (rhs duplicates are errors; a key repeated in lhs maps to
   * null, so the rhs item replaces all its copies and they collapse into one). The walk emits lhs-only items
   * in place, shared and rhs-only items in rhs order: lhs [a,b,c,d] + rhs [d,e,f,a] gives [b,c,d,e,f,a].
   */
  private mergeListItems(t: ListType, l: JsonValue[] | undefined, r: JsonValue[] | undefined): JsonValue | undefined {
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
          this.emitItem(out, t, observedLhs.get(id), observedRhs.get(id), rhs[ri]!);
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
          this.emitItem(out, t, lhs[li]!, undefined, lhs[li]!);
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
        this.emitItem(out, t, observedLhs.get(id), observedRhs.get(id), rhs[ri]!);
        ri++;
        if (nextShared === id) nextShared = sharedOrder[sharedAt++];
      }
    }
    if (out.length === 0) return undefined;
    return l !== undefined && sameItems(out, l) ? l : out;
  }

  /**
   * mergeListItem. Upstream drops the item's errors (`mergeOut, errs := ...` shadows the outer `errs` in
   * visitListItems), so they are discarded here too; an item without output is left out.
   */
  private emitItem(out: JsonValue[], t: ListType, lhs: JsonValue | undefined, rhs: JsonValue | undefined, keyed: JsonValue): void {
    const before = this.sink.count;
    this.sink.pushItem(t, keyed);
    const v = this.merge(t.elementType, lhs, rhs);
    this.sink.pop();
    this.sink.truncate(before);
    if (v !== undefined) out.push(v);
  }

  /** indexListPathElements: item identities, or undefined after reporting errors. */
  private indexItems(t: ListType, items: readonly JsonValue[], allowDuplicates: boolean): ItemId[] | undefined {
    const ids: ItemId[] = [];
    const seen = allowDuplicates ? undefined : new Set<ItemId>();
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
      if (seen !== undefined) {
        if (seen.has(id)) {
          this.sink.report(`duplicate entries for key ${associativeItemString(this.schema, t, items[i]!)}`);
          failed = true;
          continue;
        }
        seen.add(id);
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
