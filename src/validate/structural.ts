/**
 * A custom resource checked against its structural schema as kube-apiserver does under
 * `fieldValidation=Strict` (kubectl's default since 1.27): first the fields the schema does not declare
 * (pruning, reported as "strict decoding error: unknown field"), then the OpenAPI value validation
 * (kube-openapi's validator, its errors converted as apiextensions-apiserver's kubeOpenAPIResultToFieldErrors
 * does), then list-type uniqueness (apiextensions listtype validation).
 */
import type { YamlPath } from '../io/source.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { errorText, fieldPath, goQuote, type FieldError } from './field-error.js';
import type { CompactSchemaTable, SchemaNode } from './schema-table.js';

export interface SchemaRef {
  table: CompactSchemaTable;
  node: number;
}

function nodeOf(ref: SchemaRef): SchemaNode {
  return ref.table.nodes[ref.node]!;
}

/** The schema of a field, or undefined when the object does not declare it (and does not allow others). */
function propertySchema(s: SchemaNode, table: CompactSchemaTable, key: string): SchemaRef | 'any' | undefined {
  const p = s.properties?.[key];
  if (p !== undefined) return { table, node: p };
  if (typeof s.additionalProperties === 'number') return { table, node: s.additionalProperties };
  if (s.additionalProperties === true || s.preserve) return 'any';
  // An object schema with neither properties nor additionalProperties prunes everything but is rare; a schema
  // with no type at all (and no properties) keeps its value untouched only under preserve-unknown-fields.
  return undefined;
}

/** Unknown fields, as the decoder prunes them (structural-schema pruning). `overrides` swaps in ObjectMeta. */
export function unknownFields(value: JsonValue, ref: SchemaRef, path: YamlPath, out: FieldError[], overrides?: (path: YamlPath) => SchemaRef | undefined): void {
  const s = nodeOf(ref);
  if (isJsonObject(value)) {
    if (s.type !== undefined && s.type !== 'object') return;
    if (s.properties === undefined && s.additionalProperties === undefined) return; // nothing declared: a type error, or free-form
    for (const key of Object.keys(value)) {
      const child = [...path, key];
      const override = overrides?.(child);
      const sub = override ?? propertySchema(s, ref.table, key);
      if (sub === undefined) {
        out.push({ path: child, at: 'key', message: `strict decoding error: unknown field ${goQuote(fieldPath(child))}` });
        continue;
      }
      if (sub !== 'any') unknownFields(value[key]!, sub, child, out, overrides);
    }
  } else if (Array.isArray(value)) {
    if (s.items === undefined) return;
    value.forEach((item, i) => unknownFields(item, { table: ref.table, node: s.items! }, [...path, i], out, overrides));
  }
}

/** The JSON type name kube-openapi reports for a value. */
export function jsonTypeName(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function typeMatches(type: SchemaNode['type'], v: JsonValue, intOrString: boolean | undefined): boolean {
  if (intOrString) return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (type) {
    case undefined:
      return true;
    case 'object':
      return isJsonObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
  }
}

const regexCache = new Map<string, RegExp | null>();
function compiled(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    regexCache.set(pattern, re);
  }
  return re;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as JsonValue[]).length && a.every((x, i) => deepEqual(x, (b as JsonValue[])[i]!));
  const ka = Object.keys(a);
  const bo = b as JsonObject;
  return ka.length === Object.keys(bo).length && ka.every((k) => k in bo && deepEqual((a as JsonObject)[k]!, bo[k]!));
}

/**
 * Value validation of one node. Nulls in fields that are not nullable were pruned before validation
 * (structural defaulting's PruneNonNullableNullsWithoutDefaults), so a null counts as absent.
 */
export function schemaErrors(value: JsonValue, ref: SchemaRef, path: YamlPath, out: FieldError[], typeError: TypeErrorText = openApiTypeError): void {
  const s = nodeOf(ref);
  if (value === null && s.nullable) return;
  if (!typeMatches(s.type, value, s.intOrString)) {
    out.push({ path, at: 'value', message: typeError(path, value, s.intOrString ? 'integer-or-string' : s.type!) });
    return;
  }
  const name = fieldPath(path);
  if (s.enum !== undefined && !s.enum.some((e) => deepEqual(e, value))) {
    out.push({ path, at: 'value', message: errorText.notSupported(path, value, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))) });
  }
  if (typeof value === 'string') stringErrors(value, s, path, out);
  else if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) out.push({ path, at: 'value', message: errorText.invalid(path, value, `${name} in body should be greater than or equal to ${s.minimum}`) });
    if (s.maximum !== undefined && value > s.maximum) out.push({ path, at: 'value', message: errorText.invalid(path, value, `${name} in body should be less than or equal to ${s.maximum}`) });
  } else if (Array.isArray(value)) arrayErrors(value, ref, path, out, typeError);
  else if (isJsonObject(value)) objectErrors(value, ref, path, out, typeError);
  combinatorErrors(value, ref, path, out);
}

/** How a value of the wrong JSON type is reported. */
export type TypeErrorText = (path: YamlPath, value: JsonValue, expected: string) => string;

/** kube-openapi's InvalidType, as a custom resource's validation reports it. */
export const openApiTypeError: TypeErrorText = (path, value, expected) => {
  const actual = jsonTypeName(value);
  return errorText.invalid(path, actual, `${fieldPath(path)} in body must be of type ${expected}: ${goQuote(actual)}`);
};

