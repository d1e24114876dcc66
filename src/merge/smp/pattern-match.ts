/**
 * Kyverno's validate pattern matcher (pkg/engine/validate/validate.go `MatchPattern` with the handlers of
 * pkg/engine/anchor/handlers.go), which the strategic-merge preprocessing uses to evaluate condition anchors.
 * Only success or failure matters to the caller, but the error kinds are kept because arrays treat
 * conditional and global anchor failures as "skip this element" and every other failure as fatal.
 */
import { anchorString, parseAnchor, type Anchor } from '../../../grammars/kyverno-anchor.js';
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { wildcardMatch } from '../../k8s/glob.js';
import { compareGoStrings, goV } from './go-text.js';
import { validateValue } from './pattern-value.js';

/** `skip` marks the combined error of an array whose every element was skipped (validate.PatternError). */
export interface MatchError {
  kind: 'conditional' | 'global' | 'negation' | 'skip' | 'plain';
  message: string;
}

type Outcome = MatchError | undefined;

/** validate.MatchPattern: undefined when the resource value satisfies the pattern, else the first failure. */
export function matchPattern(resource: JsonValue | undefined, pattern: JsonValue): MatchError | undefined {
  return validateElement(resource, pattern, '/');
}

/** matchPattern(...) === undefined, without building the failure's message for a scalar pattern. */
export function matchesPattern(resource: JsonValue | undefined, pattern: JsonValue): boolean {
  if (pattern !== null && typeof pattern === 'object') return matchPattern(resource, pattern) === undefined;
  if (Array.isArray(resource)) {
    for (const item of resource) if (!validateValue(item, pattern)) return false;
    return true;
  }
  return validateValue(resource, pattern);
}

/** validate.skip: only the anchor errors themselves (a PatternError does not unwrap in errors.As). */
function isSkip(e: MatchError): boolean {
  return e.kind === 'conditional' || e.kind === 'global';
}

function plain(message: string): MatchError {
  return { kind: 'plain', message };
}

function validateElement(resource: JsonValue | undefined, pattern: JsonValue, path: string): Outcome {
  if (isJsonObject(pattern)) {
    if (!isJsonObject(resource)) {
      return plain(`pattern and resource have different structures. Path: ${path}. Expected map, found ${goTypeName(resource)}`);
    }
    return validateMap(resource, pattern, path);
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(resource)) {
      return plain(`validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`);
    }
    return validateArray(resource, pattern, path);
  }
  if (Array.isArray(resource)) {
    for (const item of resource) {
      if (!validateValue(item, pattern)) return plain(`resource value '${goV(resource)}' does not match '${goV(pattern)}' at path ${path}`);
    }
    return undefined;
  }
  if (!validateValue(resource, pattern)) return plain(`resource value '${goV(resource)}' does not match '${goV(pattern)}' at path ${path}`);
  return undefined;
}

function goTypeName(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

function validateMap(resource: JsonObject, pattern: JsonObject, path: string): Outcome {
  const expanded = expandInMetadata(pattern, resource);
  const anchors: Array<[string, Anchor, JsonValue]> = [];
  const plainKeys: Array<[string, JsonValue]> = [];
  for (const key of Object.keys(expanded)) {
    const a = parseAnchor(key);
    // GetAnchorsResourcesFromMap: condition, existence, equality and negation anchors are evaluated first.
    if (a && a.modifier !== 'global' && a.modifier !== 'addIfNotPresent') anchors.push([key, a, expanded[key]!]);
    else plainKeys.push([key, expanded[key]!]);
  }
  anchors.sort(([a], [b]) => compareGoStrings(a, b));
  for (const [, a, value] of anchors) {
    const err = handleAnchor(a, value, resource, path);
    if (err) return err;
  }
  for (const [key, value] of sortNestedAnchorsFirst(plainKeys)) {
    const a = parseAnchor(key);
    const err = a?.modifier === 'global' ? handleAnchor(a, value, resource, path) : handleDefault(key, value, resource, path);
    if (err) return err;
  }
  return undefined;
}

/** validate getSortedNestedAnchorResource: keys whose map value holds anchors go first (order of reporting only). */
export function sortNestedAnchorsFirst(entries: Array<[string, JsonValue]>): Array<[string, JsonValue]> {
  const sorted = [...entries].sort(([a], [b]) => compareGoStrings(a, b));
  const front: Array<[string, JsonValue]> = [];
  const back: Array<[string, JsonValue]> = [];
  for (const e of sorted) (isJsonObject(e[1]) && hasNestedAnchors(e[1]) ? front : back).push(e);
  return [...front.reverse(), ...back];
}

function hasNestedAnchors(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasNestedAnchors);
  if (!isJsonObject(v)) return false;
  return Object.keys(v).some((k) => parseAnchor(k) !== undefined || hasNestedAnchors(v[k]!));
}

function handleDefault(element: string, pattern: JsonValue, resource: JsonObject, path: string): Outcome {
  const value = hasOwn(resource, element) ? resource[element] : undefined;
  if (pattern === '*') {
    return value !== undefined && value !== null ? undefined : plain(`${path}/${element} not found`);
  }
  return validateElement(value, pattern, `${path}${element}/`);
}

