/**
 * The reference (full-walk) form of stage (b) of Kyverno's patchStrategicMerge: kustomize kyaml `merge2.Merge(patch, resource,
 * {ListIncreaseDirection: Prepend})` as api/filters/patchstrategicmerge runs it (kyaml v0.21.1,
 * kyaml/yaml/walk + merge2 + yaml/fns.go), over JSON values, copy-on-write.
 *
 * What kyaml does, and so what this does:
 * - maps merge key by key; a patch `null` clears; keys new to a map are appended in sorted (Go byte) order;
 * - a patch scalar replacing a resource STRING keeps the string's quoting (FieldSetter copies the node
 *   style), so a number or boolean written over a string comes out as a string;
 * - lists follow the field's schema (schema.ts): a `merge` strategy makes them associative, keyed by the
 *   list-map keys or the merge key (none: a set of primitives); anything else, including every list of an
 *   unknown kind, is replaced by the patch list;
 * - associative results put the patch's elements first (patch order), then the resource's others;
 * - `$patch: delete | replace | merge` on a map, and a lone `{$patch: ...}` element of an associative list;
 *   `$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...` are ordinary keys to kyaml;
 * - kyaml's associative-list bookkeeping is reproduced step by step (walk/associative_sequence.go,
 *   ElementSetter): elements lacking the merge key, duplicate keys, empty or null elements and multi-key
 *   lists behave exactly as upstream, including the cases that drop elements (kustomize#5150, #5369).
 *   The resource's own associative lists go through it even where the patch does not touch them.
 */
// merge.ts runs a faster walk that only follows the patch's keys and checks, without allocating, that the
// resource's untouched parts are already in kyaml's normal form; it falls back to this code for every part
// where that does not hold and for every failure (so errors are reported exactly as the full walk does).
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { compareGoStrings, nodeText, resolvePlainScalar, scalarText } from './go-text.js';
import { elementSchema, fieldMayHoldMergeList, fieldSchema, schemaForResourceType, type SchemaRef } from './schema.js';

import type { KyamlMergeOptions, MergeFailure, MergeOutcome, Step } from './merge-types.js';

class Failure {
  constructor(readonly error: MergeFailure) {}
}

/** kyaml's merge of `patch` into `resource`. The inputs are never modified; untouched subtrees are shared. */
export function kyamlMergeFull(resource: JsonValue, patch: JsonValue, options: KyamlMergeOptions = {}): MergeOutcome {
  let schema: SchemaRef = null;
  if (options.apiVersion !== undefined && options.kind !== undefined) schema = schemaForResourceType(options.apiVersion, options.kind);
  const step = walk(resource, patch, schema, []);
  if (!step.ok) return step;
  if (step.value === undefined || step.value === null) {
    return { ok: false, error: { kind: 'other', message: 'filter cannot create or delete objects', path: [] } };
  }
  return { ok: true, value: step.value };
}

const isMissingOrNull = (v: JsonValue | undefined): v is undefined | null => v === undefined || v === null;
const isEmptyMap = (v: JsonValue | undefined): boolean => isJsonObject(v) && Object.keys(v).length === 0;

function kindOf(v: JsonValue): 'MappingNode' | 'SequenceNode' | 'ScalarNode' {
  return Array.isArray(v) ? 'SequenceNode' : isJsonObject(v) ? 'MappingNode' : 'ScalarNode';
}

function wrongKind(expected: string, got: JsonValue, path: string[]): Failure {
  return new Failure({
    kind: 'kind',
    message: `wrong Node Kind for ${path.join('.')} expected: ${expected} was ${kindOf(got)}: value: {${JSON.stringify(got)}}`,
    path: [...path],
  });
}

/** walk.Walker.GetSchema: with no schema, a node carrying apiVersion and kind selects its own. */
function schemaOfNode(v: JsonValue | undefined): SchemaRef {
  if (!isJsonObject(v)) return null;
  const apiVersion = v.apiVersion;
  const kind = v.kind;
  if (isMissingOrNull(apiVersion) || isMissingOrNull(kind)) return null;
  const a = nodeText(apiVersion);
  const k = nodeText(kind);
  return a === '' || k === '' ? null : schemaForResourceType(a, k);
}

export function walk(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: SchemaRef, path: string[]): Step {
  try {
    return walkNode(dest, patch, schema, path);
  } catch (e) {
    if (e instanceof Failure) return { ok: false, error: e.error };
    throw e;
  }
}

