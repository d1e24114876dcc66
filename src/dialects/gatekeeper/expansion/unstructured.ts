/**
 * The few `k8s.io/apimachinery/pkg/apis/meta/v1/unstructured` helpers the expansion system calls, with their
 * quirks kept: NestedFieldNoCopy treats a `null` on the way as "not found" but a `null` at the end as found,
 * the typed getters fail on a value of another type with apimachinery's "accessor error" wording, and the
 * setters silently do nothing when a parent on the way is not a map (Unstructured.setNestedField drops the
 * error).
 */
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { goValue } from '../go-format.js';

export type Lookup = { found: false } | { found: true; value: JsonValue } | { error: string };

/** `jsonPath(fields)`: `.spec.template`. */
function jsonPath(fields: readonly string[]): string {
  return '.' + fields.join('.');
}

/** Go's `%T` of a value decoded from YAML into unstructured content. */
function goTypeOf(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

function accessorError(fields: readonly string[], v: JsonValue, expected: string): { error: string } {
  return { error: `${jsonPath(fields)} accessor error: ${goValue(v)} is of the type ${goTypeOf(v)}, expected ${expected}` };
}

export function nestedField(obj: JsonObject, fields: readonly string[]): Lookup {
  let val: JsonValue = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null) return { found: false };
    if (!isJsonObject(val)) return accessorError(fields.slice(0, i + 1), val, 'map[string]interface{}');
    if (!hasOwn(val, fields[i]!)) return { found: false };
    val = val[fields[i]!]!;
  }
  return { found: true, value: val };
}

export function nestedMap(obj: JsonObject, fields: readonly string[]): Lookup {
  const r = nestedField(obj, fields);
  if (!('found' in r) || !r.found) return r;
  return isJsonObject(r.value) ? r : accessorError(fields, r.value, 'map[string]interface{}');
}

export function nestedString(obj: JsonObject, fields: readonly string[]): Lookup {
  const r = nestedField(obj, fields);
  if (!('found' in r) || !r.found) return r;
  return typeof r.value === 'string' ? r : accessorError(fields, r.value, 'string');
}

/** `getNestedString`: the string, or '' for anything else. */
export function stringAt(obj: JsonObject, fields: readonly string[]): string {
  const r = nestedString(obj, fields);
  return 'found' in r && r.found ? (r.value as string) : '';
}

/** SetNestedField, errors dropped as Unstructured does: a parent that is not a map leaves the object as it was. */
export function setNested(obj: JsonObject, fields: readonly string[], value: JsonValue): void {
  let m = obj;
  for (const field of fields.slice(0, -1)) {
    if (hasOwn(m, field)) {
      const next = m[field];
      if (!isJsonObject(next)) return;
      m = next;
    } else {
      const created: JsonObject = {};
      defineOwn(m, field, created);
      m = created;
    }
  }
  defineOwn(m, fields[fields.length - 1]!, value);
}

export function removeNested(obj: JsonObject, fields: readonly string[]): void {
  let m = obj;
  for (const field of fields.slice(0, -1)) {
    const next = hasOwn(m, field) ? m[field] : undefined;
    if (!isJsonObject(next)) return;
    m = next;
  }
  delete m[fields[fields.length - 1]!];
}

/** Unstructured.SetNamespace: the empty namespace removes the field. */
export function setNamespace(obj: JsonObject, namespace: string): void {
  if (namespace === '') removeNested(obj, ['metadata', 'namespace']);
  else setNested(obj, ['metadata', 'namespace'], namespace);
}

/** runtime.DeepCopyJSON, keeping `__proto__` an ordinary key. */
export function deepCopy<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) defineOwn(out, k, deepCopy(v[k]!));
  return out as T;
}

/** metav1.OwnerReference as unstructured content holds it. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Unstructured.GetOwnerReferences: undefined unless a list of maps (one non-map item discards them all). */
export function ownerReferences(obj: JsonObject): OwnerReference[] | undefined {
  const r = nestedField(obj, ['metadata', 'ownerReferences']);
  if (!('found' in r) || !r.found || !Array.isArray(r.value)) return undefined;
  const refs: OwnerReference[] = [];
  for (const item of r.value) {
    if (!isJsonObject(item)) return undefined;
    const ref: OwnerReference = { apiVersion: stringAt(item, ['apiVersion']), kind: stringAt(item, ['kind']), name: stringAt(item, ['name']), uid: stringAt(item, ['uid']) };
    if (typeof item.controller === 'boolean') ref.controller = item.controller;
    if (typeof item.blockOwnerDeletion === 'boolean') ref.blockOwnerDeletion = item.blockOwnerDeletion;
    refs.push(ref);
  }
  return refs;
}

/** Unstructured.SetOwnerReferences: each reference converted back (uid always written, the booleans when set). */
export function setOwnerReferences(obj: JsonObject, refs: readonly OwnerReference[]): void {
  setNested(
    obj,
    ['metadata', 'ownerReferences'],
    refs.map((r) => ({ ...r }) as JsonObject),
  );
}
