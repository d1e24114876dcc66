/**
 * Stage (b) of Kyverno's patchStrategicMerge: kustomize kyaml `merge2.Merge(patch, resource,
 * {ListIncreaseDirection: Prepend})` as api/filters/patchstrategicmerge runs it (kyaml v0.21.1), over JSON
 * values, copy-on-write. merge-full.ts is the step-by-step reproduction of kyaml (its header lists the
 * behaviour); this module computes the same result faster and falls back to it wherever that is not provable.
 *
 * Why the fast walk gives the full walk's result:
 * - kyaml walks the union of the resource's and the patch's fields, but a field only the resource has can
 *   change in just one way: an associative list below it (reached through the schema) that kyaml's
 *   bookkeeping rebuilds differently, or a `null` it prunes (walk of a null node with no patch = clear).
 *   `isNormal` checks, without allocating, that neither occurs (every such list has complete, distinct keys
 *   and non-empty map elements — the rebuild is then the identity); only otherwise does the full walk run.
 * - each field's walk is independent of the others', so walking the patch's keys in their own order and
 *   appending new keys in Go-sorted order builds the same map; only the FIRST failure (in sorted order)
 *   would differ, so any failure reruns the whole merge through the full walk to report it as kyaml does.
 * - an associative list where the resource's and the patch's elements both have complete, distinct keys
 *   and no `$patch` element comes out of kyaml's ElementSetter/appendListNode passes as: the patch's elements
 *   (merged with their resource counterparts) in patch order, then the resource's other elements in their
 *   order (walk/associative_sequence.go with Prepend). Everything else goes to the full walk.
 * test/merge/smp/fast-merge.test.ts checks both walks agree on generated resources and patches.
 */
import { defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import { copyForNewKeys } from '../../ir/json-copy.js';
import { compareGoStrings, nodeText, scalarText } from './go-text.js';
import { kyamlMergeFull, walk as fullWalk } from './merge-full.js';
import type { KyamlMergeOptions, MergeOutcome, MergeOwnership } from './merge-types.js';
import type { NormalForms } from './normal-forms.js';
import { elementSchema, fieldSchema, isLeafMergeList, schemaForResourceType, UNMEMOIZED_LIST_MAX, type SchemaRef, type SmpSchema } from './schema.js';

export type { KyamlMergeOptions, MergeFailure, MergeOutcome, MergeOwnership } from './merge-types.js';
export { NormalForms } from './normal-forms.js';
export { kyamlMergeFull } from './merge-full.js';

/** The fast walk gives up: the full walk decides (a failure, or a case it does not reproduce). */
const BAIL: unique symbol = Symbol('bail');
type Fast = JsonValue | undefined | typeof BAIL;

const NO_PATH: string[] = [];

/** A write into a map the caller owns, deferred until the whole fast walk succeeded. */
const DELETE: unique symbol = Symbol('delete');

/** What one merge carries down its walk. */
interface Walk {
  /** The caller's memo of verified containers (KyamlMergeOptions.normalForms). */
  readonly normalForms: NormalForms | undefined;
  /** The maps the merge may change in place (KyamlMergeOptions.owned). */
  readonly owned: MergeOwnership | undefined;
  /**
   * Whether the merge used the full walk for some subtree. Until then every node it builds is in normal form
   * (fields the patch reaches are merged into that form, the others were verified), so it goes into
   * `normalForms` and the next merge of the same document skips it.
   */
  delegated: boolean;
  /**
   * Writes into owned maps as (map, name, value or DELETE) triples, in the order a copy would have received
   * them (so keys end in the same order). Deferred: a bail reruns the full walk on the untouched resource.
   */
  writes: unknown[] | undefined;
  /**
   * The containers that keep their identity while changed in place (the owned maps written, and every
   * container above one): their normal-form facts are forgotten on commit, before `results` are recorded.
   */
  touched: object[] | undefined;
  /** Results in normal form, as (container, schema) pairs, recorded once the merge succeeded. */
  results: object[] | undefined;
  /** The maps this merge created, handed to `owned` once the merge succeeded. */
  created: JsonObject[] | undefined;
}

/**
 * kyaml's merge of `patch` into `resource`. The inputs are never modified, except the maps the caller hands
 * over in `options.owned` (then `inPlace` says so); untouched subtrees are shared, and the result is
 * `resource` itself exactly when it equals `resource` or was changed in place (callers detect a change by
 * identity, and by `inPlace`).
 */
export function kyamlMerge(resource: JsonValue, patch: JsonValue, options: KyamlMergeOptions = {}): MergeOutcome {
  let schema: SchemaRef = null;
  if (options.apiVersion !== undefined && options.kind !== undefined) schema = schemaForResourceType(options.apiVersion, options.kind);
  const cx: Walk = { normalForms: options.normalForms, owned: options.owned, delegated: false, writes: undefined, touched: undefined, results: undefined, created: undefined };
  const value = fastNode(resource, patch, schema, cx);
  if (value === BAIL) {
    const full = kyamlMergeFull(resource, patch, options);
    return full.ok && full.value !== resource && jsonEqual(full.value, resource) ? { ok: true, value: resource } : full;
  }
  if (value === undefined || value === null) {
    return { ok: false, error: { kind: 'other', message: 'filter cannot create or delete objects', path: [] } };
  }
  return commit(cx, value);
}

/** Applies the fast walk's deferred writes and hands its facts (normal forms, created maps) to the caller. */
function commit(cx: Walk, value: JsonValue): MergeOutcome {
  const touched = cx.touched;
  if (touched !== undefined && cx.normalForms !== undefined) for (let i = 0; i < touched.length; i++) cx.normalForms.forget(touched[i]!);
  const results = cx.results;
  if (results !== undefined) for (let i = 0; i < results.length; i += 2) cx.normalForms!.addResult(results[i]!, results[i + 1]!);
  const created = cx.created;
  if (created !== undefined) for (let i = 0; i < created.length; i++) cx.owned!.add(created[i]!);
  const writes = cx.writes;
  if (writes === undefined) return { ok: true, value };
  for (let i = 0; i < writes.length; i += 3) {
    const target = writes[i] as JsonObject;
    const name = writes[i + 1] as string;
    const v = writes[i + 2] as JsonValue | typeof DELETE;
    if (v === DELETE) delete target[name];
    else defineOwn(target, name, v);
  }
  return { ok: true, value, inPlace: true };
}

/**
 * Where fastFields writes: a copy of `dest` made on the first write (created by this merge), or, when the
 * caller owns `dest`, `dest` itself through deferred writes.
 */
function setField(cx: Walk, out: JsonObject | undefined, dest: JsonObject, inPlace: boolean, name: string, value: JsonValue | typeof DELETE): JsonObject {
  if (inPlace) {
    (cx.writes ??= []).push(dest, name, value);
    return dest;
  }
  out ??= copyOf(cx, dest);
  if (value === DELETE) delete out[name];
  else defineOwn(out, name, value);
  return out;
}

/** `dest` keeps its identity: when writes were deferred below (or into) it, it changes in place. */
function noteTouched(cx: Walk, dest: object, writesBefore: number): void {
  if (cx.writes !== undefined && cx.writes.length > writesBefore) (cx.touched ??= []).push(dest);
}

function copyOf(cx: Walk, dest: JsonObject): JsonObject {
  const out = copyForWrites(dest);
  if (cx.owned !== undefined) (cx.created ??= []).push(out);
  return out;
}

/** A shallow copy that later gets new keys (src/ir/json-copy.ts copyForNewKeys: never a spread, see there). */
export const copyForWrites: (m: JsonObject) => JsonObject = copyForNewKeys;

/** The full walk of one subtree (its failure makes the whole merge rerun in full, for the error's path). */
function delegate(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: SchemaRef, cx: Walk): Fast {
  cx.delegated = true;
  NO_PATH.length = 0;
  const step = fullWalk(dest, patch, schema, NO_PATH);
  if (!step.ok) return BAIL;
  // The fast walk returns a node itself whenever the merge leaves it equal (see kyamlMerge); so does this.
  return dest !== undefined && step.value !== dest && step.value !== undefined && jsonEqual(step.value, dest) ? dest : step.value;
}

/** walk.Walker.GetSchema: with no schema, a node carrying apiVersion and kind selects its own. */
export function schemaOfNode(v: JsonValue | undefined): SchemaRef {
  if (!isJsonObject(v)) return null;
  const apiVersion = v.apiVersion;
  const kind = v.kind;
  if (apiVersion === undefined || apiVersion === null || kind === undefined || kind === null) return null;
  const a = nodeText(apiVersion);
  const k = nodeText(kind);
  return a === '' || k === '' ? null : schemaForResourceType(a, k);
}

type NodeKind = 0 | 1 | 2; // map, sequence, scalar

function kindOf(v: JsonValue): NodeKind {
  return Array.isArray(v) ? 1 : typeof v === 'object' && v !== null ? 0 : 2;
}

/** walk.Walker.Walk with merge2's visitors. */
function fastNode(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: SchemaRef, cx: Walk): Fast {
  if (patch === undefined) return destOnly(dest, schema, cx);
  if (schema === null) schema = schemaOfNode(dest) ?? schemaOfNode(patch);
  const destSet = dest !== undefined && dest !== null;
  if (!destSet && patch === null) return null; // VisitMap of two missing nodes: the patch's null
  const kind = kindOf(destSet ? dest : patch);
  if (destSet && patch !== null && kindOf(patch) !== kind) return BAIL; // ErrorIfInvalid
  if (kind === 0) return fastMap(destSet ? (dest as JsonObject) : undefined, patch, schema, cx);
  if (kind === 1 && schema !== null && schema.merge !== undefined) return fastList(destSet ? (dest as JsonValue[]) : undefined, patch, schema, cx);
  // A replaced list equal to the resource's keeps the resource's (see kyamlMerge: identity means unchanged).
  if (kind === 1 && destSet && patch !== dest && jsonEqual(dest, patch)) return dest;
  return patch;
}

/** merge2.Merger.VisitMap followed by walkMap; `$patch` directives go to the full walk. */
function fastMap(dest: JsonObject | undefined, patch: JsonValue, schema: SchemaRef, cx: Walk): Fast {
  if (patch === null) return dest === undefined ? null : undefined;
  if (!isJsonObject(patch)) return BAIL;
  if (patch.$patch !== undefined) return delegate(dest, patch, schema, cx);
  return dest === undefined ? fastFields(patch, patch, schema, cx) : fastFields(dest, patch, schema, cx);
}

/** walkMap's field loop with FieldSetter, following the patch's keys (see the header for why). */
function fastFields(dest: JsonObject, patch: JsonObject, schema: SchemaRef, cx: Walk): Fast {
  const self = dest === patch;
  // The patch is the policy's (or shares its subtrees): only a resource map the caller owns is written in place.
  const inPlace = !self && cx.owned !== undefined && cx.owned.has(dest);
  const writesBefore = cx.writes === undefined ? 0 : cx.writes.length;
  let out: JsonObject | undefined;
  let appended: string[] | undefined;
  let appendedValues: JsonObject | undefined;
  const patchKeys = Object.keys(patch);
  for (let i = 0; i < patchKeys.length; i++) {
    const name = patchKeys[i]!;
    const dv = self ? patch[name] : ownField(dest, name);
    const inDest = dv !== undefined;
    const pv = patch[name]!;
    const value = fastNode(dv, pv, fieldSchema(schema, name), cx);
    if (value === BAIL) return BAIL;
    if (value === undefined || value === null) {
      if (inDest) out = setField(cx, out, dest, inPlace, name, DELETE);
      continue;
    }
    if (inDest) {
      const kept = keepStringStyle(dv!, value);
      if (kept !== dv) out = setField(cx, out, dest, inPlace, name, kept);
    } else {
      (appended ??= []).push(name);
      defineOwn((appendedValues ??= {}), name, value);
    }
  }
  const normalForms = cx.normalForms;
  const tracked = normalForms !== undefined && schema !== null && (schema.values !== undefined || (schema.fieldNames !== undefined && schema.fieldNames.length > 0));
  if (!self && schema !== null && !(tracked && normalForms!.has(dest, schema))) {
    // The resource's own fields that can hold a merge list: unchanged unless not already in normal form.
    if (schema.values !== undefined) {
      for (const name of Object.keys(dest)) {
        if (hasOwn(patch, name)) continue;
        const changed = destOnlyField(dest, name, fieldSchema(schema, name), cx);
        if (changed === BAIL) return BAIL;
        if (changed !== dest[name]) out = setField(cx, out, dest, inPlace, name, changed === undefined || changed === null ? DELETE : changed);
      }
    } else if (schema.fieldNames !== undefined) {
      const names = schema.fieldNames;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        if (ownField(dest, name) === undefined || ownField(patch, name) !== undefined) continue;
        const changed = destOnlyField(dest, name, schema.fieldSchemas![i]!, cx);
        if (changed === BAIL) return BAIL;
        if (changed !== dest[name]) out = setField(cx, out, dest, inPlace, name, changed === undefined || changed === null ? DELETE : changed);
      }
    }
  }
  if (appended !== undefined) {
    if (appended.length > 1) appended.sort(compareGoStrings);
    for (const name of appended) out = setField(cx, out, dest, inPlace, name, appendedValues![name]!);
  }
  const result = out ?? dest;
  if (result === dest) noteTouched(cx, dest, writesBefore);
  if (tracked && !cx.delegated) (cx.results ??= []).push(result, schema!);
  return result;
}

