/**
 * RFC 6902 as github.com/evanphx/json-patch/v5 (v5.9.11) applies it with the options Kyverno passes for
 * `patchesJson6902` (pkg/engine/mutate/patch/patchJSON6902.go: SupportNegativeIndices, AllowMissingPathOnRemove,
 * EnsurePathExistsOnAdd; EscapeHTML and the copy size limit off). Read upstream to learn the behaviour (patch.go:
 * findObject, ensurePathExists, partialDoc / partialArray get/set/add/remove, lazyNode.equal), written from
 * scratch. What it does that a plain RFC 6902 applier does not:
 *
 * - the patch is validated first (DecodePatch): add/replace need `value`, move/copy need `from`, six ops only;
 * - paths are split on "/" and the first piece is dropped unchecked;
 * - add walks the path first and creates what is missing (ensurePathExists): a missing or null member becomes
 *   an array when the next token is a number (strconv.Atoi: "-1", "+2", "007" count) or "-", else an object;
 *   a new array is padded with nulls up to the next index, a `-1` next token makes index 0; an existing array
 *   too short for a numeric token is padded with nulls; an array slot that is missing or null gets a new
 *   container *inserted* there (partialArray.add), the null moving one place on; a token other than `-1` below
 *   zero refuses; crossing a scalar (or a null an earlier step of the same patch wrote) is "invalid state";
 * - negative indices count from the end; on add, `-1` is the append position;
 * - remove of a missing member, a missing path or an index out of range does nothing;
 * - test: a missing member equals a null (or absent) value; scalars compare as their JSON text, strings by
 *   value; a null met inside an array dereferences a nil node (Go panics; reported as the runtime error);
 * - an empty token addresses the container itself only at the root (its `self` node: the document as the
 *   patch found it, detached, so writes there are lost); deeper it is missing.
 *
 * A null the patch writes as an op's whole value (or as padding) is a node holding "null", not the nil a
 * null of the document decodes to: the walk of a later add refuses to cross it, and a test for null on it
 * fails. That distinction is kept with the RAW_NULL marker until the result is returned.
 *
 * The input document is never mutated: containers are copied on first write (those copies are `owned` and
 * written in place afterwards), unchanged parts are shared with the input.
 */
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { MAX_OBJECT_DEPTH } from '../io/limits.js';
import type { PatchOutcome, PatchStep } from './apply.js';
import { arrayAddIndex, arrayGetIndex, atoi, decodeKey, ERR_INVALID_INDEX, ERR_MISSING, ERR_TEST_FAILED, EvanphxError, fail, firstFailure, NIL_DEREFERENCE } from './evanphx-common.js';

const ERR_INVALID = 'invalid state detected';
const ERR_EXPECTED_OBJECT = 'invalid value, expected object';
/** Nulls a single add may pad an array with; upstream has no bound (a token of 10^9 allocates 10^9 nodes). */
const MAX_PADDING = 100_000;

/** A null written by the patch itself (a lazyNode holding "null"), as opposed to a document null (nil). */
const RAW_NULL: unique symbol = Symbol('raw null');
type Node = JsonValue | typeof RAW_NULL | Node[];
type Container = JsonObject | Node[];

function isContainer(v: Node | undefined): v is Container {
  return v !== RAW_NULL && (Array.isArray(v) || isJsonObject(v));
}

// ---------------------------------------------------------------------------------------------- Go helpers

function tryAtoi(key: string): number | undefined {
  try {
    return atoi(key);
  } catch (e) {
    if (e instanceof EvanphxError) return undefined;
    throw e;
  }
}

function splitPath(path: string): string[] {
  const split = path.split('/');
  // No object transmute reads is deeper; an add that creates its parents must not build one either.
  if (split.length - 1 > MAX_OBJECT_DEPTH) fail(`the path has ${split.length - 1} segments; transmute follows at most ${MAX_OBJECT_DEPTH}`);
  return split;
}

// ---------------------------------------------------------------------------------------------- the document

/** Where a child sits in its container: the member name, or the resolved array index. */
type Slot = { container: Container; key: string | number };

class Document {
  private readonly owned = new Set<Container>();
  /** The root's `self` node (partialDoc.get("") / partialArray.get("") at the root), detached once walked into. */
  private self: { value: Node | undefined; detached?: Container } = { value: undefined };

