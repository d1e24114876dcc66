/**
 * RFC 6902 as gopkg.in/evanphx/json-patch.v4 (v4.13.0, kube-apiserver's MAP JSONPatch) applies it, quirks and
 * error words included (patch.go): read to learn the behaviour, written from scratch.
 *
 * - paths are split on "/" and the first piece is dropped unchecked (`"spec/replicas"` acts on `/replicas`);
 *   a path without "/" addresses nothing; `""` is the whole document only for replace and test;
 * - every segment but the last must reach an object or an array (a JSON null counts as missing);
 * - add on an object sets the member; on an array inserts at 0..len, `-` appends, negative indices count
 *   from the end (SupportNegativeIndices: `-1` is the append position);
 * - replace of a missing object member adds it (partialDoc.get never fails); of an array needs the index;
 * - move reads then removes `from` (a missing member fails on the remove), then adds at `path`;
 * - copy of a missing object member copies null;
 * - test: a missing or null target passes never (a MAP step always carries `value`); scalars compare as their
 *   JSON bytes; an object or array target equals a `null` value when it is empty (json.Unmarshal of null
 *   into a map or slice succeeds); comparing arrays holding null elements dereferences a nil node (panic);
 * - errors are pkg/errors wraps: "<context>: <cause>".
 * The document is never mutated; unchanged parts are shared.
 */
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { withEntry } from '../ir/json-copy.js';
import type { PatchOutcome, PatchStep } from './apply.js';
import { arrayAddIndex, arrayGetIndex, decodeKey, ERR_MISSING, ERR_TEST_FAILED, EvanphxError, fail, firstFailure, NIL_DEREFERENCE } from './evanphx-common.js';

// ---------------------------------------------------------------------------------------------- containers

/**
 * A container reached by findObject: its value, and the containers above it (outermost first), through which a
 * changed copy is written back to the root; `parents[i]` is entered through `segments[i + 1]`.
 */
class Found {
  constructor(
    readonly container: JsonObject | JsonValue[],
    readonly key: string,
    private readonly parents: (JsonObject | JsonValue[])[],
    private readonly segments: readonly string[],
  ) {}

  /** The path's segments below the root (the first piece is dropped, see the header). */
  members(): readonly string[] {
    return this.segments.slice(1);
  }

  /** The container and every container above it are objects (no array on the way). */
  throughObjects(): boolean {
    if (Array.isArray(this.container)) return false;
    for (const p of this.parents) if (Array.isArray(p)) return false;
    return true;
  }

  rebuild(replacement: JsonObject | JsonValue[]): JsonValue {
    let value: JsonValue = replacement;
    for (let i = this.parents.length - 1; i >= 0; i--) value = withChild(this.parents[i]!, this.segments[i + 1]!, value);
    return value;
  }
}

/** Paths split on "/" with every piece decoded, by path: MAP patches address the same few paths request after request. */
const decodedPaths = new Map<string, readonly string[]>();
/** Bounds the cache when paths are computed from the documents (every entry is then likely new). */
const MAX_DECODED_PATHS = 512;

/** A path split on "/" with every piece decoded (the first piece is dropped unchecked by the ops, see the header). */
export function decodedPath(path: string): readonly string[] {
  let segments = decodedPaths.get(path);
  if (segments === undefined) {
    segments = path.split('/').map(decodeKey);
    if (decodedPaths.size >= MAX_DECODED_PATHS) decodedPaths.clear();
    decodedPaths.set(path, segments);
  }
  return segments;
}

/** container.get: an object member (undefined when absent; null is "nil" too) or an array element. */
function containerGet(c: JsonObject | JsonValue[], key: string): JsonValue | undefined {
  if (Array.isArray(c)) return c[arrayGetIndex(c, key)];
  return hasOwn(c, key) ? c[key] : undefined;
}