/**
 * `obj`'s own field, or undefined, in one lookup instead of hasOwn and a read: a JSON value is never
 * undefined nor a function, and `__proto__` is the only other name a plain read finds on Object.prototype.
 */
export function ownField(obj: JsonObject, name: string): JsonValue | undefined {
  const v = obj[name];
  if (v === undefined) return undefined;
  if (typeof v === 'function' || name === '__proto__') return hasOwn(obj, name) ? v : undefined;
  return v;
}

function destOnlyField(dest: JsonObject, name: string, schema: SchemaRef, cx: Walk): Fast {
  return destOnly(dest[name], schema, cx);
}

/** A node the patch does not reach: itself when already in normal form, else what the full walk makes of it. */
function destOnly(dest: JsonValue | undefined, schema: SchemaRef, cx: Walk): Fast {
  if (dest === undefined) return undefined;
  return isNormal(dest, schema, cx.normalForms) ? dest : delegate(dest, undefined, schema, cx);
}

/**
 * Whether the full walk with no patch returns `v` itself: no `null` where it walks (a null node with no patch
 * is cleared) and every associative list below it plain (see isPlainList) with elements in normal form.
 */
export function isNormal(v: JsonValue, schema: SchemaRef, normalForms: NormalForms | undefined): boolean {
  if (v === null) return false;
  if (typeof v !== 'object') return true;
  if (schema === null && (schema = schemaOfNode(v)) === null) return true;
  if (Array.isArray(v)) {
    const keys = schema.merge;
    if (keys === undefined) return true;
    // A short list of plain elements: its keys checked again (isPlainList rejects any element but a map).
    if (v.length <= UNMEMOIZED_LIST_MAX && isLeafMergeList(schema)) return isPlainList(v, keys);
    // Rules after the first see the same untouched subtrees (copy-on-write): verify each once per caller memo.
    if (normalForms !== undefined && normalForms.has(v, schema)) return true;
    if (!isPlainList(v, keys)) return false;
    if (keys.length > 0) {
      const elem = elementSchema(schema);
      for (let i = 0; i < v.length; i++) if (!isNormal(v[i]!, elem, normalForms)) return false;
    }
    normalForms?.addVerified(v, schema);
    return true;
  }
  // Maps are not recorded (NormalForms.addVerified): walking one again is cheap once its lists are known.
  if (schema.values !== undefined) {
    if (normalForms !== undefined && normalForms.has(v, schema)) return true;
    for (const name of Object.keys(v)) if (!isNormal(v[name]!, fieldSchema(schema, name), normalForms)) return false;
    return true;
  }
  const names = schema.fieldNames;
  if (names !== undefined && names.length > 0) {
    if (normalForms !== undefined && normalForms.has(v, schema)) return true;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const field = ownField(v, name);
      if (field !== undefined && !isNormal(field, schema.fieldSchemas![i]!, normalForms)) return false;
    }
  }
  return true;
}

