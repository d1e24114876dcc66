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
 * Lists need the kinds the rule matches (raise-kyverno-kinds.ts), since kyaml merges them by the kind's
 * schema:
 * - a list kyaml replaces (no patch strategy in the schema of every matched kind) → `set k = [...]` when its
 *   elements are constants the anchor cleanup leaves as they are (no anchors, `$` keys, nulls, empty maps
 *   or lists, variables) and it is not empty;
 * - a merge list keyed by `name` whose only patch element is `{(name): "*", ...}` (containers,
 *   initContainers, ephemeralContainers, volumes, env: lists whose elements always have a name) → the rest
 *   of the element written at `k[name: *]`: the anchor expansion copies the element once per named resource
 *   element, in the resource's order, so the merge patches every element and keeps the order (Prepend puts
 *   the patch's elements first, in patch order, which is the resource's). No anchor may sit below it:
 *   `+()` there is decided on the list's first element for all of them (the pattern copy is shared), and a
 *   condition would leave some elements out and so move them after the patched ones.
 *
 * Anything else is left as it is: other merge lists (kyaml moves a patched element to the front and
 * prepends a new one), `$patch` and other `$` directives, `<()` global and `X() =() ^()` anchors, anchors
 * below a `+()` value, keys with surrounding spaces, numeric and null condition values.
 *
 * Exactness holds for objects whose values along the patched paths have the JSON types the patch implies
 * (every object of a known schema): kyaml refuses a scalar over a map ("wrong Node Kind") and replaces an
 * explicit null parent, where a path operation replaces and errors respectively.
 */
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { Guard, MergeOp, Op, Origin, Policy, Value } from '../ir/nodes.js';
import type { Path, Segment } from '../ir/path.js';
import { ELEMENT, listStrategy, matchedKinds, type KindRef, type SchemaStep } from './raise-kyverno-kinds.js';
import { rewriteRules } from './rewrite.js';
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

/** Where a walk is: the kinds the rule matches (lists need them), and whether anchors may appear. */
export interface WalkContext {
  kinds?: readonly KindRef[];
  /**
   * Which anchors may be raised: `all` at the top of a patch; `none` inside a list element the anchor
   * expansion shares between all the resource's elements (a `+()` there is decided on the first element, a
   * condition selects elements); `add` inside the element a foreach patches by its name (a `+()` below the
   * element is decided on that element alone, but a condition would leave it unpatched, out of place).
   */
  anchors?: 'all' | 'add' | 'none';
}

export type Bail = { bail: string };

/** Name-keyed lists whose elements always carry their name (required by the API). */
export const NAMED_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'env']);

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
  if (Array.isArray(v)) return cleanConstant(v) ? { value: v } : { bail: 'a list in a +() value that the anchor cleanup would change' };
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

/**
 * Whether the anchor cleanup (deleteConditionElements) leaves a value as it is and kyaml writes it as it is:
 * no anchors or `$` keys, no nulls, no empty maps or lists, no variables, at any depth.
 */
export function cleanConstant(v: JsonValue): boolean {
  if (v === null) return false;
  if (typeof v === 'string') return !v.includes('{{');
  if (Array.isArray(v)) return v.length > 0 && v.every(cleanConstant);
  if (!isJsonObject(v)) return true;
  const entries = Object.entries(v);
  return entries.length > 0 && entries.every(([k, x]) => !k.startsWith('$') && !ANCHOR.test(k.trim()) && k.trim() === k && !k.includes('{{') && cleanConstant(x));
}

/** Whether a pattern holds an anchor anywhere. */
function hasAnchor(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(hasAnchor);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => ANCHOR.test(k.trim()) || hasAnchor(x));
}

/** Whether a templated patch has variables anywhere but in the leaves leafValue reads (keys, anchors). */
function variablesOutsideLeaves(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.some(variablesOutsideLeaves);
  if (!isJsonObject(v)) return false;
  return Object.entries(v).some(([k, x]) => k.includes('{{') || (isJsonObject(x) || Array.isArray(x) ? variablesOutsideLeaves(x) : false));
}

/**
 * Walks a patch map at `at` (IR segments) and `schema` (its schema path, for lists), collecting the ops,
 * the guards of its conditions and the parents to create; or why it stays a merge.
 */
