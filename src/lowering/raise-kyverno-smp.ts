/**
 * A Kyverno `patchStrategicMerge` with a literal patch, raised to the path operations it means
 * (reference kyverno.md §1.8; upstream pkg/engine/mutate/patch/strategicPreprocessing.go and kyaml merge2):
 * - `k: scalar` → `set k` (the merge creates missing parent maps, as `set` does);
 * - `+(k): v` → `set k!absent = v` (walkMap: a present key, even null, drops the anchor; an absent one is
 *   renamed); a map value is written as the merge would materialize it (below);
 * - `k: null` → `remove k`, after `set parent!absent = {}`: kyaml creates the parent maps of a deleted key
 *   (`{spec: {x: null}}` on an object without spec leaves `spec: {}`);
 * - `k: {}` and maps that end up empty are dropped (deleteConditionElements removes empty maps, so
 *   `emptyDir: {}` cannot be added by a strategic merge);
 * - `(k): v` with a boolean or a plain string → a guard `eq k v` around every op: a failed condition outside
 *   a list empties the whole patch (ConditionError propagates to the top). A plain string is one a pattern
 *   reads as itself: it starts with a letter, has no `| & * ?` and is not `true`/`false`, so it is neither an
 *   operator, a range, a duration, a quantity nor a wildcard, and compareString matches it only against that
 *   very string (a number or boolean value prints as something starting with a digit, `-`, `t` or `f`).
 *
 * - a leaf `{{ request.object.metadata.name || '' }}` (or namespace) → the fromMetadata value; a patch with
 *   any other variable stays a merge.
 *
 * Anything else is left as it is: lists (their merge depends on the schema of the object's kind and on
 * Kyverno's prepend order), `$patch` and other `$` directives, `<()` global and `X() =() ^()` anchors,
 * anchors below a `+()` value, keys with surrounding spaces, numeric and null condition values.
 *
 * Exactness holds for objects whose values along the patched paths have the JSON types the patch implies
 * (every object of a known schema): kyaml refuses a scalar over a map ("wrong Node Kind") and replaces an
 * explicit null parent, where a path operation replaces and errors respectively.
 */
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { Guard, MergeOp, Op, Origin, Value } from '../ir/nodes.js';
import type { Path, Segment } from '../ir/path.js';
import { rewritePolicies } from './rewrite.js';
import type { Raising } from './index.js';

const ANCHOR = /^([+<=X^])?\((.+)\)$/;
const FROM_METADATA = /^\{\{\s*request\.object\.metadata\.(name|namespace)\s*\|\|\s*''\s*\}\}$/;
const PLAIN_STRING = /^[A-Za-z][^|&*?]*$/;

interface Walk {
  /** Parents that must exist as maps before a key below them is deleted. */
  ensure: Segment[][];
  ops: Op[];
  guards: Guard[];
}

type Bail = { bail: string };

function objectPath(segments: Segment[], origin: Origin): Path {
  return { root: 'object', segments, origin };
}

/** Whether a condition value reads as itself under Kyverno's pattern semantics (see the header). */
function plainConditionValue(v: JsonValue): boolean {
  if (typeof v === 'boolean') return true;
  return typeof v === 'string' && PLAIN_STRING.test(v) && v.trim() === v && v !== 'true' && v !== 'false';
}

/**
 * The value a `+()` key receives when it is absent: empty maps dropped (and maps left empty by that), null
 * members dropped while their map stays (kyaml creates it). `value` undefined when nothing is written.
 */
function materialize(v: JsonValue): { value: JsonValue | undefined } | Bail {
  if (Array.isArray(v)) return { bail: 'a list in a +() value' };
  if (typeof v === 'string' && v.includes('{{')) return { bail: 'a variable in a +() value' };
  if (!isJsonObject(v)) return { value: v };
  const out: JsonObject = {};
  let keep = false;
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$') || ANCHOR.test(k.trim()) || k.trim() !== k) return { bail: `the key ${k} in a +() value` };
    if (x === null) {
      keep = true;
      continue;
    }
    const m = materialize(x);
    if ('bail' in m) return m;
    if (m.value === undefined) continue;
    defineOwn(out, k, m.value);
    keep = true;
  }
  return { value: keep ? out : undefined };
}

/**
 * A scalar of the patch as a value: a literal, or the object's name or namespace for a leaf that is exactly
 * `{{ request.object.metadata.name || '' }}` (or namespace): substituted from the current object, `''` when
 * missing or empty, as Gatekeeper's fromMetadata reads GetName()/GetNamespace(). Any other variable keeps the
 * merge as it is.
 */
function leafValue(v: JsonValue, origin: Origin): Value | Bail {
  if (typeof v !== 'string' || !v.includes('{{')) return { kind: 'literal', json: v, origin };
  const m = FROM_METADATA.exec(v);
  return m ? { kind: 'fromMetadata', field: m[1] as 'name' | 'namespace', origin } : { bail: `the variable in ${v}` };
}