/** A merge-key component as kyaml reads it: a non-empty scalar; undefined when missing, null, empty or a collection. */
function keyComponent(el: JsonObject, key: string): string | number | boolean | undefined {
  const v = ownField(el, key);
  if (v === undefined) return undefined;
  if (v === null || typeof v === 'object' || v === '') return undefined;
  return v;
}

function sameText(a: string | number | boolean, b: string | number | boolean): boolean {
  return typeof a === typeof b ? a === b : scalarText(a) === scalarText(b);
}

/**
 * Every element a non-empty map with complete, distinct key text (or, for a set of primitives, a non-empty
 * distinct scalar): kyaml's associative bookkeeping then keeps every element, in order.
 */
export function isPlainList(items: JsonValue[], keys: readonly string[]): boolean {
  const n = items.length;
  for (let i = 0; i < n; i++) {
    const el = items[i]!;
    if (keys.length === 0) {
      if (el === null || typeof el === 'object' || el === '') return false;
      for (let j = 0; j < i; j++) if (sameText(items[j] as string, el)) return false;
      continue;
    }
    // With every key component present the element is a non-empty map.
    if (!isJsonObject(el)) return false;
    for (const k of keys) if (keyComponent(el, k) === undefined) return false;
    for (let j = 0; j < i; j++) if (sameKeys(items[j] as JsonObject, el, keys)) return false;
  }
  return true;
}

