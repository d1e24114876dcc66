/**
 * Reading a MAP ApplyConfiguration expression (`Object{...}` of literals) as the path operations its
 * structured merge performs on every live object of the schema's kind (apiserver patch/smd.go; SMD
 * typed/merge.go, map.md §5), or the reason it cannot be read so.
 *
 * Exactness, position by position:
 * - granular struct / map fields: the merge replaces scalars and creates missing parents; a `set` does the same;
 * - a map-list (`listType=map`) with one key, one item in the patch: the item is merged into the live item
 *   with that key, or appended when none has it (map.md §0: SSA appends; with a single patch item the live
 *   order is kept). Only lists whose keys the apiserver's validation keeps unique are raised: the merge
 *   collapses duplicated live items into one, the IR's keyed segment visits each, so lists with legal
 *   duplicates (env) would differ;
 * - anything else is left: several items in one list (the merge reorders shared items after the patch's
 *   order), sets, empty maps, nulls, atomic positions (the apiserver's "may not mutate atomic arrays, maps or
 *   structs" error), fields the schema does not declare, type mismatches (typing errors).
 */
import type { Expr } from '../cel/ast.js';
import { parse } from '../cel/index.js';
import { isJsonObject, type JsonObject, type JsonScalar, type JsonValue } from '../ir/json.js';
import type { CelValue, Origin, SetOp } from '../ir/nodes.js';
import type { Segment } from '../ir/path.js';
import { atomicGuard } from '../merge/ssa/atomic-guard.js';
import type { Schema, TypeRef } from '../merge/ssa/schema.js';
import { isEmptyTypeRef } from '../merge/ssa/schema.js';
import { validateTyped } from '../merge/ssa/validate.js';
import { scalarOf } from './cel-guard.js';
import { exprText } from './cel-kyverno/closed.js';

/** Map-lists whose key the apiserver's validation keeps unique (pkg/apis/core/validation: validateContainers, validateVolumes). */
const UNIQUE_KEYED_LISTS: ReadonlySet<string> = new Set([
  'io.k8s.api.core.v1.PodSpec.containers',
  'io.k8s.api.core.v1.PodSpec.initContainers',
  'io.k8s.api.core.v1.PodSpec.ephemeralContainers',
  'io.k8s.api.core.v1.PodSpec.volumes',
]);

/** Why an expression is not a literal tree; a class so it can never be mistaken for a JSON string. */
class NotLiteral {
  constructor(readonly reason: string) {}
}

/**
 * A leaf computed from the request (a scalar position of the patch whose expression is not a literal): kept
 * as its CEL source. A class, so it can never be mistaken for a JSON value.
 */
export class Computed {
  constructor(
    readonly expr: Expr,
    readonly text: string,
  ) {}
}