/** Whether a templated patch has variables anywhere but in the leaves leafValue reads (keys, anchors). */
function variablesOutsideLeaves(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(variablesOutsideLeaves);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => k.includes('{{') || (isJsonObject(x) || Array.isArray(x) ? variablesOutsideLeaves(x) : false));
}

function walkMap(pattern: JsonObject, at: Segment[], origin: Origin, out: Walk): Bail | undefined {
  const entries = Object.entries(pattern);
  const names = new Map<string, string[]>();
  for (const [key] of entries) {
    const m = ANCHOR.exec(key.trim());
    const base = m ? m[2]! : key;
    names.set(base, [...(names.get(base) ?? []), m ? (m[1] ?? '(') : '']);
  }
  for (const [base, kinds] of names) {
    // `+(k)` beside `k` or `(k)` would decide on a key the same patch writes.
    if (kinds.length > 1 && kinds.includes('+')) return { bail: `+(${base}) beside another ${base} key` };
  }
  for (const [key, value] of entries) {
    if (key.trim() !== key) return { bail: `the key "${key}" (kyverno trims anchors, kyaml does not)` };
    if (key.startsWith('$')) return { bail: `the directive ${key}` };
    const anchor = ANCHOR.exec(key);
    if (anchor) {
      const [, modifier, name] = anchor as unknown as [string, string | undefined, string];
      const place = [...at, { kind: 'field', name } as Segment];
      if (modifier === undefined) {
        if (!plainConditionValue(value)) return { bail: `the condition (${name}) on a value that is not a plain string or a boolean` };
        out.guards.push({ kind: 'eq', path: objectPath(place, origin), value: { kind: 'literal', json: value, origin }, origin });
        continue;
      }
      if (modifier !== '+') return { bail: `the anchor ${key}` };
      const m = materialize(value);
      if ('bail' in m) return m;
      if (m.value === undefined) continue;
      const target: Segment[] = [...at, { kind: 'field', name, test: 'notExist' }];
      out.ops.push({ kind: 'set', path: objectPath(target, origin), value: { kind: 'literal', json: m.value, origin }, origin });
      continue;
    }
    const place: Segment[] = [...at, { kind: 'field', name: key }];
    if (value === null) {
      if (at.length > 0 && !out.ensure.some((e) => samePlace(e, at))) out.ensure.push(at);
      out.ops.push({ kind: 'remove', path: objectPath(place, origin), origin });
    } else if (Array.isArray(value)) {
      return { bail: `the list at ${key} (its merge depends on the kind's schema and prepends)` };
    } else if (isJsonObject(value)) {
      const bail = walkMap(value, place, origin, out);
      if (bail) return bail;
    } else {
      const v = leafValue(value, origin);
      if ('bail' in v) return v;
      out.ops.push({ kind: 'set', path: objectPath(place, origin), value: v, origin });
    }
  }
  return undefined;
}

function samePlace(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => s.kind === 'field' && b[i]!.kind === 'field' && s.name === (b[i] as { name: string }).name);
}

/** The ops a literal strategic merge at the object root means, or why it stays a merge. */
export function raiseStrategicMergeOp(op: MergeOp): Op[] | Bail {
  if (op.strategy !== 'smp' || op.path.root !== 'object' || op.path.segments.length > 0) return { bail: 'not a strategic merge at the object root' };
  if ((op.value.kind !== 'literal' && op.value.kind !== 'templated') || !isJsonObject(op.value.json)) return { bail: 'a computed or non-map patch' };
  if (op.value.kind === 'templated' && variablesOutsideLeaves(op.value.json)) return { bail: 'a variable in a key' };
  const out: Walk = { ensure: [], ops: [], guards: [] };
  const bail = walkMap(op.value.json, [], op.origin, out);
  if (bail) return bail;
  const ensure: Op[] = out.ensure.map((segs) => {
    const parent = segs.map((s, i) => (i === segs.length - 1 ? { ...s, test: 'notExist' as const } : s));
    return { kind: 'set', path: objectPath(parent, op.origin), value: { kind: 'literal', json: {}, origin: op.origin }, origin: op.origin };
  });
  const ops = [...ensure, ...out.ops];
  if (out.guards.length === 0 || ops.length === 0) return ops;
  const guard: Guard = out.guards.length === 1 ? out.guards[0]! : { kind: 'and', args: out.guards, origin: op.origin };
  return [{ kind: 'when', guard, then: ops, origin: op.origin }];
}

export const raiseKyvernoStrategicMerge: Raising = (policies) =>
  rewritePolicies(policies, (op) => {
    if (op.kind !== 'merge') return undefined;
    const raised = raiseStrategicMergeOp(op);
    return Array.isArray(raised) ? raised : undefined;
  });