export function walkMap(pattern: JsonObject, at: Segment[], schema: SchemaStep[], origin: Origin, out: Walk, ctx: WalkContext = {}): Bail | undefined {
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
      const allowed = ctx.anchors ?? 'all';
      if (allowed === 'none' || (allowed === 'add' && modifier !== '+')) return { bail: `the anchor ${key} inside a list element` };
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
      const bail = walkList(value, key, place, [...schema, key], origin, out, ctx);
      if (bail) return bail;
    } else if (isJsonObject(value)) {
      const bail = walkMap(value, place, [...schema, key], origin, out, ctx);
      if (bail) return bail;
    } else {
      const v = leafValue(value, origin);
      if ('bail' in v) return v;
      out.ops.push({ kind: 'set', path: objectPath(place, origin), value: v, origin });
    }
  }
  return undefined;
}

/** A patch list at `place`: replaced wholesale, or every named element patched alike; else why not. */
function walkList(list: JsonValue[], key: string, place: Segment[], schema: SchemaStep[], origin: Origin, out: Walk, ctx: WalkContext): Bail | undefined {
  if (!ctx.kinds) return { bail: `the list at ${key} (its merge depends on the kind's schema and prepends)` };
  const strategy = listStrategy(ctx.kinds, schema);
  if (strategy === undefined) return { bail: `the list at ${key}, merged differently by the kinds the rule matches` };
  if (strategy === 'replace') {
    if (!cleanConstant(list)) return { bail: `the list at ${key}, which the anchor cleanup would change` };
    out.ops.push({ kind: 'set', path: objectPath(place, origin), value: { kind: 'literal', json: list, origin }, origin });
    return undefined;
  }
  const only = list.length === 1 ? list[0] : undefined;
  if (strategy.length !== 1 || strategy[0] !== 'name' || !NAMED_LISTS.has(key) || (ctx.anchors ?? 'all') !== 'all' || !isJsonObject(only) || only['(name)'] !== '*') {
    return { bail: `the list at ${key} (kyaml merges it by ${strategy.join(', ') || 'value'}, prepending new elements and moving patched ones first)` };
  }
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(only)) if (k !== '(name)') defineOwn(rest, k, v);
  if (hasAnchor(rest)) return { bail: `an anchor below the (name): "*" element of ${key} (decided on the list's first element, or selecting elements)` };
  return walkMap(rest, [...place, { kind: 'keyedGlob', key: 'name' }], [...schema, ELEMENT], origin, out, { ...ctx, anchors: 'none' });
}

function samePlace(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => s.kind === 'field' && b[i]!.kind === 'field' && s.name === (b[i] as { name: string }).name);
}

/** The ops a literal strategic merge at the object root means, or why it stays a merge. */
export function raiseStrategicMergeOp(op: MergeOp, kinds?: readonly KindRef[]): Op[] | Bail {
  if (op.strategy !== 'smp' || op.path.root !== 'object' || op.path.segments.length > 0) return { bail: 'not a strategic merge at the object root' };
  if ((op.value.kind !== 'literal' && op.value.kind !== 'templated') || !isJsonObject(op.value.json)) return { bail: 'a computed or non-map patch' };
  if (op.value.kind === 'templated' && variablesOutsideLeaves(op.value.json)) return { bail: 'a variable in a key' };
  const out: Walk = { ensure: [], ops: [], guards: [] };
  const bail = walkMap(op.value.json, [], [], op.origin, out, kinds ? { kinds } : {});
  if (bail) return bail;
  return assemble(out, op.origin);
}

/** The walk's ops: the parents to create first, all under the conditions' guard. */
export function assemble(out: Walk, origin: Origin): Op[] {
  const ensure: Op[] = out.ensure.map((segs) => {
    const parent = segs.map((s, i) => (i === segs.length - 1 ? { ...s, test: 'notExist' as const } : s));
    return { kind: 'set', path: objectPath(parent, origin), value: { kind: 'literal', json: {}, origin }, origin };
  });
  const ops = [...ensure, ...out.ops];
  if (out.guards.length === 0 || ops.length === 0) return ops;
  const guard: Guard = out.guards.length === 1 ? out.guards[0]! : { kind: 'and', args: out.guards, origin };
  return [{ kind: 'when', guard, then: ops, origin }];
}

/** Applies `raise` to the ops of every rule, with the kinds the rule matches. */
export function raiseRuleOps(policies: Policy[], raise: (op: Op, kinds: readonly KindRef[] | undefined) => Op[] | undefined): Policy[] {
  return rewriteRules(policies, (p, r) => {
    const kinds = matchedKinds(p, r);
    return (op) => raise(op, kinds);
  });
}

export const raiseKyvernoStrategicMerge: Raising = (policies) =>
  raiseRuleOps(policies, (op, kinds) => {
    if (op.kind !== 'merge') return undefined;
    const raised = raiseStrategicMergeOp(op, kinds);
    return Array.isArray(raised) ? raised : undefined;
  });