function define(out: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The JSON tree of an `Object{...}` literal, checking MAP's type names (map.md §4.2: every nested
 * `Object.x.y` is named after its field path; list items and map values keep their parent's name).
 */
function objectLiteral(e: Expr, typeName: string, computed?: string): JsonValue | NotLiteral {
  switch (e.kind) {
    case 'struct': {
      if (e.typeName !== typeName) return new NotLiteral(`type name ${e.typeName} where ${typeName} is expected`);
      const out: JsonObject = {};
      for (const f of e.fields) {
        if (f.optional || Object.prototype.hasOwnProperty.call(out, f.name)) return new NotLiteral(`an optional or repeated field ${f.name}`);
        const v = objectLiteral(f.value, `${typeName}.${f.name}`, computed);
        if (v instanceof NotLiteral) return v;
        define(out, f.name, v);
      }
      return out;
    }
    case 'map': {
      const out: JsonObject = {};
      for (const entry of e.entries) {
        const k = scalarOf(entry.key);
        if (entry.optional || !k || typeof k.value !== 'string' || Object.prototype.hasOwnProperty.call(out, k.value)) {
          return new NotLiteral('a map key that is not a distinct string literal');
        }
        const v = objectLiteral(entry.value, typeName, computed);
        if (v instanceof NotLiteral) return v;
        define(out, k.value, v);
      }
      return out;
    }
    case 'list': {
      const out: JsonValue[] = [];
      for (let i = 0; i < e.elements.length; i++) {
        if (e.optional[i]) return new NotLiteral('an optional list element');
        const v = objectLiteral(e.elements[i]!, typeName, computed);
        if (v instanceof NotLiteral) return v;
        out.push(v);
      }
      return out;
    }
    case 'literal': {
      const s = scalarOf(e);
      return s ? s.value : new NotLiteral('a literal that is not JSON');
    }
    case 'call':
      // dyn(x) is x (HomogeneousAggregateLiterals needs it around mixed members).
      if (e.fn === 'dyn' && e.target === undefined && e.args.length === 1) return objectLiteral(e.args[0]!, typeName, computed);
      return computedLeaf(e, computed);
    default:
      return computedLeaf(e, computed);
  }
}

/** A non-literal leaf: kept as a Computed marker (cast: it only ever sits where a scalar goes) when allowed. */
function computedLeaf(e: Expr, computed: string | undefined): JsonValue | NotLiteral {
  if (computed === undefined) return new NotLiteral('an expression that is not a literal');
  return new Computed(e, exprText(computed, e)) as unknown as JsonValue;
}

/** The literal tree of an ApplyConfiguration expression, or why it is not one. */
export function applyConfigurationTree(text: string): JsonObject | string {
  const parsed = parse(text);
  if (!parsed.ok) return 'an expression that does not parse';
  return objectTree(parsed.value);
}

/** The literal tree of an `Object{...}` expression (apiVersion and kind dropped), or why it is not one. */
export function objectTree(e: Expr): JsonObject | string {
  return tree(e, undefined);
}

/**
 * The tree of an `Object{...}` expression whose non-literal parts are `Computed` leaves (the expression's
 * source `text` gives their text), or why it is not one.
 */
export function objectTreeWithComputed(e: Expr, text: string): JsonObject | string {
  return tree(e, text);
}

function tree(e: Expr, computed: string | undefined): JsonObject | string {
  if (e.kind !== 'struct') return 'an expression that is not an Object literal';
  const tree = objectLiteral(e, 'Object', computed);
  if (tree instanceof NotLiteral) return tree.reason;
  if (!isJsonObject(tree)) return 'an expression that is not an Object literal';
  // smd.go: apiVersion and kind are taken from the object under admission, whatever the expression says.
  const out: JsonObject = {};
  for (const k of Object.keys(tree)) if (k !== 'apiVersion' && k !== 'kind') define(out, k, tree[k]!);
  return out;
}

interface Walker {
  schema: Schema;
  origin: Origin;
  ops: SetOp[];
}

function setOp(w: Walker, segments: Segment[], value: JsonScalar): SetOp {
  return { kind: 'set', path: { root: 'object', segments }, value: { kind: 'literal', json: value, origin: w.origin }, origin: w.origin };
}

function walk(w: Walker, tr: TypeRef, v: JsonValue, segments: Segment[], owner: string): string | undefined {
  const atom = w.schema.resolve(tr);
  if (atom === undefined) return 'a field without a schema type';
  if ((v as unknown) instanceof Computed) {
    // A computed scalar is written as it is; its type is checked where it is compiled.
    if (atom.map || atom.list || atom.scalar === undefined) return `a computed value where the schema has a map or a list (${printable(segments)})`;
    const c = v as unknown as Computed;
    const value: CelValue = { kind: 'cel', expr: { text: c.text, origin: w.origin }, origin: w.origin };
    w.ops.push({ kind: 'set', path: { root: 'object', segments }, value, origin: w.origin });
    return undefined;
  }
  if (v === null) return `a null at ${printable(segments)}`;
  if (isJsonObject(v)) {
    const m = atom.map;
    if (!m || m.elementRelationship === 'atomic') return `an atomic map or struct at ${printable(segments)}`;
    const keys = Object.keys(v);
    if (keys.length === 0) return `an empty map at ${printable(segments)}`;
    for (const key of keys) {
      const field = m.fieldIndex.get(key);
      const type = field?.type ?? (isEmptyTypeRef(m.elementType) ? undefined : m.elementType);
      if (!type) return `an undeclared field ${key}`;
      const err = walk(w, type, v[key]!, [...segments, { kind: 'field', name: key }], `${tr.namedType ?? owner}.${key}`);
      if (err) return err;
    }
    return undefined;
  }
  if (Array.isArray(v)) {
    const l = atom.list;
    if (!l || l.elementRelationship !== 'associative' || l.keys.length !== 1) return `a list that is not keyed by one field at ${printable(segments)}`;
    if (!UNIQUE_KEYED_LISTS.has(owner)) return `a keyed list whose keys may repeat (${printable(segments)})`;
    if (v.length !== 1) return `a list of ${v.length} items at ${printable(segments)} (the merge orders several items after the patch)`;
    const item = v[0]!;
    const key = l.keys[0]!;
    if (!isJsonObject(item) || !Object.prototype.hasOwnProperty.call(item, key)) return `a list item without its key ${key}`;
    const keyValue = item[key]!;
    if (keyValue === null || typeof keyValue === 'object') return `a list item whose key ${key} is not a scalar`;
    const keyed: Segment = { kind: 'keyed', key, value: keyValue, create: true };
    const rest = Object.keys(item).filter((k) => k !== key);
    if (rest.length === 0) {
      w.ops.push(setOp(w, [...segments, keyed, { kind: 'field', name: key }], keyValue));
      return undefined;
    }
    const elem = w.schema.resolve(l.elementType)?.map;
    if (!elem) return 'a list item without a schema type';
    for (const k of rest) {
      const field = elem.fieldIndex.get(k);
      if (!field) return `an undeclared field ${k}`;
      const err = walk(w, field.type, item[k]!, [...segments, keyed, { kind: 'field', name: k }], `${l.elementType.namedType ?? owner}.${k}`);
      if (err) return err;
    }
    return undefined;
  }
  w.ops.push(setOp(w, segments, v));
  return undefined;
}

/** The tree with every computed leaf as null (typing and the atomic guard look at the shape only). */
function placeholders(v: JsonValue): JsonValue {
  if ((v as unknown) instanceof Computed) return null;
  if (Array.isArray(v)) return v.map(placeholders);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) define(out, k, placeholders(v[k]!));
    return out;
  }
  return v;
}

