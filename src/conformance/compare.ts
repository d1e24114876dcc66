/**
 * Comparison of expected and actual objects as each corpus INDEX.md prescribes, with a readable first
 * difference (`at /spec/containers/0/image: expected "x", got "y"`).
 */
import jmespath from 'jmespath';
import { cliDifference } from '../dialects/kyverno/test-suite/tidy.js';
import { defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../ir/json.js';
import { describeDifference, escapePointer, firstDifference, jsonNormalize, showJson, type Difference } from '../k8s/object-diff.js';
import type { CompareProfile } from './types.js';

export { describeDifference, escapePointer, firstDifference, jsonNormalize, type Difference };

/** Compares an expected object with the actual one under a corpus's rules; undefined when they agree. */
export function compareObjects(profile: CompareProfile, expected: JsonValue | undefined, actual: JsonValue | undefined): Difference | undefined {
  switch (profile) {
    case 'exact':
      return firstDifference(jsonNormalize(expected), jsonNormalize(actual));
    case 'gatekeeper':
      return firstDifference(jsonNormalize(expected), jsonNormalize(actual), '', uuidPlaceholder);
    case 'kyverno-cli':
      return cliDifference(expected, actual);
    case 'map-typed':
      return firstDifference(normalizeMapObject(expected, true), normalizeMapObject(actual, true));
    case 'map-untyped':
      return firstDifference(normalizeMapObject(expected, false), normalizeMapObject(actual, false));
    case 'map-status-conditions':
      return firstDifference(statusConditions(expected), statusConditions(actual), '/status/conditions');
    case 'subset':
      return subsetDifference(expected ?? null, actual);
  }
}

/**
 * MAP INDEX.md "How to compare": drop null values and `metadata.creationTimestamp`; for built-in typed objects
 * also drop empty maps and lists, which omitempty makes indistinguishable from absent ones (never for CRDs).
 */
export function normalizeMapObject(v: JsonValue | undefined, typed: boolean): JsonValue | undefined {
  const dropped = dropNulls(v, typed);
  if (!isJsonObject(dropped) || !isJsonObject(dropped.metadata) || !hasOwn(dropped.metadata, 'creationTimestamp')) return dropped;
  const metadata: JsonObject = {};
  for (const k of Object.keys(dropped.metadata)) if (k !== 'creationTimestamp') defineOwn(metadata, k, dropped.metadata[k]!);
  const out: JsonObject = {};
  for (const k of Object.keys(dropped)) defineOwn(out, k, k === 'metadata' ? metadata : dropped[k]!);
  if (typed && Object.keys(metadata).length === 0) delete out.metadata;
  return out;
}

function dropNulls(v: JsonValue | undefined, dropEmpty: boolean): JsonValue | undefined {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const out = v.map((item) => dropNulls(item, dropEmpty) ?? null);
    return dropEmpty && out.length === 0 ? undefined : out;
  }
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const t = dropNulls(v[k], dropEmpty);
      if (t !== undefined) defineOwn(out, k, t);
    }
    return dropEmpty && Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

function statusConditions(v: JsonValue | undefined): JsonValue | undefined {
  if (!isJsonObject(v) || !isJsonObject(v.status)) return undefined;
  return normalizeMapObject(v.status.conditions, true);
}

/** Gatekeeper's mutation-id annotation is a fresh UUID; expected files write `<uuid>`. */
function uuidPlaceholder(expected: string, actual: JsonValue): boolean {
  return expected === '<uuid>' && typeof actual === 'string' && (actual === '<uuid>' || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(actual));
}

/**
 * Chainsaw assertion trees (kyverno/chainsaw, kyverno-json): maps are subsets, lists have the same length and
 * match element by element, scalars are equal; a key written `(expr)` is a JMESPath expression evaluated on the
 * actual node, whose result must match the value.
 */