/** walk.Walker.Walk: the first non-null source decides the node kind; the other must agree or be null. */
function walkNode(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: SchemaRef, path: string[]): Step {
  if (schema === null) schema = schemaOfNode(dest) ?? schemaOfNode(patch);
  const first = !isMissingOrNull(dest) ? dest : !isMissingOrNull(patch) ? patch : undefined;
  if (first === undefined) return visitMap(dest, patch, schema, path);
  const kind = kindOf(first);
  for (const s of [dest, patch]) if (!isMissingOrNull(s) && kindOf(s) !== kind) throw wrongKind(kind, s, path);
  if (kind === 'MappingNode') return visitMap(dest, patch, schema, path);
  if (kind === 'SequenceNode') {
    if (schema !== null && schema.merge !== undefined) return visitAssociativeList(dest, patch, schema, path);
    // Non-associative: the patch list (or null) replaces the resource list as is.
    return patch !== undefined ? { ok: true, value: patch, inPlace: false } : { ok: true, value: dest, inPlace: true };
  }
  return patch !== undefined ? { ok: true, value: patch, inPlace: false } : { ok: true, value: dest, inPlace: true };
}

type Directive = 'merge' | 'replace' | 'delete';

/** merge2 determineMappingNodePatchStrategy: reads and elides `$patch`. */
function mapDirective(patch: JsonObject): { directive: Directive; patch: JsonObject } | { unknown: string } {
  if (!hasOwn(patch, '$patch')) return { directive: 'merge', patch };
  const v = nodeText(patch.$patch);
  if (v !== 'delete' && v !== 'replace' && v !== 'merge') return { unknown: v };
  const elided: JsonObject = {};
  for (const k of Object.keys(patch)) if (k !== '$patch') defineOwn(elided, k, patch[k]!);
  return { directive: v, patch: elided };
}

/** merge2.Merger.VisitMap followed by walkMap. */
function visitMap(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: SchemaRef, path: string[]): Step {
  if (isMissingOrNull(dest)) {
    if (!isJsonObject(patch)) return { ok: true, value: patch, inPlace: false }; // absent, or null: cleared
    // Added: an unknown directive is ignored here (upstream drops the error) and stays as a key.
    const d = mapDirective(patch);
    if ('directive' in d && d.directive === 'delete') return { ok: true, value: undefined, inPlace: false };
    const added = 'directive' in d ? d.patch : patch;
    return { ok: true, value: walkFields(added, added, schema, path), inPlace: false };
  }
  const d = dest as JsonObject;
  if (patch === null) return { ok: true, value: undefined, inPlace: false };
  if (patch === undefined) return { ok: true, value: walkFields(d, undefined, schema, path), inPlace: true };
  const directive = mapDirective(patch as JsonObject);
  if ('unknown' in directive) {
    throw new Failure({ kind: 'directive', message: `unknown patch strategy '${directive.unknown}'`, path: [...path] });
  }
  if (directive.directive === 'delete') return { ok: true, value: undefined, inPlace: false };
  if (directive.directive === 'replace') {
    return { ok: true, value: walkFields(directive.patch, directive.patch, schema, path), inPlace: false };
  }
  return { ok: true, value: walkFields(d, directive.patch, schema, path), inPlace: true };
}

/** walkMap's field loop with FieldSetter: clear on null, replace in place, append new keys in sorted order. */
function walkFields(dest: JsonObject, patch: JsonObject | undefined, schema: SchemaRef, path: string[]): JsonObject {
  const self = dest === patch;
  let sorted: string[];
  if (patch === undefined) {
    // Resource-only: nothing is appended, so order does not matter; only merge-list fields can change.
    sorted = schema?.values !== undefined ? Object.keys(dest) : [...(schema?.fields?.keys() ?? [])].filter((k) => hasOwn(dest, k));
  } else {
    const names = new Set(Object.keys(dest));
    if (!self) for (const k of Object.keys(patch)) names.add(k);
    sorted = [...names].sort(compareGoStrings);
  }
  let changes: Map<string, JsonValue | undefined> | undefined;
  let appended: Array<[string, JsonValue]> | undefined;
  for (const name of sorted) {
    const inPatch = patch !== undefined && hasOwn(patch, name);
    if (!inPatch && !fieldMayHoldMergeList(schema, name)) continue;
    const inDest = hasOwn(dest, name);
    const dv = inDest ? dest[name] : undefined;
    const pv = inPatch ? patch![name] : undefined;
    path.push(name);
    const step = walkNode(dv, pv, fieldSchema(schema, name), path);
    path.pop();
    if (!step.ok) throw new Failure(step.error);
    const value = step.value;
    if (isMissingOrNull(value)) {
      if (inDest) (changes ??= new Map()).set(name, undefined);
      continue;
    }
    if (inDest) {
      const kept = keepStringStyle(dv!, value);
      if (kept !== dv) (changes ??= new Map()).set(name, kept);
    } else {
      (appended ??= []).push([name, value]);
    }
  }
  if (!changes && !appended) return dest;
  const out: JsonObject = {};
  for (const k of Object.keys(dest)) {
    if (changes?.has(k)) {
      const v = changes.get(k);
      if (v !== undefined) defineOwn(out, k, v);
    } else defineOwn(out, k, dest[k]!);
  }
  for (const [k, v] of appended ?? []) defineOwn(out, k, v);
  return out;
}