function sameKeys(a: JsonObject, b: JsonObject, keys: readonly string[]): boolean {
  for (const k of keys) if (!sameText(a[k] as string, b[k] as string)) return false;
  return true;
}

/**
 * An associative list the patch reaches. The plain case (see the header) is computed directly: patch elements
 * first, merged with their counterparts, then the resource's other elements in order.
 */
function fastList(dest: JsonValue[] | undefined, patch: JsonValue, schema: SmpSchema, cx: Walk): Fast {
  if (patch === null) return dest === undefined ? null : undefined;
  const keys = schema.merge!;
  if (!Array.isArray(patch) || keys.length === 0 || patch.length > 32 || (dest !== undefined && dest.length > 32)) {
    return delegate(dest, patch, schema, cx);
  }
  if (!isPlainList(patch, keys) || (dest !== undefined && !isPlainList(dest, keys))) return delegate(dest, patch, schema, cx);
  for (const p of patch) if ((p as JsonObject).$patch !== undefined) return delegate(dest, patch, schema, cx);
  const elem = elementSchema(schema);
  const writesBefore = cx.writes === undefined ? 0 : cx.writes.length;
  const out: JsonValue[] = [];
  let matched = 0; // bit i: dest[i] has a patch counterpart (lists are at most 32 long here)
  for (const p of patch as JsonObject[]) {
    let di = -1;
    if (dest !== undefined) for (let i = 0; i < dest.length; i++) if (sameKeys(dest[i] as JsonObject, p, keys)) di = i;
    if (di >= 0) matched |= 1 << di;
    const value = fastNode(di >= 0 ? dest![di] : undefined, p, elem, cx);
    if (value === BAIL) return BAIL;
    // kyaml writes a missing key back and drops an emptied element; neither happens with a keyed patch
    // element, but should it, the full walk decides.
    if (!isJsonObject(value)) return delegate(dest, patch, schema, cx);
    for (const k of keys) if (!hasOwn(value, k)) return delegate(dest, patch, schema, cx);
    out.push(value);
  }
  if (dest === undefined) return out;
  for (let i = 0; i < dest.length; i++) {
    if (matched & (1 << i)) continue;
    const value = destOnly(dest[i], elem, cx);
    if (value === BAIL) return BAIL;
    if (!isJsonObject(value)) return delegate(dest, patch, schema, cx);
    out.push(value);
  }
  let result: JsonValue[] = out;
  if (out.length === dest.length) {
    let same = true;
    for (let i = 0; i < out.length && same; i++) same = out[i] === dest[i];
    if (same) result = dest;
  }
  if (result === dest) noteTouched(cx, dest, writesBefore);
  if (cx.normalForms !== undefined && !cx.delegated) (cx.results ??= []).push(result, schema);
  return result;
}

/**
 * FieldSetter gives the new node the existing node's style: over a double-quoted resource string, a patch
 * number or boolean is emitted quoted, i.e. becomes a string.
 */
export function keepStringStyle(existing: JsonValue, value: JsonValue): JsonValue {
  if (typeof existing === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return scalarText(value);
  return value;
}