  constructor(public root: Node) {
    this.self = { value: root };
  }

  /** The root container was replaced by a whole-document add (self: the value) or replace (self: nil). */
  setRoot(value: Node, keepSelf: boolean): void {
    this.root = value;
    this.self = { value: keepSelf ? value : undefined };
  }

  /** A writable version of the child at `slot`, attached in its (owned) container. */
  private own(value: Container, slot: Slot | undefined): Container {
    if (this.owned.has(value)) return value;
    const copy: Container = Array.isArray(value) ? value.slice() : cloneObject(value);
    this.owned.add(copy);
    if (slot) setSlot(slot, copy);
    else this.root = copy as JsonValue;
    return copy;
  }

  /** The root container, owned (copied on first write). */
  rootContainer(): Container | undefined {
    return isContainer(this.root) ? this.own(this.root, undefined) : undefined;
  }

  /**
   * container.get(key): the child node (undefined for a nil one) and its slot; throws the library's error for a
   * missing member or a bad index. An empty key is the container's `self`.
   */
  get(c: Container, key: string): { node: Node | undefined; slot?: Slot } {
    if (key === '') return { node: c === this.root ? this.selfContainer() : undefined };
    if (Array.isArray(c)) {
      const idx = arrayGetIndex(c, key);
      return { node: nil(c[idx]), slot: { container: c, key: idx } };
    }
    if (!hasOwn(c, key)) return fail(`unable to get nonexistent key: ${key}: ${ERR_MISSING}`, true);
    return { node: nil(c[key]), slot: { container: c, key } };
  }

  /** The root's self node walked into: a detached writable copy of the document as it was (writes are lost). */
  private selfContainer(): Node | undefined {
    const self = this.self;
    if (self.detached) return self.detached;
    if (!isContainer(self.value)) return self.value === null ? undefined : self.value;
    self.detached = this.deepOwn(self.value);
    return self.detached;
  }

  private deepOwn(c: Container): Container {
    const copy: Container = Array.isArray(c) ? c.map((v) => (isContainer(v) ? this.deepOwn(v) : v)) : mapObject(c, (v) => (isContainer(v) ? this.deepOwn(v) : v));
    this.owned.add(copy);
    return copy;
  }

  /** Descends into the child container at `slot` for writing. */
  descend(node: Container, slot: Slot | undefined): Container {
    // The root's self is already a detached owned copy.
    return slot ? this.own(node, slot) : node;
  }

  /** findObject: the (owned) container of the last token, and that token; undefined when a step is missing. */
  findObject(path: string): { container: Container; key: string } | undefined {
    const split = splitPath(path);
    if (split.length < 2) {
      if (path !== '') return undefined;
      const root = this.rootContainer();
      return root ? { container: root, key: '' } : undefined;
    }
    let doc = this.rootContainer();
    if (!doc) return undefined;
    for (let i = 1; i < split.length - 1; i++) {
      let got: ReturnType<Document['get']>;
      try {
        got = this.get(doc, decodeKey(split[i]!));
      } catch (e) {
        if (e instanceof EvanphxError) return undefined;
        throw e;
      }
      // A nil node, a scalar and a written null ("null" is not '{' for intoDoc) all end the walk.
      if (!isContainer(got.node)) return undefined;
      doc = this.descend(got.node, got.slot);
    }
    return { container: doc, key: decodeKey(split[split.length - 1]!) };
  }