function handleAnchor(a: Anchor, pattern: JsonValue, resource: JsonObject, path: string): Outcome {
  const present = hasOwn(resource, a.key);
  const value = present ? resource[a.key] : undefined;
  const current = `${path}${a.key}/`;
  switch (a.modifier) {
    case 'condition': {
      if (!present) return { kind: 'conditional', message: "conditional anchor mismatch: conditional anchor key doesn't exist in the resource" };
      const err = validateElement(value, pattern, current);
      return err ? { kind: 'conditional', message: `conditional anchor mismatch: ${err.message}` } : undefined;
    }
    case 'global': {
      if (!present) return undefined;
      const err = validateElement(value, pattern, current);
      return err ? { kind: 'global', message: `global anchor mismatch: ${err.message}` } : undefined;
    }
    case 'equality':
      return present ? validateElement(value, pattern, current) : undefined;
    case 'negation':
      return present ? { kind: 'negation', message: `negation anchor matched in resource: ${current} is not allowed` } : undefined;
    case 'existence':
      return present ? handleExistence(value, pattern, current) : undefined;
    default:
      return handleDefault(anchorString(a), pattern, resource, path);
  }
}

function handleExistence(value: JsonValue | undefined, pattern: JsonValue, path: string): Outcome {
  if (!Array.isArray(value)) {
    return plain(`invalid resource type ${goTypeName(value)}: Existence ^ () anchor can be used only on list/array type resource`);
  }
  if (!Array.isArray(pattern)) return plain(`invalid pattern type ${goTypeName(pattern)}: Pattern has to be of list to compare against resource`);
  for (const item of pattern) {
    if (!isJsonObject(item)) return plain(`invalid pattern type ${goTypeName(pattern)}: Pattern has to be of type map to compare against items in resource`);
    // Every pattern element must match at least one resource element.
    if (!value.some((r, i) => validateElement(r, item, `${path}${i}/`) === undefined)) {
      return plain(`existence anchor validation failed at path ${path}`);
    }
  }
  return undefined;
}

function validateArray(resource: JsonValue[], pattern: JsonValue[], path: string): Outcome {
  if (pattern.length === 0) return plain('pattern Array empty');
  const first = pattern[0]!;
  if (isJsonObject(first)) return validateArrayOfMaps(resource, first, path);
  if (!Array.isArray(first)) return validateElement(resource, first, path);
  if (resource.length < pattern.length) {
    return plain(`validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`);
  }
  return combineSkips(
    pattern.map((p, i) => validateElement(resource[i], p, `${path}${i}/`)),
    path,
  );
}

function validateArrayOfMaps(resource: JsonValue[], pattern: JsonObject, path: string): Outcome {
  return combineSkips(
    resource.map((r, i) => validateElement(r, pattern, `${path}${i}/`)),
    path,
  );
}

/** Elements failing a conditional or global anchor are skipped; the array fails if nothing applied. */
function combineSkips(results: Outcome[], path: string): Outcome {
  let applied = 0;
  const skips: MatchError[] = [];
  for (const r of results) {
    if (r === undefined) applied++;
    else if (isSkip(r)) skips.push(r);
    else return r;
  }
  if (applied === 0 && skips.length > 0) return { kind: 'skip', message: skips.map((s) => s.message).join('; ') || path };
  return undefined;
}

/**
 * wildcards.ExpandInMetadata: wildcard keys under metadata.labels / metadata.annotations of the pattern are
 * replaced by the first matching resource key (Go iterates its map in random order; we take resource order).
 */
function expandInMetadata(pattern: JsonObject, resource: JsonObject): JsonObject {
  const metaKey = findPatternKey('metadata', pattern);
  if (metaKey === undefined || !isJsonObject(resource.metadata)) return pattern;
  const patternMeta = pattern[metaKey];
  if (!isJsonObject(patternMeta)) return pattern;
  let meta: JsonObject | undefined;
  for (const tag of ['labels', 'annotations']) {
    const tagKey = findPatternKey(tag, patternMeta);
    const patternData = tagKey === undefined ? undefined : patternMeta[tagKey];
    const resourceData = resource.metadata[tag];
    if (tagKey === undefined || !isJsonObject(patternData) || !isJsonObject(resourceData)) continue;
    const expanded = expandKeys(patternData, resourceData);
    if (expanded === patternData) continue;
    meta ??= { ...patternMeta };
    defineOwn(meta, tagKey, expanded);
  }
  return meta ? { ...pattern, [metaKey]: meta } : pattern;
}

function findPatternKey(tag: string, pattern: JsonObject): string | undefined {
  for (const k of Object.keys(pattern)) {
    if (k === tag || parseAnchor(k)?.key === tag) return k;
  }
  return undefined;
}

function expandKeys(patternData: JsonObject, resourceData: JsonObject): JsonObject {
  const keys = Object.keys(patternData);
  if (!keys.some((k) => k.includes('*') || k.includes('?'))) return patternData;
  const out: JsonObject = {};
  for (const k of keys) {
    if (!(k.includes('*') || k.includes('?'))) {
      out[k] = patternData[k]!;
      continue;
    }
    const a = parseAnchor(k);
    const wanted = a ? a.key : k;
    const match = Object.keys(resourceData).find((rk) => wildcardMatch(wanted, rk)) ?? wanted;
    out[a ? anchorString({ modifier: a.modifier, key: match }) : match] = patternData[k]!;
  }
  return out;
}