export function subsetDifference(expected: JsonValue, actual: JsonValue | undefined, path = ''): Difference | undefined {
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) return { path, message: `expected a map, got ${showJson(actual)}` };
    for (const k of Object.keys(expected)) {
      const here = `${path}/${escapePointer(k)}`;
      if (k.length > 2 && k.startsWith('(') && k.endsWith(')')) {
        let projected: JsonValue;
        try {
          projected = (jmespath.search(actual, k.slice(1, -1)) ?? null) as JsonValue;
        } catch (e) {
          return { path: here, message: `cannot evaluate ${k}: ${(e as Error).message}` };
        }
        const d = subsetDifference(expected[k]!, projected, here);
        if (d) return d;
        continue;
      }
      if (!hasOwn(actual, k)) return { path: here, message: `expected ${showJson(expected[k])}, got nothing` };
      const d = subsetDifference(expected[k]!, actual[k], here);
      if (d) return d;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, message: `expected a list, got ${showJson(actual)}` };
    if (expected.length !== actual.length) return { path, message: `expected ${expected.length} elements, got ${actual.length}` };
    for (let i = 0; i < expected.length; i++) {
      const d = subsetDifference(expected[i]!, actual[i], `${path}/${i}`);
      if (d) return d;
    }
    return undefined;
  }
  if (actual !== undefined && jsonEqual(expected, actual)) return undefined;
  return { path, message: `expected ${showJson(expected)}, got ${actual === undefined ? 'nothing' : showJson(actual)}` };
}

/**
 * Kyverno unit `expected_partial` (values at JSON pointers): `/a/b` must equal, `/a/-` is the last element of
 * the list at `/a`, `_byName:<ptr>` maps element names to subsets of the element with that `name`,
 * `_allElements:<ptr>` is a subset every element must contain.
 */
export function partialDifference(checks: JsonObject, actual: JsonValue | undefined): Difference | undefined {
  for (const key of Object.keys(checks)) {
    const want = checks[key]!;
    if (key.startsWith('_byName:')) {
      const ptr = key.slice('_byName:'.length);
      const items = pointer(actual, ptr);
      if (!Array.isArray(items)) return { path: ptr, message: `expected a list, got ${showJson(items)}` };
      if (!isJsonObject(want)) return { path: ptr, message: 'malformed _byName check' };
      for (const name of Object.keys(want)) {
        const at = items.findIndex((e) => isJsonObject(e) && e.name === name);
        if (at < 0) return { path: ptr, message: `no element named ${JSON.stringify(name)}` };
        const d = subsetDifference(want[name]!, items[at], `${ptr}/${at}`);
        if (d) return d;
      }
    } else if (key.startsWith('_allElements:')) {
      const ptr = key.slice('_allElements:'.length);
      const items = pointer(actual, ptr);
      if (!Array.isArray(items) || items.length === 0) return { path: ptr, message: `expected a non-empty list, got ${showJson(items)}` };
      for (let i = 0; i < items.length; i++) {
        const d = subsetDifference(want, items[i], `${ptr}/${i}`);
        if (d) return d;
      }
    } else if (!key.startsWith('_')) {
      const d = firstDifference(jsonNormalize(want), jsonNormalize(pointer(actual, key)), key);
      if (d) return d;
    }
  }
  return undefined;
}

/** RFC 6901 lookup; a final `-` names the last element (as the unit tests' "appended" checks mean it). */
export function pointer(doc: JsonValue | undefined, ptr: string): JsonValue | undefined {
  if (ptr === '') return doc;
  let node = doc;
  const parts = ptr.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (Array.isArray(node)) {
      if (part === '-' && i === parts.length - 1) return node[node.length - 1];
      if (!/^(0|[1-9][0-9]*)$/.test(part)) return undefined;
      node = node[Number(part)];
    } else if (isJsonObject(node)) {
      node = hasOwn(node, part) ? node[part] : undefined;
    } else {
      return undefined;
    }
    if (node === undefined) return undefined;
  }
  return node;
}