function stringErrors(value: string, s: SchemaNode, path: YamlPath, out: FieldError[]): void {
  const name = fieldPath(path);
  const length = [...value].length; // runes, as go-openapi counts
  if (s.maxLength !== undefined && length > s.maxLength) out.push({ path, at: 'value', message: errorText.tooLong(path, s.maxLength) });
  if (s.minLength !== undefined && length < s.minLength) out.push({ path, at: 'value', message: errorText.invalid(path, value, `${name} in body should be at least ${s.minLength} chars long`) });
  if (s.pattern !== undefined) {
    const re = compiled(s.pattern);
    if (re && !re.test(value)) out.push({ path, at: 'value', message: errorText.invalid(path, value, `${name} in body should match '${s.pattern}'`) });
  }
  if (s.format === 'date-time' && !RFC3339.test(value)) {
    out.push({ path, at: 'value', message: errorText.invalid(path, value, `${name} in body must be of type date-time: ${goQuote(value)}`) });
  }
}

function arrayErrors(value: JsonValue[], ref: SchemaRef, path: YamlPath, out: FieldError[], typeError: TypeErrorText): void {
  const s = nodeOf(ref);
  const name = fieldPath(path);
  if (s.minItems !== undefined && value.length < s.minItems) out.push({ path, at: 'value', message: errorText.invalid(path, value.length, `${name} in body should have at least ${s.minItems} items`) });
  if (s.maxItems !== undefined && value.length > s.maxItems) out.push({ path, at: 'value', message: errorText.tooMany(path, value.length, s.maxItems) });
  if (s.items !== undefined) value.forEach((item, i) => schemaErrors(item, { table: ref.table, node: s.items! }, [...path, i], out, typeError));
  // listtype.ValidateListSetsAndMaps: a set holds each value once, a map each key tuple once.
  if (s.listType === 'set') {
    const seen: JsonValue[] = [];
    value.forEach((item, i) => {
      if (seen.some((x) => deepEqual(x, item))) out.push({ path: [...path, i], at: 'value', message: errorText.duplicate([...path, i], item) });
      else seen.push(item);
    });
  } else if (s.listType === 'map' && s.listMapKeys) {
    const keys = s.listMapKeys;
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isJsonObject(item)) return;
      const tuple: JsonObject = {};
      for (const k of keys) if (item[k] !== undefined) tuple[k] = item[k]!;
      const id = JSON.stringify(keys.map((k) => item[k] ?? null));
      if (seen.has(id)) out.push({ path: [...path, i], at: 'value', message: errorText.duplicate([...path, i], tuple) });
      seen.add(id);
    });
  }
}

function objectErrors(value: JsonObject, ref: SchemaRef, path: YamlPath, out: FieldError[], typeError: TypeErrorText): void {
  const s = nodeOf(ref);
  for (const req of s.required ?? []) {
    if (value[req] !== undefined && value[req] !== null) continue;
    // Defaulting runs before validation: a required field with a default is filled in.
    const p = s.properties?.[req];
    if (p !== undefined && ref.table.nodes[p]!.hasDefault) continue;
    out.push({ path: [...path, req], at: 'value', message: errorText.required([...path, req]) });
  }
  if (s.maxProperties !== undefined && Object.keys(value).length > s.maxProperties) out.push({ path, at: 'value', message: errorText.tooMany(path, Object.keys(value).length, s.maxProperties) });
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    const sub = propertySchema(s, ref.table, k);
    if (sub !== undefined && sub !== 'any') schemaErrors(v, sub, [...path, k], out, typeError);
  }
}

/** Whether a value passes a subschema, and with how many errors (kube-openapi picks the closest oneOf branch). */
function trial(value: JsonValue, ref: SchemaRef, path: YamlPath): FieldError[] {
  const errs: FieldError[] = [];
  schemaErrors(value, ref, path, errs);
  return errs;
}

/**
 * oneOf / anyOf / allOf / not. kube-openapi reports their failures as plain errors, which
 * kubeOpenAPIResultToFieldErrors turns into `<nil>: Invalid value: ""` with the message naming the path.
 */
function combinatorErrors(value: JsonValue, ref: SchemaRef, path: YamlPath, out: FieldError[]): void {
  const s = nodeOf(ref);
  const name = fieldPath(path);
  const composite = (msg: string): FieldError => ({ path, at: 'value', message: `<nil>: Invalid value: "": ${msg}` });
  if (s.oneOf) {
    const results = s.oneOf.map((n) => trial(value, { table: ref.table, node: n }, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      out.push(composite(`${goQuote(name)} must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`));
      if (valid === 0) out.push(...results[0]!);
    }
  }
  if (s.anyOf) {
    const results = s.anyOf.map((n) => trial(value, { table: ref.table, node: n }, path));
    if (!results.some((r) => r.length === 0)) {
      out.push(composite(`${goQuote(name)} must validate at least one schema (anyOf)`));
      out.push(...results[0]!);
    }
  }
  for (const n of s.allOf ?? []) schemaErrors(value, { table: ref.table, node: n }, path, out);
  if (s.not !== undefined && trial(value, { table: ref.table, node: s.not }, path).length === 0) {
    out.push(composite(`${goQuote(name)} must not validate the schema (not)`));
  }
}