/** findObject: walks all but the last segment; undefined when a step is missing, null, a scalar or an error. */
function findObject(doc: JsonValue, path: string): Found | undefined {
  const split = decodedPath(path);
  if (split.length < 2) return undefined;
  const key = split[split.length - 1]!;
  if (!isContainer(doc)) return undefined;
  const parents: (JsonObject | JsonValue[])[] = [];
  let cur: JsonObject | JsonValue[] = doc;
  // split[0] is dropped unchecked (see the header).
  for (let i = 1; i < split.length - 1; i++) {
    const k = split[i]!;
    let next: JsonValue | undefined;
    try {
      next = containerGet(cur, k);
    } catch (e) {
      if (e instanceof EvanphxError) return undefined;
      throw e;
    }
    if (next === undefined || next === null || !isContainer(next)) return undefined;
    parents.push(cur);
    cur = next;
  }
  return new Found(cur, key, parents, split);
}

function isContainer(v: JsonValue | undefined): v is JsonObject | JsonValue[] {
  return Array.isArray(v) || isJsonObject(v);
}

/** A copy of `c` whose child at `key` (already resolved to exist) is `value`. */
function withChild(c: JsonObject | JsonValue[], key: string, value: JsonValue): JsonObject | JsonValue[] {
  if (Array.isArray(c)) {
    const copy = c.slice();
    copy[arrayGetIndex(c, key)] = value;
    return copy;
  }
  return withEntry(c, key, value);
}

/** container.add. */
function containerAdd(c: JsonObject | JsonValue[], key: string, value: JsonValue): JsonObject | JsonValue[] {
  if (!Array.isArray(c)) return withEntry(c, key, value);
  if (key === '-') return [...c, value];
  const idx = arrayAddIndex(c, key);
  const copy = c.slice();
  copy.splice(idx, 0, value);
  return copy;
}

/** container.remove. */
function containerRemove(c: JsonObject | JsonValue[], key: string): JsonObject | JsonValue[] {
  if (!Array.isArray(c)) {
    if (!hasOwn(c, key)) fail(`Unable to remove nonexistent key: ${key}: ${ERR_MISSING}`);
    const copy: JsonObject = {};
    for (const k of Object.keys(c)) if (k !== key) defineOwn(copy, k, c[k]!);
    return copy;
  }
  // partialArray.remove checks the bounds in another order than get, with the same outcome and words.
  const copy = c.slice();
  copy.splice(arrayGetIndex(c, key), 1);
  return copy;
}

/** Runs `fn`, rewording its failure as pkg/errors.Wrapf(err, context) does (the context is worded only then). */
function wrap<T>(context: () => string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EvanphxError && e.kind === 'error') throw new EvanphxError('error', `${context()}: ${e.message}`);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------- equality

/**
 * lazyNode.equal(doc side `n`, op side `o`). `n` is never null (callers check); `o` is null only as the op's
 * own `value: null` (`top`), a non-nil node holding "null"; a null met deeper is a nil node.
 */
function nodeEqual(n: JsonValue, o: JsonValue, top: boolean): boolean {
  if (o === null && !top) throw new EvanphxError('error', NIL_DEREFERENCE);
  if (Array.isArray(n)) {
    const other = o === null ? [] : Array.isArray(o) ? o : undefined;
    if (!other || n.length !== other.length) return false;
    for (let i = 0; i < n.length; i++) {
      if (n[i] === null) throw new EvanphxError('error', NIL_DEREFERENCE);
      if (!nodeEqual(n[i]!, other[i]!, false)) return false;
    }
    return true;
  }
  if (isJsonObject(n)) {
    const other = o === null ? {} : isJsonObject(o) ? o : undefined;
    if (!other) return false;
    const keys = Object.keys(n);
    if (keys.length !== Object.keys(other).length) return false;
    for (const k of keys) {
      if (!hasOwn(other, k)) return false;
      const v = n[k]!;
      const ov = other[k]!;
      if ((v === null) !== (ov === null)) return false;
      if (v === null) continue;
      if (!nodeEqual(v, ov, false)) return false;
    }
    return true;
  }
  // Scalars compare as compacted JSON bytes. The document side was written by the apiserver's encoder, which
  // escapes <, >, & and U+2028/9 (encoding/json HTMLEscape); the op side comes from protojson, which does not
  // [derived]: such strings never compare equal.
  if (o === null || typeof o === 'object') return false;
  if (typeof n === 'string' && /[<>&\u2028\u2029]/.test(n)) return false;
  return n === o;
}

