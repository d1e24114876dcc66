/**
 * patchStrategicMerge specialised per literal pattern: stage (a) (anchors-fast.ts) and stage (b) (merge.ts's
 * fast walk) fused into one walk over the pattern's keys only, for the shape nearly every mutate rule has —
 * nested maps with scalar, `null` or list leaves and `+(k)` / `(k)` / `<(k)` anchors with scalar values.
 * index.ts keeps the general path as the reference and uses this one only where it gives the same result:
 *
 * - the pattern is compiled once (anchors-fast accepts it, no anchored list, no `$` directive, no map that
 *   names both `apiVersion` and `kind`, which would select another schema under an unknown kind);
 * - the resource is in normal form as a whole (merge.ts isNormal, read from the evaluation's NormalForms or
 *   verified once and recorded there), or its schema can hold no merge list: the fast walk then never
 *   changes a field the pattern does not name, so only the pattern's keys are visited;
 * - a first pass checks the anchors' conditions in PreProcessPattern's order (a failure skips the rule with
 *   the same message; the merge of the empty patch leaves a normal resource as it is) and every shape the
 *   fast walk would hand to the full walk (a kind clash, a merge list, an odd subtree to insert): any of
 *   those returns `undefined` and the general path decides. The second pass writes and cannot fail.
 *
 * Writes follow merge.ts exactly: copy on write, in place into the maps the caller owns, a new key appended
 * after the existing ones in Go string order, the result the resource itself exactly when nothing changed
 * or it changed in place, and the same NormalForms and ownership bookkeeping.
 * test/merge/smp/compiled-merge.test.ts compares both paths over the conformance corpus and the fixtures.
 */