/**
 * FieldSetter gives the new node the existing node's style: over a double-quoted resource string, a patch
 * number or boolean is emitted quoted, i.e. becomes a string.
 */
function keepStringStyle(existing: JsonValue, value: JsonValue): JsonValue {
  if (typeof existing === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return scalarText(value);
  return value;
}

// ---------------------------------------------------------------------------------------------- lists

/** A list node both sources may share (after a replace, or when the resource had none). */
interface ListNode {
  items: JsonValue[];
}

/** merge2 determineSequenceNodePatchStrategy: a lone `{$patch: x}` element directs the whole list. */
function listDirective(patch: JsonValue[], path: string[]): { directive: Directive; patch: JsonValue[] } {
  const carrier = patch.find((e) => isJsonObject(e) && hasOwn(e, '$patch')) as JsonObject | undefined;
  if (carrier === undefined || Object.keys(carrier).length > 1) return { directive: 'merge', patch };
  const v = nodeText(carrier.$patch);
  if (v !== 'delete' && v !== 'replace' && v !== 'merge') {
    throw new Failure({ kind: 'directive', message: `unknown patch strategy '${v}'`, path: [...path] });
  }
  return { directive: v, patch: elementSetter(patch, undefined, ['$patch'], [v], path) };
}

/** merge2.Merger.VisitList (associative) then walk.walkAssociativeSequence. */
function visitAssociativeList(dest: JsonValue | undefined, patch: JsonValue | undefined, schema: NonNullable<SchemaRef>, path: string[]): Step {
  let sources: [ListNode, ListNode | undefined];
  if (isMissingOrNull(dest)) {
    if (!Array.isArray(patch)) return { ok: true, value: patch, inPlace: false };
    const added = { items: [...patch] };
    sources = [added, added];
  } else {
    if (patch === null) return { ok: true, value: undefined, inPlace: false };
    const d = dest as JsonValue[];
    if (patch === undefined) sources = [{ items: [...d] }, undefined];
    else {
      const directive = listDirective(patch as JsonValue[], path);
      if (directive.directive === 'delete') return { ok: true, value: undefined, inPlace: false };
      if (directive.directive === 'replace') {
        const replaced = { items: directive.patch };
        sources = [replaced, replaced];
      } else sources = [{ items: [...d] }, { items: directive.patch }];
    }
  }
  const keys = schema.merge!;
  const elem = elementSchema(schema);
  if (sources[1] === undefined && isPlainAssociativeList(sources[0].items, keys)) {
    // Resource-only list with distinct, complete keys: kyaml's bookkeeping rebuilds it in the same order,
    // so only the elements' own walks can change it.
    return { ok: true, value: walkElementsInOrder(dest as JsonValue[], elem, path), inPlace: false };
  }
  const values = elementValues(keys, sources);
  const result =
    values.length > 0 || keys.length > 0
      ? setAssociativeElements(values, keys, sources, elem, path)
      : setPrimitiveElements(primitiveValues(sources), sources, elem, path);
  const unchanged = Array.isArray(dest) && result.length === dest.length && result.every((v, i) => v === dest[i]);
  return { ok: true, value: unchanged ? dest : result, inPlace: false };
}

/** Every element a non-empty map (or a non-empty scalar for a set) with complete, distinct key text. */
function isPlainAssociativeList(items: JsonValue[], keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const el of items) {
    let id: string;
    if (keys.length === 0) {
      if (el === null || typeof el === 'object') return false;
      id = nodeText(el);
    } else {
      if (!isJsonObject(el) || isEmptyMap(el)) return false;
      let parts = '';
      for (const k of keys) {
        const v = hasOwn(el, k) ? el[k] : undefined;
        if (isNilOrEmptyValue(v) || Array.isArray(v) || isJsonObject(v)) return false;
        const t = nodeText(v);
        if (t === '') return false;
        parts += t + '\u0000';
      }
      id = parts;
    }
    if (id === '' || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

function walkElementsInOrder(items: JsonValue[], elem: SchemaRef, path: string[]): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const el = items[i]!;
    if (!isJsonObject(el)) continue;
    path.push(String(i));
    const step = walkNode(el, undefined, elem, path);
    path.pop();
    if (!step.ok) throw new Failure(step.error);
    if (step.value !== el) (out ??= [...items])[i] = step.value as JsonValue;
  }
  return out ?? items;
}

/** RNode.ElementValuesList over the patch first, then the resource (Prepend), without repeats. */
function elementValues(keys: readonly string[], [dest, origin]: [ListNode, ListNode | undefined]): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const src of [origin, dest]) {
    if (src === undefined) continue;
    for (const el of src.items) {
      const tuple = keys.map((k) => {
        const v = isJsonObject(el) && hasOwn(el, k) ? el[k] : undefined;
        return isNilOrEmptyValue(v) ? '' : nodeText(v);
      });
      if (tuple.length === 0) continue;
      const id = tuple.join('\u0000');
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(tuple);
    }
  }
  return out;
}