// ---------------------------------------------------------------------------------------------- ops

function opAdd(doc: JsonValue, s: PatchStep, located?: Found): JsonValue {
  const found = located ?? findObject(doc, s.path);
  if (!found) return fail(`add operation does not apply: doc is missing path: "${s.path}": ${ERR_MISSING}`);
  const value = s.hasValue === false ? null : (s.value ?? null);
  // wrap() inlined: the hottest op, and one closure pair per step otherwise.
  let added: JsonObject | JsonValue[];
  try {
    added = containerAdd(found.container, found.key, value);
  } catch (e) {
    if (e instanceof EvanphxError && e.kind === 'error') throw new EvanphxError('error', `error in add for path: '${s.path}': ${e.message}`);
    throw e;
  }
  return found.rebuild(added);
}

function opRemove(doc: JsonValue, s: PatchStep, located?: Found): JsonValue {
  const found = located ?? findObject(doc, s.path);
  if (!found) return fail(`remove operation does not apply: doc is missing path: "${s.path}": ${ERR_MISSING}`);
  return found.rebuild(wrap(() => `error in remove for path: '${s.path}'`, () => containerRemove(found.container, found.key)));
}

function opReplace(doc: JsonValue, s: PatchStep, located?: Found): JsonValue {
  if (s.path === '') {
    if (s.hasValue === false) return fail(NIL_DEREFERENCE);
    const v = s.value ?? null;
    // A scalar value makes Patch.replace return errors.Wrapf(nil, ...), which is nil: nothing happens.
    if (v !== null && typeof v !== 'object') return doc;
    return v;
  }
  const found = located ?? findObject(doc, s.path);
  if (!found) return fail(`replace operation does not apply: doc is missing path: ${s.path}: ${ERR_MISSING}`);
  const { container, key } = found;
  if (Array.isArray(container)) {
    try {
      containerGet(container, key);
    } catch (e) {
      if (e instanceof EvanphxError) return fail(`replace operation does not apply: doc is missing key: ${s.path}: ${ERR_MISSING}`);
      throw e;
    }
  }
  const value = s.hasValue === false ? null : (s.value ?? null);
  return found.rebuild(withChild(container, key, value));
}

function opMove(doc: JsonValue, s: PatchStep): JsonValue {
  if (s.from === undefined) return fail(`move operation failed to decode from: operation, missing from field: ${ERR_MISSING}`);
  const from = findObject(doc, s.from);
  if (!from) return fail(`move operation does not apply: doc is missing from path: ${s.from}: ${ERR_MISSING}`);
  const value = wrap(() => `error in move for path: '${from.key}'`, () => containerGet(from.container, from.key)) ?? null;
  const removed = from.rebuild(wrap(() => `error in move for path: '${from.key}'`, () => containerRemove(from.container, from.key)));
  const to = findObject(removed, s.path);
  if (!to) return fail(`move operation does not apply: doc is missing destination path: ${s.path}: ${ERR_MISSING}`);
  return to.rebuild(wrap(() => `error in move for path: '${s.path}'`, () => containerAdd(to.container, to.key, value)));
}

function opCopy(doc: JsonValue, s: PatchStep): JsonValue {
  if (s.from === undefined) return fail(`copy operation failed to decode from: operation, missing from field: ${ERR_MISSING}`);
  const from = findObject(doc, s.from);
  if (!from) return fail(`copy operation does not apply: doc is missing from path: ${s.from}: ${ERR_MISSING}`);
  const value = wrap(() => `error in copy for from: '${s.from}'`, () => containerGet(from.container, from.key)) ?? null;
  const to = findObject(doc, s.path);
  if (!to) return fail(`copy operation does not apply: doc is missing destination path: ${s.path}: ${ERR_MISSING}`);
  return to.rebuild(wrap(() => 'error while adding value during copy', () => containerAdd(to.container, to.key, value)));
}