import { parseAnchor } from '../../../grammars/kyverno-anchor.js';
import { Constants, instantiate, literal } from '../../compile/source.js';
import { defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';
import { needsPreprocessing } from './anchors.js';
import { compileFastPattern, isConditionText, runFastPattern, scalarConditionFailure, scalarConditionHolds } from './anchors-fast.js';
import { compareGoStrings, scalarText } from './go-text.js';
import { copyForWrites, schemaOfNode } from './merge.js';
import { normalCheck } from './normal-check.js';
import type { MergeOwnership } from './merge-types.js';
import type { NormalForms } from './normal-forms.js';
import { isExactTextPattern } from './pattern-value.js';
import { elementSchema, fieldSchema, type SchemaRef, type SmpSchema } from './schema.js';

export interface Condition {
  key: string;
  /** The condition's value as YAML text (checkCondition compares text). */
  expected: string;
}

/** The stage (a) outcome of a pattern map where the resource has no map: it is then a constant. */
const EMPTIED: unique symbol = Symbol('emptied'); // the cleanup deletes it: the key is not in the patch
const UNSTABLE: unique symbol = Symbol('unstable'); // the fast walk would change it when inserting: general path

/** A condition of the map fails against no resource: the rule is skipped with `message` ('' = general path). */
class Failure {
  constructor(readonly message: string) {}
}

export interface Entry {
  /** The key as the merged patch names it (an anchor's key). */
  key: string;
  /** `+(key)`: dropped when the resource has the key. */
  add: boolean;
  /** The map below the key, or undefined for a leaf (`value`). */
  node: PatternNode | undefined;
  /**
   * A list of one conditional map element (anchors-fast evalList): a copy of it, named as the resource
   * element, for each resource element meeting its conditions.
   */
  list: PatternNode | undefined;
  value: JsonValue;
}

export interface PatternNode {
  entries: Entry[];
  /** Indexes into `entries` in Go string order of their keys: new keys are appended in that order. */
  appendOrder: number[];
  globals: Condition[];
  conditions: Condition[];
  /** This map's value in the patch when the resource has no map here (under a schema: see absentUnder). */
  absent: JsonObject | typeof EMPTIED | typeof UNSTABLE | Failure;
  /** The places of the lists in `absent` (a map), from this map: it is inserted as it is where none is a merge list. */
  absentLists: readonly (readonly string[])[];
}

/**
 * A compiled pattern: its tree, and the generated merge per root schema (the schema decides which maps are
 * tracked and which lists are associative, so each is written into the code; a policy meets few kinds).
 */
export interface CompiledMerge {
  /** The pattern trees merged one after the other: one, or a fused run's (fused-merge.ts). */
  readonly roots: readonly PatternNode[];
  /** The merge's source under a root schema (undefined: the general path). */
  readonly generate: (schema: SchemaRef) => GeneratedMerge | undefined;
  readonly bySchema: Map<SchemaRef, GeneratedMerge | null>;
  /** The last resource type met (string apiVersion and kind), its schema and merge: most policies see one. */
  last: { apiVersion: string; kind: string; schema: SchemaRef; merge: GeneratedMerge | null } | undefined;
}

/** The merge's outcome (as strategicMerge reports it), or undefined: the general path decides. */
export interface CompiledOutcome {
  value: JsonValue;
  skipped?: string;
  inPlace?: boolean;
}

/** Compiles a pattern, or undefined when only the general path reproduces it. */
export function compileMerge(pattern: JsonValue): CompiledMerge | undefined {
  if (!isJsonObject(pattern)) return undefined;
  const anchored = needsPreprocessing(pattern);
  if (anchored && compileFastPattern(pattern) === undefined) return undefined;
  const root = compileNode(pattern, anchored);
  return root === undefined ? undefined : { roots: [root], generate: (schema) => generate(root, schema), bySchema: new Map(), last: undefined };
}

function compileNode(m: JsonObject, anchored: boolean): PatternNode | undefined {
  const entries: Entry[] = [];
  const globals: Condition[] = [];
  const conditions: Condition[] = [];
  const names = new Set<string>();
  for (const raw of Object.keys(m)) {
    const value = m[raw]!;
    const a = anchored ? parseAnchor(raw) : undefined;
    const key = a === undefined ? raw : a.key;
    if (key.startsWith('$')) return undefined;
    names.add(key);
    if (a !== undefined && a.modifier !== 'addIfNotPresent') {
      // anchors-fast accepted the pattern: a scalar (global) condition.
      (a.modifier === 'global' ? globals : conditions).push({ key, expected: scalarText(value as JsonScalar) });
      continue;
    }
    if (anchored && Array.isArray(value)) {
      // anchors-fast accepted the pattern: a list is one map element with conditions (processListOfMaps).
      const element = compileNode(value[0] as JsonObject, true);
      // The copies it makes carry the resource element's `name` after the element's other keys.
      if (element === undefined || element.entries.length === 0 || element.entries.some((e) => e.key === 'name')) return undefined;
      entries.push({ key, add: false, node: undefined, list: element, value });
      continue;
    }
    let node: PatternNode | undefined;
    if (isJsonObject(value)) {
      node = compileNode(value, anchored);
      if (node === undefined) return undefined;
    }
    entries.push({ key, add: a !== undefined, node, list: undefined, value });
  }
  if (names.has('apiVersion') && names.has('kind')) return undefined;
  const appendOrder = entries.map((_, i) => i).sort((i, j) => compareGoStrings(entries[i]!.key, entries[j]!.key));
  const lists: string[][] = [];
  return { entries, appendOrder, globals, conditions, absent: absentForm(m, anchored, lists), absentLists: lists };
}

/**
 * The patch a pattern map becomes where the resource has none (PreProcessPattern against nothing), and what
 * the merge inserts for it: the same map when the fast walk's merge of it with itself returns it unchanged
 * (no `null` to prune; a list only where the schema replaces it, which merge.ts fastNode returns as it is: the
 * places of its lists go to `lists`, for absentUnder).
 */
function absentForm(m: JsonObject, anchored: boolean, lists: string[][]): PatternNode['absent'] {
  let patch: JsonObject = m;
  if (anchored) {
    const pre = runFastPattern(compileFastPattern(m)!, undefined);
    if (pre === undefined) return UNSTABLE;
    if (!pre.ok) return new Failure(pre.error.kind === 'global' || pre.error.kind === 'condition' ? pre.error.message : '');
    if (!isJsonObject(pre.patch) || Object.keys(pre.patch).length === 0) return EMPTIED;
    patch = pre.patch;
  }
  return insertsAsIs(patch, [], lists) ? patch : UNSTABLE;
}

/** `node.absent` where the resource's map has `schema`: UNSTABLE where the map holds a list the schema merges. */
function absentUnder(node: PatternNode, schema: SchemaRef): PatternNode['absent'] {
  const lists = node.absentLists;
  for (let i = 0; i < lists.length; i++) {
    let s = schema;
    for (const key of lists[i]!) s = fieldSchema(s, key);
    if (s?.merge !== undefined) return UNSTABLE;
  }
  return node.absent;
}

/**
 * What checkSource does where the resource has no map for `node` (undefined, null, a scalar or a list):
 * nothing (`none`), the general path (`general`), skip the pattern (`skip`, a failed condition), or, for a map
 * inserted as it is (`insert`), the general path over a scalar or a list only.
 */
export function absentCheck(node: PatternNode, schema: SchemaRef): 'none' | 'general' | 'skip' | 'insert' {
  const absent = absentUnder(node, schema);
  if (absent === EMPTIED) return 'none';
  if (absent === UNSTABLE) return 'general';
  if (absent instanceof Failure) return absent.message === '' ? 'general' : 'skip';
  return 'insert';
}

/** Whether a pattern with `node` is skipped (a failed condition) where the resource has no map for it. */
export function skippedWhenAbsent(node: PatternNode): boolean {
  return node.absent instanceof Failure && node.absent.message !== '';
}

/** The map inserted for `node` where the resource has none, when it is inserted as it is (no condition). */
export function insertedAsIs(node: PatternNode, schema: SchemaRef): JsonObject | undefined {
  const absent = absentUnder(node, schema);
  return absent === EMPTIED || absent === UNSTABLE || absent instanceof Failure ? undefined : absent;
}

function insertsAsIs(v: JsonValue, at: string[], lists: string[][]): boolean {
  if (v === null) return false;
  if (Array.isArray(v)) {
    lists.push([...at]);
    return true;
  }
  if (typeof v !== 'object') return true;
  if (v.apiVersion !== undefined && v.kind !== undefined) return false;
  for (const k of Object.keys(v)) {
    if (k.startsWith('$')) return false;
    at.push(k);
    const ok = insertsAsIs(v[k]!, at, lists);
    at.pop();
    if (!ok) return false;
  }
  return true;
}

/** Whether the fast walk checks `schema`'s maps against the normal form (merge.ts fastFields `tracked`). */
export function tracked(schema: SchemaRef): schema is SmpSchema {
  return schema !== null && (schema.values !== undefined || (schema.fieldNames !== undefined && schema.fieldNames.length > 0));
}

/** The generated check returned it: a shape the fast walk hands to the full walk. */
const GENERAL: unique symbol = Symbol('general');

/** What the write pass hands to the caller's bookkeeping (merge.ts Walk, commit). */
export interface Writes {
  readonly owned: MergeOwnership | undefined;
  readonly normalForms: NormalForms | undefined;
  /** Writes so far: a map keeping its identity while a write happened below it changed in place. */
  count: number;
  touched: object[] | undefined;
  results: object[] | undefined;
  created: JsonObject[] | undefined;
  /** A fused merge's patterns skipped by a failed condition, one bit each (fused-merge.ts). */
  skip: number;
}

/**
 * The generated merge of one pattern under one root schema: the first failed condition's message, GENERAL,
 * or the merged resource (the resource itself when unchanged or changed in place).
 */
export type GeneratedMerge = (resource: JsonObject, cx: Writes) => JsonObject | string | typeof GENERAL;

/** A resource type's schema and the pattern's generated merge under it (CompiledMerge.last's shape). */
interface TypedMerge {
  readonly schema: SchemaRef;
  readonly merge: GeneratedMerge | null;
}

function typedMerge(compiled: CompiledMerge, resource: JsonObject): TypedMerge {
  const apiVersion = resource.apiVersion;
  const kind = resource.kind;
  const last = compiled.last;
  if (last !== undefined && last.apiVersion === apiVersion && last.kind === kind) return last;
  const schema = schemaOfNode(resource);
  let merge = compiled.bySchema.get(schema);
  if (merge === undefined) compiled.bySchema.set(schema, (merge = compiled.generate(schema) ?? null));
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { schema, merge };
  const typed = { apiVersion, kind, schema, merge };
  compiled.last = typed;
  return typed;
}

/**
 * Whether the resource is in normal form as a whole: fields the pattern does not name stay as they are only
 * then. Known from an earlier merge of the evaluation, or verified by walking it once (and remembered), which
 * is what the general path's merge would do for the fields the pattern does not reach.
 */
function normalResource(resource: JsonObject, schema: SchemaRef, normalForms: NormalForms | undefined): boolean {
  if (!tracked(schema)) return true;
  if (normalForms === undefined) return false;
  return normalForms.has(resource, schema) || normalCheck(schema)(resource, normalForms);
}

function newWrites(normalForms: NormalForms | undefined, owned: MergeOwnership | undefined): Writes {
  return { owned, normalForms, count: 0, touched: undefined, results: undefined, created: undefined, skip: 0 };
}

/**
 * Runs a compiled pattern against `resource`; undefined when the general path must decide. `normalForms` and
 * `owned` are strategicMerge's options of the same names.
 */
export function runCompiledMerge(compiled: CompiledMerge, resource: JsonValue, normalForms: NormalForms | undefined, owned: MergeOwnership | undefined): CompiledOutcome | undefined {
  if (!isJsonObject(resource)) return undefined;
  const { schema, merge } = typedMerge(compiled, resource);
  if (merge === null || !normalResource(resource, schema, normalForms)) return undefined;
  const cx = newWrites(normalForms, owned);
  const value = merge(resource, cx);
  if (value === GENERAL) return undefined;
  if (typeof value === 'string') return { value: resource, skipped: value };
  commit(cx);
  return cx.touched !== undefined ? { value, inPlace: true } : { value };
}

/**
 * Compiled merges of consecutive rules into one document, each seeing what the one before left, with the
 * bookkeeping (commit) once at the end instead of per merge (src/compile/smp-rule-runs.ts). A merge result
 * is in normal form by construction, so the document is verified at most once per run.
 */
export class CompiledMergeRun {
  private readonly cx: Writes;
  /** The last document known to be in normal form in this run, and under which schema. */
  private normal: JsonObject | undefined;
  private normalSchema: SchemaRef = null;

  constructor(normalForms: NormalForms | undefined, owned: MergeOwnership | undefined) {
    this.cx = newWrites(normalForms, owned);
  }

  /**
   * The merged document (itself when unchanged or changed in place), a failed condition's message (the rule
   * is skipped), or undefined: the general path decides, and nothing was written. `skip`: the bits of a fused
   * merge's patterns not to apply (`cx.skip`).
   */
  step(compiled: CompiledMerge, resource: JsonValue, skip = 0): JsonObject | string | undefined {
    if (!isJsonObject(resource)) return undefined;
    // A fused merge's patterns the caller skips (fused-merge.ts); other merges do not read it.
    this.cx.skip = skip;
    const { schema, merge } = typedMerge(compiled, resource);
    if (merge === null) return undefined;
    if (resource !== this.normal || schema !== this.normalSchema) {
      // Facts about containers changed in place are forgotten only at commit: verify with none pending.
      if (this.normal !== undefined || !normalResource(resource, schema, this.cx.normalForms)) return undefined;
    }
    const cx = this.cx;
    const value = merge(resource, cx);
    if (value === GENERAL) return undefined;
    if (typeof value === 'string') return value;
    // The next rule writes in place into what this one created (commit's last step, done now).
    const created = cx.created;
    if (created !== undefined) {
      for (let i = 0; i < created.length; i++) cx.owned!.add(created[i]!);
      cx.created = undefined;
    }
    this.normal = value;
    this.normalSchema = schema;
    return value;
  }

  /**
   * Whether `step(compiled, resource)` takes the resource as to its form and schema (its checks may still hand
   * it to the general path): a document in normal form is one that a merge with a failed check leaves as it is
   * outside the pattern's places. A document verified here is not verified again by the step.
   */
  ready(compiled: CompiledMerge, resource: JsonValue): boolean {
    if (!isJsonObject(resource)) return false;
    const { schema, merge } = typedMerge(compiled, resource);
    if (merge === null) return false;
    if (resource === this.normal && schema === this.normalSchema) return true;
    if (this.normal !== undefined || !normalResource(resource, schema, this.cx.normalForms)) return false;
    this.normal = resource;
    this.normalSchema = schema;
    return true;
  }

  /** Records what the run's merges wrote; returns whether some container changed in place. */
  finish(): boolean {
    commit(this.cx);
    return this.cx.touched !== undefined;
  }
}

/** merge.ts commit, for writes already made: forget what changed in place, then record the new facts. */
function commit(cx: Writes): void {
  const normalForms = cx.normalForms;
  const touched = cx.touched;
  if (touched !== undefined && normalForms !== undefined) normalForms.forgetAll(touched);
  const results = cx.results;
  if (results !== undefined) normalForms!.addResults(results);
  const created = cx.created;
  if (created !== undefined) for (let i = 0; i < created.length; i++) cx.owned!.add(created[i]!);
}

/** What generated code calls (passed as constants, see compile/source.ts). */
export const MERGE_HELP = {
  GENERAL,
  hasOwn,
  defineOwn,
  jsonEqual,
  condition: scalarConditionFailure,
  holds: scalarConditionHolds,
  /** scalarConditionHolds for an expected text isExactTextPattern accepts: a string is compared as it is. */
  holdsText(r: JsonObject, key: string, expected: string): boolean {
    const actual = hasOwn(r, key) ? r[key] : undefined;
    return typeof actual === 'string' ? actual === expected : scalarConditionHolds(r, key, expected);
  },
  isConditionText,
  copy(d: JsonObject, cx: Writes): JsonObject {
    const out = copyForWrites(d);
    if (cx.owned !== undefined) (cx.created ??= []).push(out);
    return out;
  },
};

export interface Gen {
  readonly k: Constants;
  /** The write functions, one per pattern map. */
  readonly fns: string[];
  /** The help object's slot. */
  readonly h: string;
  next: number;
}

/**
 * The source of the merge of `root` under `schema`: a check pass (merge.ts's shapes, PreProcessPattern's
 * conditions) and, once it passed, a write function per pattern map. Undefined when a key of the pattern
 * reaches an associative list under this schema (fastList: the general path) or the source cannot be built.
 */
function generate(root: PatternNode, schema: SchemaRef): GeneratedMerge | undefined {
  const k = new Constants();
  const g: Gen = { k, fns: [], h: k.ref(MERGE_HELP), next: 0 };
  const check = checkSource(root, 'r', schema, g);
  if (check === undefined) return undefined;
  const write = writeFunction(root, schema, g);
  const body = `${g.fns.join('\n')}\nreturn function merge(r, cx) {\n${check}\nreturn ${write}(r, cx);\n};`;
  return instantiate<GeneratedMerge>(body, k);
}

export const isMapSource = (v: string): string => `(${v} !== null && typeof ${v} === 'object' && !Array.isArray(${v}))`;

/** merge.ts ownField with a constant name: a plain read unless Object.prototype has the name. */
export function ownSource(d: string, key: string, g: Gen): string {
  return key in Object.prototype ? `(${g.h}.hasOwn(${d}, ${literal(key)}) ? ${d}[${literal(key)}] : undefined)` : `${d}[${literal(key)}]`;
}

/** The check pass of `node` over the resource map `d`: returns GENERAL, a failed condition's message, or nothing. */
function checkSource(node: PatternNode, d: string, schema: SchemaRef, g: Gen): string | undefined {
  const lines: string[] = [];
  const failed = (kind: string, c: Condition): string =>
    `{ const f = ${g.h}.condition(${d}, ${literal(c.key)}, ${literal(c.expected)}); if (f !== undefined) return "${kind} failed: " + f; }`;
  for (const c of node.globals) lines.push(failed('global condition', c));
  for (const c of node.conditions) lines.push(failed('condition', c));
  for (const e of node.entries) {
    const v = `v${g.next++}`;
    const inner: string[] = [];
    const child = e.node;
    if (child !== undefined) {
      const dv = `d${g.next++}`;
      const sub = checkSource(child, dv, fieldSchema(schema, e.key), g);
      if (sub === undefined) return undefined;
      // Under an unknown kind, a map naming its apiVersion and kind selects its own schema.
      const ownSchema = schema === null ? `if (${v}.apiVersion !== undefined && ${v}.apiVersion !== null && ${v}.kind !== undefined && ${v}.kind !== null) return ${g.h}.GENERAL;\n` : '';
      const absent = absentUnder(child, fieldSchema(schema, e.key));
      const otherwise =
        absent === EMPTIED
          ? ''
          : absent === UNSTABLE
            ? `return ${g.h}.GENERAL;`
            : absent instanceof Failure
              ? absent.message === ''
                ? `return ${g.h}.GENERAL;`
                : `return ${literal(absent.message)};`
              : `if (${v} !== undefined && ${v} !== null) return ${g.h}.GENERAL;`; // a map over a scalar or a list
      inner.push(`if (${isMapSource(v)}) {\n${ownSchema}const ${dv} = ${v};\n${sub}\n}${otherwise === '' ? '' : ` else { ${otherwise} }`}`);
    } else if (e.list !== undefined) {
      const sub = listCheckSource(e.list, v, fieldSchema(schema, e.key), g);
      if (sub === undefined) return undefined;
      inner.push(sub);
    } else if (Array.isArray(e.value)) {
      if (fieldSchema(schema, e.key)?.merge !== undefined) return undefined; // an associative list: fastList
      inner.push(`if (${v} !== undefined && ${v} !== null && !Array.isArray(${v})) return ${g.h}.GENERAL;`);
    } else if (e.value !== null) inner.push(`if (${v} !== null && typeof ${v} === 'object') return ${g.h}.GENERAL;`);
    if (inner.length === 0) continue;
    const guard = e.add ? `if (${v} === undefined) ` : '';
    lines.push(`{ const ${v} = ${ownSource(d, e.key, g)};\n${guard}{\n${inner.join('\n')}\n} }`);
  }
  return lines.join('\n');
}

/**
 * The conditional element's checks over the resource list `v`: evalList gives up on an odd `name`, the
 * merged elements must not clash in kind. Only a list merged by `name` is compiled: the copies are then keyed
 * by the resource elements' own names, distinct and complete in a list in normal form, so fastList takes its
 * plain case (at most 32 elements).
 */
function listCheckSource(element: PatternNode, v: string, listSchema: SchemaRef, g: Gen): string | undefined {
  const keys = listSchema?.merge;
  if (keys === undefined || keys.length !== 1 || keys[0] !== 'name') return undefined;
  const el = `d${g.next++}`;
  const sub = checkSource({ ...element, globals: [], conditions: [] }, el, elementSchema(listSchema), g);
  if (sub === undefined) return undefined;
  return `if (${v} !== undefined && ${v} !== null) {
if (!Array.isArray(${v}) || ${v}.length > 32) return ${g.h}.GENERAL;
for (let i = 0; i < ${v}.length; i++) {
const ${el} = ${v}[i];
if (!${isMapSource(el)}) continue;
${conditionsMet(element, el, g)}
const name = ${ownSource(el, 'name', g)};
if (name === undefined || name === null) continue;
if (typeof name === 'object') { if (Object.keys(name).length === 0) continue; return ${g.h}.GENERAL; }
if (${g.h}.isConditionText(name)) return ${g.h}.GENERAL;
${sub}
}
}`;
}

/** `continue` unless the element map `el` meets the conditional element's conditions. */
function conditionsMet(element: PatternNode, el: string, g: Gen): string {
  return element.conditions.map((c) => `if (!${holdsSource(el, c, g)}) continue;`).join('\n');
}

/** Generated code: whether the scalar condition `c` holds on the resource map `d` (scalarConditionHolds). */
export function holdsSource(d: string, c: Condition, g: Gen): string {
  return `${g.h}.${isExactTextPattern(c.expected) ? 'holdsText' : 'holds'}(${d}, ${literal(c.key)}, ${literal(c.expected)})`;
}

/**
 * The merge of the conditional element's copies into the resource list `v` (fastList's plain case): the
 * elements meeting the conditions, merged, in their order, then the others; the list itself when that is
 * every element unchanged in place.
 */
function listWriteSource(e: Entry, schema: SchemaRef, g: Gen, set: (key: string, value: string) => string): string {
  const element = e.list!;
  const listSchema = fieldSchema(schema, e.key);
  const w = writeFunction({ ...element, globals: [], conditions: [] }, elementSchema(listSchema), g);
  return `if (Array.isArray(v)) {
const before = cx.count;
let list; let matched = 0;
for (let i = 0; i < v.length; i++) {
const el = v[i];
if (!${isMapSource('el')}) continue;
${conditionsMet(element, 'el', g)}
const name = ${ownSource('el', 'name', g)};
if (name === undefined || name === null || typeof name === 'object') continue;
(list ??= []).push(${w}(el, cx));
matched |= 1 << i;
}
if (list !== undefined) {
for (let i = 0; i < v.length; i++) if ((matched & (1 << i)) === 0) list.push(v[i]);
let same = true;
for (let i = 0; i < v.length && same; i++) same = list[i] === v[i];
if (same) { if (cx.count > before) (cx.touched ??= []).push(v); list = v; }
if (cx.normalForms !== undefined) (cx.results ??= []).push(list, ${g.k.ref(listSchema)});
if (list !== v) { ${set(e.key, 'list')} }
}
}`;
}

/**
 * Generated code setting `key` of the map `d` being written to `value`: in place when the caller owns `d`
 * (`inPlace`, counted in `cx.count`), else in its copy `out`, made at the first write.
 */
export function setSource(key: string, value: string, h: string): string {
  return key === '__proto__'
    ? `if (inPlace) { ${h}.defineOwn(d, "__proto__", ${value}); cx.count++; } else ${h}.defineOwn(out ??= ${h}.copy(d, cx), "__proto__", ${value});`
    : `if (inPlace) { d[${literal(key)}] = ${value}; cx.count++; } else (out ??= ${h}.copy(d, cx))[${literal(key)}] = ${value};`;
}

/** How a write function over the map `d` starts (see setSource)... */
export const WRITE_PROLOGUE: readonly string[] = [`const inPlace = cx.owned !== undefined && cx.owned.has(d);`, `const before = cx.count;`, `let out;`];

/** ...and ends: `d` when it kept its identity (noted as changed in place if written below), and its fact. */
export function writeEpilogue(schema: SchemaRef, g: Gen): string[] {
  const lines = [`const result = out === undefined ? d : out;`, `if (result === d && cx.count > before) (cx.touched ??= []).push(d);`];
  if (tracked(schema)) lines.push(`if (cx.normalForms !== undefined) (cx.results ??= []).push(result, ${g.k.ref(schema)});`);
  lines.push(`return result;`);
  return lines;
}

/** The write function of one pattern map (merge.ts fastFields over the pattern's keys); returns its name. */
function writeFunction(node: PatternNode, schema: SchemaRef, g: Gen): string {
  const name = `w${g.next++}`;
  const h = g.h;
  const set = (key: string, value: string): string => setSource(key, value, h);
  const lines: string[] = [...WRITE_PROLOGUE];
  const appends: string[] = [];
  node.entries.forEach((e, i) => {
    const a = `a${i}`;
    const body: string[] = [];
    const child = e.node;
    let appends_ = false;
    if (child !== undefined) {
      const w = writeFunction(child, fieldSchema(schema, e.key), g);
      const absent = absentUnder(child, fieldSchema(schema, e.key));
      body.push(`if (${isMapSource('v')}) { const nv = ${w}(v, cx); if (nv !== v) { ${set(e.key, 'nv')} } }`);
      if (!(absent instanceof Failure) && isJsonObject(absent)) {
        // The check pass left only a missing key or `null` here.
        const av = g.k.ref(absent);
        body.push(`else if (v === undefined) ${a} = ${av};`, `else { ${set(e.key, av)} }`);
        appends_ = true;
      }
    } else if (e.list !== undefined) {
      body.push(listWriteSource(e, schema, g, set));
    } else if (e.value === null) {
      body.push(`if (v !== undefined) { if (inPlace) { delete d[${literal(e.key)}]; cx.count++; } else delete (out ??= ${h}.copy(d, cx))[${literal(e.key)}]; }`);
    } else {
      const pv = Array.isArray(e.value) || Object.is(e.value, -0) ? g.k.ref(e.value) : literal(e.value as JsonScalar);
      // FieldSetter keeps a double-quoted resource string's style: a number or boolean becomes its text.
      const kept =
        Array.isArray(e.value) ? `Array.isArray(v) && ${h}.jsonEqual(v, ${pv}) ? v : ${pv}` : typeof e.value === 'string' ? pv : `typeof v === 'string' ? ${literal(scalarText(e.value as JsonScalar))} : ${pv}`;
      body.push(`if (v === undefined) ${a} = ${pv};`, `else { const nv = ${kept}; if (nv !== v) { ${set(e.key, 'nv')} } }`);
      appends_ = true;
    }
    if (appends_) lines.push(`let ${a};`);
    const guard = e.add ? `if (v === undefined) ` : '';
    lines.push(`{ const v = ${ownSource('d', e.key, g)};\n${guard}{\n${body.join('\n')}\n} }`);
    if (appends_) appends[i] = `if (${a} !== undefined) { ${set(e.key, a)} }`;
  });
  // New keys after the existing ones, in Go string order (merge.ts fastFields `appended`).
  for (const i of node.appendOrder) if (appends[i] !== undefined) lines.push(appends[i]!);
  g.fns.push(`function ${name}(d, cx) {\n${[...lines, ...writeEpilogue(schema, g)].join('\n')}\n}`);
  return name;
}