function isNilOrEmptyValue(v: JsonValue | undefined): boolean {
  return isMissingOrNull(v) || isEmptyMap(v) || (Array.isArray(v) && v.length === 0);
}

function primitiveValues([dest, origin]: [ListNode, ListNode | undefined]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const src of [origin, dest]) {
    if (src === undefined) continue;
    for (const el of src.items) {
      const t = nodeText(el);
      if (seen.has(t)) continue;
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/** validateKeys: keep the key components that have values; none → all of them. */
function validateKeys(values: string[], keys: readonly string[]): [string[], string[]] {
  const vk: string[] = [];
  const vv: string[] = [];
  values.forEach((v, i) => {
    if (v !== '') {
      vk.push(keys[i]!);
      vv.push(v);
    }
  });
  return vk.length === 0 ? [[...keys], values] : [vk, vv];
}

/** RNode.ElementList: the first map element whose key fields' text equals the values. */
function elementIndex(items: JsonValue[], keys: string[], values: string[]): number {
  return items.findIndex((el) => isJsonObject(el) && keys.every((k, i) => hasOwn(el, k) && nodeText(el[k]) === values[i]));
}

function setAssociativeElements(
  values: string[][],
  keys: readonly string[],
  [dest, origin]: [ListNode, ListNode | undefined],
  elem: SchemaRef,
  path: string[],
): JsonValue[] {
  let items: JsonValue[] = [];
  for (const value of values) {
    if (value.length === 0) continue;
    const [vk, vv] = validateKeys(value, keys);
    const di = elementIndex(dest.items, vk, vv);
    const dEl = di >= 0 ? dest.items[di] : undefined;
    const oEl = origin === undefined ? undefined : origin === dest ? dEl : origin.items[elementIndex(origin.items, vk, vv)];
    path.push(`[${vk.map((k, i) => `${k}=${vv[i]}`).join(',')}]`);
    const step = walkNode(dEl, oEl, elem, path);
    path.pop();
    if (!step.ok) throw new Failure(step.error);
    let val = step.value;
    // The walk merged into the resource's element itself; later steps see the merged node.
    if (step.inPlace && di >= 0 && val !== undefined) dest.items[di] = val;
    if (isMissingOrNull(val) || isEmptyMap(val)) {
      dest.items = elementSetter(dest.items, undefined, vk, vv, path);
      continue;
    }
    for (let i = 0; i < vk.length; i++) {
      if (!isJsonObject(val)) throw wrongKind('MappingNode', val, path);
      if (!hasOwn(val, vk[i]!)) {
        const withKey: JsonObject = { ...val };
        defineOwn(withKey, vk[i]!, resolvePlainScalar(vv[i]!));
        val = withKey;
      }
    }
    items = elementSetter(items, val, vk, vv, path);
  }
  // appendListNode(itemsToBeAdded, dest, ...) once per value; from the second call on, `dest` IS the list
  // being built (upstream reassigns it), so the list is re-appended onto itself.
  let src = dest.items;
  for (const value of values) {
    const [vk] = validateKeys(value, keys);
    items = appendListNode(items, [...src], vk, path);
    src = items;
  }
  return items;
}

function setPrimitiveElements(values: string[], [dest, origin]: [ListNode, ListNode | undefined], elem: SchemaRef, path: string[]): JsonValue[] {
  let items: JsonValue[] = [];
  const find = (list: JsonValue[], v: string) => list.find((el) => nodeText(el) === v);
  for (const value of values) {
    const dEl = find(dest.items, value);
    const oEl = origin === undefined ? undefined : origin === dest ? dEl : find(origin.items, value);
    path.push(`[=${value}]`);
    const step = walkNode(dEl, oEl, elem, path);
    path.pop();
    if (!step.ok) throw new Failure(step.error);
    let val = step.value;
    if (isMissingOrNull(val) || isEmptyMap(val)) {
      dest.items = elementSetter(dest.items, undefined, [''], [value], path);
      continue;
    }
    // SetField("", NewScalarRNode(value)) rewrites the scalar from its text, keeping its quoting.
    if (Array.isArray(val) || isJsonObject(val)) throw wrongKind('ScalarNode', val, path);
    if (typeof val !== 'string') val = resolvePlainScalar(value);
    items = elementSetter(items, val, [''], [value], path);
  }
  return appendListNode(items, [...dest.items], [''], path);
}

/** walk appendListNode (two-way merge: lists with compound keys are skipped). */
function appendListNode(dst: JsonValue[], src: JsonValue[], keys: string[], path: string[]): JsonValue[] {
  for (const el of src) {
    if (keys[0] === '') {
      dst = elementSetter(dst, el, [''], [nodeText(el)], path);
      continue;
    }
    if (keys.length > 1) continue;
    const values: string[] = [];
    for (const key of keys) {
      if (el === null) {
        dst = [...dst, el];
        continue;
      }
      if (!isJsonObject(el)) throw wrongKind('MappingNode', el, path);
      if (!hasOwn(el, key)) {
        // "no key found, directly append to dst", then fall through to the ElementSetter below.
        dst = [...dst, el];
        continue;
      }
      values.push(nodeText(el[key]));
    }
    dst = elementSetter(dst, el, keys, values, path);
  }
  return dst;
}

/**
 * yaml.ElementSetter: drops empty and null elements, replaces every element matching all key/value pairs
 * with `element` (or removes them when `element` is undefined), appends it when none matched. With no
 * values at all, every non-matching element is dropped as well (upstream behaviour).
 */
function elementSetter(list: JsonValue[], element: JsonValue | undefined, keysIn: string[], values: string[], path: string[]): JsonValue[] {
  const keys = keysIn.length === 0 ? [''] : keysIn;
  const mappingSetter = keys[0] !== '' && values.length > 0 && values[0] !== '';
  const out: JsonValue[] = [];
  let found = false;
  for (const el of list) {
    if (isMissingOrNull(el) || isEmptyMap(el)) continue;
    if (!isJsonObject(el) && mappingSetter) {
      out.push(el);
      continue;
    }
    let matched = false;
    for (let j = 0; j < keys.length; j++) {
      if (j < values.length) matched = fieldMatches(el, keys[j]!, values[j]!, path);
      if (!matched) break;
    }
    if (!matched) {
      if (values.length > 0) out.push(el);
      continue;
    }
    found = true;
    if (element !== undefined) out.push(element);
  }
  if (isMissingOrNull(element)) return out;
  if (!found) out.push(element);
  return out;
}

/** yaml.FieldMatcher{Name, StringValue}: an empty value matches on the key's presence alone. */
function fieldMatches(el: JsonValue, name: string, value: string, path: string[]): boolean {
  if (name === '') {
    if (Array.isArray(el) || isJsonObject(el)) throw wrongKind('ScalarNode', el, path);
    // Upstream dereferences a nil node here (GetValue(nil)) and panics.
    if (value === '') throw new Failure({ kind: 'other', message: 'runtime error: invalid memory address or nil pointer dereference', path: [...path] });
    return (el === null ? '' : nodeText(el)) === value;
  }
  if (!isJsonObject(el)) throw wrongKind('MappingNode', el, path);
  if (!hasOwn(el, name)) return false;
  return value === '' || nodeText(el[name]) === value;
}