  /** ensurePathExists: creates the missing containers along every token but the last. */
  ensurePathExists(path: string): void {
    const split = splitPath(path);
    if (split.length < 2) return;
    const parts = split.slice(1);
    let doc = this.rootContainer();
    if (!doc) return fail(ERR_EXPECTED_OBJECT);
    for (let pi = 0; pi < parts.length - 1; pi++) {
      const part = parts[pi]!;
      let got: ReturnType<Document['get']> | undefined;
      try {
        got = this.get(doc, decodeKey(part));
      } catch (e) {
        if (!(e instanceof EvanphxError)) throw e;
      }
      if (got && got.node !== undefined) {
        // Present (a written null included): it must be a container (intoDoc / intoAry).
        if (!isContainer(got.node)) return fail(ERR_INVALID);
        doc = this.descend(got.node, got.slot);
        continue;
      }
      // Missing or nil: an array too short for a numeric token is padded with nulls first.
      const partIndex = tryAtoi(part);
      if (partIndex !== undefined && Array.isArray(doc) && partIndex >= doc.length + 1) {
        pad(doc, partIndex - doc.length);
      }
      const next = parts[pi + 1]!;
      let nextIndex = tryAtoi(next);
      let created: Container;
      if (nextIndex !== undefined || next === '-') {
        nextIndex ??= 0;
        if (nextIndex < 0) {
          if (nextIndex < -1) return fail(`Unable to ensure path for negative index other than -1: ${nextIndex}: ${ERR_INVALID_INDEX}`);
          nextIndex = 0;
        }
        created = [];
        pad(created, nextIndex);
      } else created = {};
      this.owned.add(created);
      // doc.add's error is ignored upstream: the new container is then detached, and the findObject that follows
      // fails on the token that could not be added.
      try {
        containerAdd(doc, decodeKey(part), created);
      } catch (e) {
        if (!(e instanceof EvanphxError)) throw e;
      }
      doc = created;
    }
  }

  /** The document as JSON: the patch's own nulls become plain nulls (only owned containers can hold one). */
  result(): JsonValue {
    return plain(this.root, this.owned);
  }

  /** deepCopy for `copy`: a fresh value, the patch's own nulls inside it read back as document nulls. */
  copyOf(node: Node | undefined): Node | undefined {
    if (node === undefined || node === RAW_NULL) return node;
    return plain(node, this.owned, true);
  }
}

function nil(v: Node | undefined): Node | undefined {
  return v === null ? undefined : v;
}

function cloneObject(o: JsonObject): JsonObject {
  return mapObject(o, (v) => v);
}

function mapObject(o: JsonObject, f: (v: Node) => Node): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o)) defineOwn(out, k, f(o[k]!) as JsonValue);
  return out;
}

function setSlot(slot: Slot, value: Node): void {
  if (typeof slot.key === 'number') (slot.container as Node[])[slot.key] = value;
  else defineOwn(slot.container as JsonObject, slot.key, value as JsonValue);
}

function pad(arr: Node[], count: number): void {
  if (count > MAX_PADDING) fail(`the patch pads a list with ${count} nulls; transmute pads at most ${MAX_PADDING}`);
  for (let i = 0; i < count; i++) arr.push(RAW_NULL);
}

/** Replaces RAW_NULL by null in the owned containers (in place), or in copies of them when `copy`. */
function plain(node: Node, owned: ReadonlySet<Container>, copy = false): JsonValue {
  if (node === RAW_NULL) return null;
  if (!isContainer(node) || !owned.has(node)) return node as JsonValue;
  if (Array.isArray(node)) {
    const target = copy ? node.slice() : node;
    for (let i = 0; i < target.length; i++) target[i] = plain(target[i]!, owned, copy);
    return target as JsonValue[];
  }
  const target = copy ? cloneObject(node) : node;
  for (const k of Object.keys(target)) defineOwn(target, k, plain(target[k]!, owned, copy));
  return target;
}

// ---------------------------------------------------------------------------------------------- containers

/** container.add, in place (the container is owned). */
function containerAdd(c: Container, key: string, value: Node): void {
  if (!Array.isArray(c)) {
    defineOwn(c, key, value as JsonValue);
    return;
  }
  if (key === '-') {
    c.push(value);
    return;
  }
  c.splice(arrayAddIndex(c, key), 0, value);
}

/** container.set (replace), in place: the key was found by get, so an index is in range; "" is a member name. */
function containerSet(c: Container, key: string, value: Node): void {
  if (!Array.isArray(c)) {
    defineOwn(c, key, value as JsonValue);
    return;
  }
  let idx = atoi(key);
  if (idx < 0) idx += c.length;
  c[idx] = value;
}