function opTest(doc: JsonValue, s: PatchStep): JsonValue {
  const failed = (): never => {
    throw new EvanphxError('testFailed', `testing value ${s.path} failed: ${ERR_TEST_FAILED}`);
  };
  if (s.path === '') {
    if (s.hasValue === false) return fail(NIL_DEREFERENCE);
    if (doc === null || !nodeEqual(doc, s.value ?? null, true)) failed();
    return doc;
  }
  const found = findObject(doc, s.path);
  if (!found) return fail(`test operation does not apply: is missing path: ${s.path}: ${ERR_MISSING}`);
  const val = wrap(() => `error in test for path: '${s.path}'`, () => containerGet(found.container, found.key));
  if (val === undefined || val === null) {
    // `op.value().raw` on an op without value dereferences nil; with a value (even null) the test fails.
    if (s.hasValue === false) return fail(NIL_DEREFERENCE);
    return failed();
  }
  if (s.hasValue === false) return failed();
  if (!nodeEqual(val, s.value ?? null, true)) failed();
  return doc;
}

/** An op: the document after step `s`; `located`, when given, is findObject(doc, s.path) already done. */
type Op = (doc: JsonValue, s: PatchStep, located?: Found) => JsonValue;

const OPS: ReadonlyMap<string, Op> = new Map<string, Op>([
  ['add', opAdd],
  ['remove', opRemove],
  ['replace', opReplace],
  ['move', opMove],
  ['copy', opCopy],
  ['test', opTest],
]);

/**
 * applyEvanphxV4, also telling what a patch of one step did, so that the caller can skip whole-document walks:
 * `differs`, the result surely is not jsonEqual to `doc` (see setsAnotherValue; a removal) — false means
 * "not known", never "equal"; `edit`, the member path the step set through objects only, or a removal (see
 * DocumentEdit in src/interpreter/engines.ts). The step's findObject is done once for both.
 */
export function applyEvanphxV4Telling(doc: JsonValue, steps: readonly PatchStep[]): { outcome: PatchOutcome; differs: boolean; edit: PatchEdit | undefined } {
  const only = steps.length === 1 ? steps[0]! : undefined;
  const op = only?.op;
  const found = op === 'add' || op === 'replace' || op === 'remove' ? findObject(doc, only!.path) : undefined;
  const differs = found !== undefined && (op === 'remove' || setsAnotherValue(found, only!));
  const outcome = applySteps(doc, steps, found);
  if (!outcome.ok || found === undefined) return { outcome, differs: false, edit: undefined };
  const removed = op === 'remove';
  // A set inside an array shifts or replaces items by index: no member path then.
  const edit = removed || found.throughObjects() ? { at: found.members(), removed } : undefined;
  return { outcome, differs, edit };
}

/**
 * An add or replace `s` at `found` (when it succeeds) leaves a document that is not jsonEqual to the one it
 * was applied to: it inserts an array item, adds a member the object lacks, or replaces a member holding a
 * scalar (null included) by another value (scalars are jsonEqual exactly when ===). Otherwise not known.
 */
function setsAnotherValue(found: Found, s: PatchStep): boolean {
  const c = found.container;
  if (Array.isArray(c)) return s.op === 'add';
  if (!hasOwn(c, found.key)) return true;
  const old = c[found.key]!;
  const value = s.hasValue === false ? null : (s.value ?? null);
  return (old === null || typeof old !== 'object') && old !== value;
}

/** A one-step patch's change (see DocumentEdit in src/interpreter/engines.ts): the segments below the root. */
export interface PatchEdit {
  readonly at: readonly string[];
  readonly removed: boolean;
}

/** Applies the steps in order; the first failure aborts the whole patch. */
export function applyEvanphxV4(doc: JsonValue, steps: readonly PatchStep[]): PatchOutcome {
  return applySteps(doc, steps, undefined);
}

/** applyEvanphxV4, `first` being findObject(doc, steps[0].path) when already done. */
function applySteps(doc: JsonValue, steps: readonly PatchStep[], first: Found | undefined): PatchOutcome {
  let cur = doc;
  let located = first;
  const failed = firstFailure(steps, (s) => {
    const op = OPS.get(s.op) ?? fail(`Unexpected kind: ${s.op}`);
    cur = op(cur, s, located);
    located = undefined;
  });
  return failed ?? { ok: true, doc: cur };
}