/**
 * Why kube-apiserver rejects the apply configuration `tree` on every object of the kind, whatever the live
 * object: typing the patch against the schema (undeclared fields, type mismatches, list items without their
 * keys) and the atomic guard look at the patch alone, before the live object is read (smd.go). Computed
 * leaves count as nulls (their type is checked where they are compiled).
 */
export function applyConfigurationFailure(schema: Schema, typeRef: TypeRef, tree: JsonObject): string | undefined {
  const shape = placeholders(tree);
  const typing = validateTyped(schema, typeRef, shape);
  if (typing.length > 0) return `the patch does not type-check: ${typing.map((t) => t.message).join('; ')}`;
  const atomics = atomicGuard(schema, typeRef, shape);
  if (atomics.length > 0) return 'the patch sets an atomic list, map or struct';
  return undefined;
}

function printable(segments: readonly Segment[]): string {
  return '.' + segments.map((s) => (s.kind === 'field' ? s.name : s.kind === 'keyed' ? `[${s.key}=${String(s.value)}]` : '[]')).join('.');
}

/**
 * The set ops the merge of `tree` performs on objects of the kind typed by (`schema`, `typeRef`), or the
 * reason the merge is not exactly a list of sets there (including every case the apiserver rejects).
 */
export function applyConfigurationOps(schema: Schema, typeRef: TypeRef, tree: JsonObject, origin: Origin): SetOp[] | string {
  if (applyConfigurationFailure(schema, typeRef, tree) !== undefined) return 'a patch that kube-apiserver rejects (typing or atomic guard)';
  if (Object.keys(tree).length === 0) return [];
  const w: Walker = { schema, origin, ops: [] };
  const err = walk(w, typeRef, tree, [], typeRef.namedType ?? '');
  if (err) return err;
  return w.ops;
}