/** container.remove, in place; AllowMissingPathOnRemove makes a missing member or index a no-op. */
function containerRemove(c: Container, key: string): void {
  if (!Array.isArray(c)) {
    if (hasOwn(c, key)) delete c[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= c.length) return;
  if (idx < 0) {
    if (idx < -c.length) return;
    idx += c.length;
  }
  c.splice(idx, 1);
}

/** Runs `fn`, rewording its failure as fmt.Errorf("<context>: %w", err) does. */
function wrap<T>(context: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EvanphxError && e.kind === 'error') throw new EvanphxError('error', `${context}: ${e.message}`, e.missing);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------- equality

/**
 * lazyNode.equal(doc side `n`, op side `o`): `n` is not nil (callers check); `o` is undefined for a nil node
 * (a null inside the op's value), which is dereferenced.
 */
function nodeEqual(n: Node, o: Node | undefined): boolean {
  if (o === undefined) return fail(NIL_DEREFERENCE);
  if (n === RAW_NULL) {
    // "null" is no object (tryDoc) but decodes as a nil array (tryAry); its nodes are then read.
    if (Array.isArray(o)) return fail(NIL_DEREFERENCE);
    return false;
  }
  if (Array.isArray(n)) {
    if (!Array.isArray(o) || n.length !== o.length) return false;
    for (let i = 0; i < n.length; i++) {
      const v = n[i]!;
      if (v === null) return fail(NIL_DEREFERENCE);
      if (!nodeEqual(v, nil(o[i] as Node))) return false;
    }
    return true;
  }
  if (isJsonObject(n)) {
    if (!isJsonObject(o)) return false;
    const keys = Object.keys(n);
    if (keys.length !== Object.keys(o).length) return false;
    for (const k of keys) {
      if (!hasOwn(o, k)) return false;
      const v = nil(n[k] as Node);
      const ov = nil(o[k] as Node);
      if ((v === undefined) !== (ov === undefined)) return false;
      if (v === undefined) continue;
      if (!nodeEqual(v, ov)) return false;
    }
    return true;
  }
  // Scalars: compact JSON text, strings by value.
  if (o === RAW_NULL || typeof o === 'object') return false;
  return n === o;
}

// ---------------------------------------------------------------------------------------------- validation

/** DecodePatch's validatePatch, with Kyverno's "failed to decode patches" wrapping. */
function validate(steps: readonly PatchStep[]): string | undefined {
  for (const s of steps) {
    let problem: string | undefined;
    switch (s.op) {
      case 'add':
      case 'replace':
        if (s.hasValue === false) problem = `failed to decode 'value': operation, missing value field: ${ERR_MISSING}`;
        break;
      case 'move':
      case 'copy':
        if (s.from === undefined) problem = `failed to decode 'from': operation, missing from field: ${ERR_MISSING}`;
        break;
      case 'remove':
      case 'test':
        break;
      default:
        problem = 'unsupported operation';
    }
    if (problem) return `failed to decode patches: invalid operation ${operationJson(s)}: ${problem}`;
  }
  return undefined;
}

/** json.Marshal of the Operation map: members in key order. */
function operationJson(s: PatchStep): string {
  const members: [string, unknown][] = [['op', s.op], ['path', s.path]];
  if (s.from !== undefined) members.push(['from', s.from]);
  if (s.hasValue !== false && s.value !== undefined) members.push(['value', s.value]);
  members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

// ---------------------------------------------------------------------------------------------- ops

/** op.value(): the op's value node; a top-level null is a written null. */
function opValue(s: PatchStep): Node {
  const v = s.value ?? null;
  return v === null ? RAW_NULL : v;
}

function opAdd(d: Document, s: PatchStep): void {
  if (s.path === '') {
    const v = s.value ?? null;
    if (v === null) {
      d.setRoot(null, false);
      return;
    }
    if (typeof v !== 'object') return fail(`json: cannot unmarshal ${typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'number'} into Go value of type map[string]*jsonpatch.lazyNode`);
    d.setRoot(v, true);
    return;
  }
  d.ensurePathExists(s.path);
  const found = d.findObject(s.path);
  if (!found) return fail(`add operation does not apply: doc is missing path: "${s.path}": ${ERR_MISSING}`, true);
  wrap(`error in add for path: '${s.path}'`, () => containerAdd(found.container, found.key, opValue(s)));
}

function opRemove(d: Document, s: PatchStep): void {
  const found = d.findObject(s.path);
  if (!found) return;
  wrap(`error in remove for path: '${s.path}'`, () => containerRemove(found.container, found.key));
}

function opReplace(d: Document, s: PatchStep): void {
  if (s.path === '') {
    const v = s.value ?? null;
    if (v === null) return fail(NIL_DEREFERENCE);
    if (typeof v !== 'object') return fail('replace operation value must be object or array: %!w(<nil>)');
    d.setRoot(v, false);
    return;
  }
  const found = d.findObject(s.path);
  if (!found) return fail(`replace operation does not apply: doc is missing path: ${s.path}: ${ERR_MISSING}`, true);
  try {
    d.get(found.container, found.key);
  } catch (e) {
    if (e instanceof EvanphxError) return fail(`replace operation does not apply: doc is missing key: ${s.path}: ${ERR_MISSING}`, true);
    throw e;
  }
  // The upstream context really says "remove" (patch.go Patch.replace).
  wrap(`error in remove for path: '${s.path}'`, () => containerSet(found.container, found.key, opValue(s)));
}

function opMove(d: Document, s: PatchStep): void {
  const from = s.from!;
  if (from === '') return fail(`unable to move entire document to another path: ${ERR_INVALID}`);
  const source = d.findObject(from);
  if (!source) return fail(`move operation does not apply: doc is missing from path: ${from}: ${ERR_MISSING}`, true);
  const value = wrap(`error in move for path: '${source.key}'`, () => d.get(source.container, source.key).node);
  wrap(`error in move for path: '${source.key}'`, () => containerRemove(source.container, source.key));
  const target = d.findObject(s.path);
  if (!target) return fail(`move operation does not apply: doc is missing destination path: ${s.path}: ${ERR_MISSING}`, true);
  wrap(`error in move for path: '${s.path}'`, () => containerAdd(target.container, target.key, value ?? null));
}

function opCopy(d: Document, s: PatchStep): void {
  const from = s.from!;
  const source = d.findObject(from);
  if (!source) return fail(`copy operation does not apply: doc is missing from path: "${from}": ${ERR_MISSING}`, true);
  const value = wrap(`error in copy for from: '${from}'`, () => d.get(source.container, source.key).node);
  const target = d.findObject(s.path);
  if (!target) return fail(`copy operation does not apply: doc is missing destination path: ${s.path}: ${ERR_MISSING}`, true);
  wrap('error while adding value during copy', () => containerAdd(target.container, target.key, d.copyOf(value) ?? null));
}

function opTest(d: Document, s: PatchStep): void {
  const failed = (): never => {
    throw new EvanphxError('testFailed', `testing value ${s.path} failed: ${ERR_TEST_FAILED}`);
  };
  // op.value(): nil without a `value` member; "null" (isNull) for a null one.
  const ov = s.hasValue === false ? undefined : opValue(s);
  const ovNull = ov === undefined || ov === RAW_NULL;
  if (s.path === '') {
    const root = d.root;
    if (!isContainer(root) || !nodeEqual(root, ov)) failed();
    return;
  }
  const found = d.findObject(s.path);
  if (!found) return fail(`test operation does not apply: is missing path: ${s.path}: ${ERR_MISSING}`, true);
  let val: Node | undefined;
  try {
    val = d.get(found.container, found.key).node;
  } catch (e) {
    if (!(e instanceof EvanphxError)) throw e;
    if (!e.missing) return fail(`error in test for path: '${s.path}': ${e.message}`);
  }
  if (val === undefined) {
    if (ovNull) return;
    return failed();
  }
  if (ovNull) return failed();
  if (!nodeEqual(val, ov)) failed();
}

const OPS: Record<string, (d: Document, s: PatchStep) => void> = { add: opAdd, remove: opRemove, replace: opReplace, move: opMove, copy: opCopy, test: opTest };

/** Applies the steps in order; the first failure aborts the whole patch (the document is left as it was). */
export function applyEvanphxV5(doc: JsonValue, steps: readonly PatchStep[]): PatchOutcome {
  const invalid = validate(steps);
  if (invalid) return { ok: false, kind: 'error', message: invalid, step: 0 };
  const d = new Document(doc);
  const failed = firstFailure(steps, (s) => OPS[s.op]!(d, s));
  if (failed) return failed;
  // partialDoc.MarshalJSON of a whole-document add of null.
  if (d.root === null) return { ok: false, kind: 'error', message: ERR_EXPECTED_OBJECT, step: steps.length - 1 };
  return { ok: true, doc: d.result() };
}
