/**
 * The structured-merge engine of the interpreter (`merge ssa`): MAP's ApplyConfiguration as kube-apiserver
 * runs it (admission/plugin/policy/mutating/patch/smd.go ApplyStructuredMergeDiff), over src/merge/ssa, plus
 * the strict typed decode kube-apiserver runs on a JSONPatch result (patch/json_patch.go).
 *
 * The schema of a kind comes from the custom kinds of the evaluation's runtime (CRDs, `--schema`:
 * `runtime.schemas`), else from the built-in table (client-go's SMD schema of every built-in kind). A kind
 * neither knows is kube-apiserver's error unless the runtime says `unknownKinds: 'deduced'`.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { spanOfOrigin, type Origin } from '../diagnostics/span.js';
import type { DocumentEdit, EngineContext, EvalMemo, MergeEngine, PatchedDocument, TypedDecoder } from '../interpreter/engines.js';
import type { PatchSet, PlaceMemo } from '../jsonpatch/evanphx-v4-in-place.js';
import type { WebhookDecoder } from '../runtime/runtime.js';
import { evalFailure } from '../interpreter/failure.js';
import { RequestDenied } from '../interpreter/run-policy.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { AdmissionRequest, GroupVersionKind } from '../k8s/request.js';
import { gvkOf } from '../k8s/resources.js';
import { applyStructuredMergeDiff } from '../merge/ssa/apply.js';
import { applyFused, FusedWalk } from '../merge/ssa/fused-apply.js';
import type { PatchShape } from '../merge/ssa/fused-plan.js';
import { builtinSchema } from '../merge/ssa/builtin-schema.js';
import { CheckedSubtrees } from '../merge/ssa/checked.js';
import { declaresEveryField, declaresEveryFieldAlong, declaresEveryFieldSince, typesCleanly } from '../merge/ssa/fast-checks.js';
import { goDecodeError, goDecodeErrorAt, goDecodes, unmarshalerErrorIn } from '../merge/ssa/go-decode-types.js';
import type { TypeNode } from '../merge/ssa/type-nodes.js';
import { gvkKey } from '../merge/ssa/builtin-kinds.js';
import { formatGvk, type KindSchema } from '../merge/ssa/openapi/kinds.js';
import { DEDUCED_SCHEMA, DEDUCED_TYPE_REF, isEmptyTypeRef, type Schema, type TypeRef } from '../merge/ssa/schema.js';
import type { Schemas, SchemaEnvironment, UnknownKindPolicy } from '../runtime/runtime.js';

export type { KindSchema, SchemaEnvironment, UnknownKindPolicy };

/**
 * dispatcher.go dispatchOne: without a type converter for the versioned kind, every mutation of the policy
 * (JSONPatch too) fails with this ServiceUnavailable StatusError, which no failure policy ignores.
 */
export function unknownKindMessage(gvk: GroupVersionKind): string {
  return `Resource kind ${formatGvk(gvk)} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.`;
}

/**
 * The schema of a kind, or undefined when neither the schemas' custom kinds (none when left out) nor the
 * built-in table knows it.
 */
export function kindSchema(gvk: GroupVersionKind, schemas?: Pick<Schemas, 'kinds'> | SchemaEnvironment): KindSchema | undefined {
  const extra = schemas?.kinds?.get(gvk);
  if (extra) return extra;
  const key = gvkKey(gvk.group, gvk.version, gvk.kind);
  const builtin = builtinSchema();
  if (!builtin.ok) return undefined;
  const typeRef = builtin.value.kinds.get(key);
  return typeRef ? { schema: builtin.value.schema, typeRef } : undefined;
}

/** The kind whose schema types the object: the request's (versioned) kind, else the object's own. */
function kindOf(request: AdmissionRequest, object: JsonValue | undefined): GroupVersionKind {
  return request.kind ?? gvkOf(object ?? null);
}


function failure(message: string, origin: Origin | undefined): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: diagnostic('TM3010', { phase: 'eval', message, span: spanOfOrigin(origin), dialect: origin?.dialect ?? 'map' }) };
}

interface KindFacts {
  /** The object's apiVersion and kind the facts were derived from (unused when the request has a kind). */
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly gvk: GroupVersionKind;
  readonly known: KindSchema | undefined;
  /** The kind's root declares apiVersion and kind as strings (see typeKeysInert). */
  readonly stringTypeKeys: boolean;
}

/**
 * This engine's facts about one evaluation, under one memo key: every mutation asks for both, and one memo
 * look-up is half the price of two. `kind`: kindOf and kindSchema, derived once per evaluation rather than per
 * mutation (all of a request's mutations type the same kind: the request's, else the object's
 * apiVersion/kind, compared again since a mutation may change them; an evaluation has one runtime, so one
 * schema environment). `checked`: the subtrees checked so far, for the schema they were checked against.
 */
class EvaluationFacts {
  kind: KindFacts | undefined = undefined;
  checked: CheckedSubtrees | undefined = undefined;
}

const FACTS = Symbol('ssa evaluation facts');

/**
 * The fused merge's walk, started again per ApplyConfiguration: one for the module (a thread's). A merge runs
 * from `start` to its result without calling out of the merge code (the patch is evaluated before), so two
 * never overlap, and the walk's scratch lists are kept instead of made per evaluation.
 */
const FUSED_WALK = new FusedWalk();

function evaluationFacts(memo: EvalMemo | undefined): EvaluationFacts | undefined {
  if (memo === undefined) return undefined;
  let facts = memo.get(FACTS) as EvaluationFacts | undefined;
  if (facts === undefined) memo.set(FACTS, (facts = new EvaluationFacts()));
  return facts;
}

function kindFacts(facts: EvaluationFacts | undefined, request: AdmissionRequest, schemas: Schemas, object: JsonValue | undefined): KindFacts {
  const own = request.kind === undefined && isJsonObject(object);
  const apiVersion = own && hasOwn(object, 'apiVersion') ? object['apiVersion'] : undefined;
  const kind = own && hasOwn(object, 'kind') ? object['kind'] : undefined;
  const hit = facts?.kind;
  if (hit !== undefined && hit.apiVersion === apiVersion && hit.kind === kind) return hit;
  const fresh = own && typeof apiVersion === 'string' && typeof kind === 'string' ? objectKindFacts(schemas, apiVersion, kind, object) : deriveKindFacts(kindOf(request, object), schemas, apiVersion, kind);
  if (facts !== undefined) facts.kind = fresh;
  return fresh;
}

function deriveKindFacts(gvk: GroupVersionKind, schemas: Schemas, apiVersion: unknown, kind: unknown): KindFacts {
  const known = kindSchema(gvk, schemas);
  return { apiVersion, kind, gvk, known, stringTypeKeys: known !== undefined && declaresStringTypeKeys(known) };
}

// A one-slot memo of the kind facts of the last object typed by its own apiVersion and kind (as
// src/k8s/facts.ts keeps the last request's): a stream of requests of one kind resolves its schema once
// instead of once per request (issue 17). A pure memo, not an environment: the facts follow from the two
// strings, the kind table (a runtime's cannot change, runtime.ts ownKinds) and the built-in schema alone.
let lastKinds: Schemas['kinds'] | undefined;
let lastObjectKindFacts: KindFacts | undefined;

function objectKindFacts(schemas: Schemas, apiVersion: string, kind: string, object: JsonValue | undefined): KindFacts {
  const last = lastObjectKindFacts;
  if (last !== undefined && lastKinds === schemas.kinds && last.apiVersion === apiVersion && last.kind === kind) return last;
  const fresh = deriveKindFacts(gvkOf(object ?? null), schemas, apiVersion, kind);
  lastKinds = schemas.kinds;
  lastObjectKindFacts = fresh;
  return fresh;
}

function checkedSubtrees(facts: EvaluationFacts | undefined, schema: Schema): CheckedSubtrees | undefined {
  if (facts === undefined) return undefined;
  const hit = facts.checked;
  if (hit?.schema === schema) return hit;
  return (facts.checked = new CheckedSubtrees(schema));
}

/**
 * smd.go: the patch takes apiVersion and kind from the object under admission (whatever the expression set),
 * is typed and guarded against atomics, then merged into the live object. Messages carry the patcher's
 * "error applying patch: " prefix. `fused`: try merge/ssa/fused-apply.ts first (the reference runs when it gives up).
 */
function ssaMerge(fused: boolean): MergeEngine {
  return (target, patch, { op, request, runtime, memo, owned, patchShape }) => {
    const evaluation = evaluationFacts(memo);
    const facts = kindFacts(evaluation, request, runtime.schemas, target);
    const gvk = facts.gvk;
    let known = facts.known;
    if (known === undefined) {
      if (runtime.schemas.unknownKinds === 'error') throw new RequestDenied(evalFailure('TM3010', unknownKindMessage(gvk), op.origin));
      // `--unknown-schema deduced`: maps granular, lists atomic (NewDeducedTypeConverter).
      known = { schema: DEDUCED_SCHEMA, typeRef: DEDUCED_TYPE_REF };
    }
    if (!isJsonObject(patch)) return failure(`error applying patch: invalid ApplyConfiguration: expected an object, got ${JSON.stringify(patch)}`, op.origin);
    const typedPatch = isJsonObject(target) && !(known === facts.known && typeKeysInert(facts.stringTypeKeys, target, patch)) ? withTargetTypeKeys(target, patch) : patch;
    const checked = checkedSubtrees(evaluation, known.schema);
    // dispatcher.go dispatchOne converts a built-in kind's merged object back into its Go type
    // (ConvertToVersion): a value a type's own UnmarshalJSON refuses fails the mutation, a policy error.
    const builtIn = known === facts.known && goTyped(known);
    const conversion = builtIn && op.origin.dialect === 'map' ? conversionError(known, typedPatch, typedPatch === patch ? patchShape : undefined) : undefined;
    // Kyverno's webhook merges a MutatingPolicy's ApplyConfiguration as it is: kube-apiserver decodes the
    // object the whole policy made (ssaWebhookDecoder, run from run-policy.ts webhookDecoded).
    if (fused && checked !== undefined && conversion === undefined) {
      const walk = FUSED_WALK;
      // The shape holds for the patch as the op built it, not for a copy with the target's type keys.
      const shape = typedPatch === patch ? patchShape : undefined;
      const planned = applyFused(known.schema, known.typeRef, target ?? null, typedPatch, checked, owned, walk, shape);
      if (planned !== undefined) return { ok: true, value: planned, inPlace: walk.inPlace };
    }
    const r = applyStructuredMergeDiff(known.schema, known.typeRef, target ?? null, typedPatch, checked ? { atomicGuard: true, checked, keepEqual: true } : { atomicGuard: true, keepEqual: true });
    if (!r.ok) return failure(`error applying patch: ${r.diagnostics[0]?.message ?? 'merge failed'}`, op.origin);
    if (conversion !== undefined) return failure(conversionMessage(gvk, conversion), op.origin);
    return { ok: true, value: r.value, inPlace: false };
  };
}

/**
 * The error of a built-in kind's conversion after `patch` was merged (go-decode-types.ts unmarshalerErrorIn),
 * or undefined; a patch built by a template none of whose leaves can hold such a value is not walked.
 */
export function conversionError(known: KindSchema, patch: JsonValue, shape: PatchShape | undefined): string | undefined {
  const root = known.schema.node(known.typeRef);
  return shape !== undefined && !shape.mayHoldUnmarshaler(root) ? undefined : unmarshalerErrorIn(root, patch);
}

/** runtime/scheme.go unstructuredToTyped's error, around the converter's. */
function conversionMessage(gvk: GroupVersionKind, error: string): string {
  return `unable to convert unstructured object to ${formatGvk(gvk)}: ${error}`;
}

/**
 * What a run of MAP ApplyConfigurations (src/compile/map-rule-runs.ts) merges with, derived as the engine
 * derives it for one merge: the kind's schema, the evaluation's typing memo and the fused walk; undefined where
 * the engine would not take its fused path (an unknown kind, a schema with unmergeable lists).
 */
export interface ApplyRunFacts {
  readonly schema: Schema;
  readonly typeRef: TypeRef;
  readonly checked: CheckedSubtrees;
  readonly walk: FusedWalk;
  /** typeKeysInert's `stringTypeKeys` for the kind. */
  readonly stringTypeKeys: boolean;
  /** The object's apiVersion and kind the facts were derived from (unused when the request has a kind). */
  readonly apiVersion: unknown;
  readonly kind: unknown;
  /** A built-in kind, converted back into its Go type after each ApplyConfiguration (ssaMerge's `conversion`). */
  readonly goTyped: boolean;
}

export function applyRunFacts(request: AdmissionRequest, runtime: EngineContext['runtime'], memo: EvalMemo, object: JsonObject): ApplyRunFacts | undefined {
  const evaluation = evaluationFacts(memo)!;
  const facts = kindFacts(evaluation, request, runtime.schemas, object);
  const known = facts.known;
  if (known === undefined || known.schema.hasUnmergeableLists()) return undefined;
  const checked = checkedSubtrees(evaluation, known.schema)!;
  return { schema: known.schema, typeRef: known.typeRef, checked, walk: FUSED_WALK, stringTypeKeys: facts.stringTypeKeys, apiVersion: facts.apiVersion, kind: facts.kind, goTyped: goTyped(known) };
}

const TYPE_KEYS = ['apiVersion', 'kind'] as const;

function withTargetTypeKeys(target: JsonObject, patch: JsonObject): JsonObject {
  const typed = copyObject(patch);
  for (const key of TYPE_KEYS) {
    if (hasOwn(target, key)) defineOwn(typed, key, target[key]!);
  }
  return typed;
}

/**
 * Whether setting the target's apiVersion and kind on the patch changes nothing, so that the copy can be
 * skipped: for each, the target lacks it, or the patch has the same value, or the patch lacks it and the
 * target's is a string at a declared string field (it then types cleanly, sets no atomic, and merges into
 * the target's own equal value, leaving the result as it was).
 */
export function typeKeysInert(stringTypeKeys: boolean, target: JsonObject, patch: JsonObject): boolean {
  for (const key of TYPE_KEYS) {
    if (!hasOwn(target, key)) continue;
    const value = target[key];
    if (hasOwn(patch, key)) {
      if (patch[key] !== value) return false;
      continue;
    }
    if (!stringTypeKeys || typeof value !== 'string') return false;
  }
  return true;
}

function declaresStringTypeKeys(known: KindSchema): boolean {
  const node = known.schema.node(known.typeRef);
  return node.map !== undefined && TYPE_KEYS.every((key) => node.declaredNode(key)?.scalar === 'string');
}

/**
 * identityExact: the merge returns the target itself whenever it leaves it equal (ApplyOptions.keepEqual).
 * writesOwned: the usual patch takes merge/ssa/fused-apply.ts, which writes in place into the maps earlier
 * merges of the evaluation created.
 */
export const SSA_ENGINE: MergeEngine = Object.assign(ssaMerge(true), { identityExact: true, writesOwned: true } as const);

/**
 * The same engine by the reference pipeline alone (apply.ts, copy-on-write throughout): what the fused walk is
 * tested against (test/engines/ssa-fused.test.ts). writesOwned is said (false) rather than left out: the
 * interpreter asks at every merge, and reading a member an object lacks is a slow look-up in V8 once the read
 * site has seen several shapes.
 */
export const REFERENCE_SSA_ENGINE: MergeEngine = Object.assign(ssaMerge(false), { identityExact: true, writesOwned: false } as const);

/**
 * The strict decode of a JSONPatch result into its Go type (json_patch.go: jsonSerializer.Decode with Strict):
 * unknown fields are reported as sigs.k8s.io/json words them. Kinds without a schema are unstructured: no check.
 */
export function strictDecodeErrors(object: JsonValue, gvk: GroupVersionKind, schemas?: Pick<Schemas, 'kinds'>, memo?: EvalMemo): string[] {
  return [...undeclaredFields(object, kindSchema(gvk, schemas), evaluationFacts(memo))];
}

/** No undeclared field (shared: callers only read it). */
const NO_FIELDS: readonly string[] = Object.freeze([]);

function undeclaredFields(object: JsonValue, known: KindSchema | undefined, facts: EvaluationFacts | undefined, edit?: DocumentEdit, patched?: PatchedDocument): readonly string[] {
  if (!known) return NO_FIELDS;
  const checked = checkedSubtrees(facts, known.schema);
  const prev = checked?.declaredDocument(known.typeRef);
  // The document the last decode found declaring every field, with no container of it changed in place since
  // (an empty patch, a copy-on-write one that changed nothing): the same answer, without a walk.
  if (prev !== undefined && prev === object && (patched === undefined || patched.changed.length === 0)) return NO_FIELDS;
  // Nearly every object declares all its fields: answer that without paths, and walk again to name them.
  const node = known.schema.node(known.typeRef);
  if (patched !== undefined && checked !== undefined) {
    for (let i = 0; i < patched.changed.length; i++) checked.forget(patched.changed[i]!);
    if (prev !== undefined && prev === patched.from && declaresEverySet(node, patched.sets, checked)) {
      if (object !== null && typeof object === 'object') checked.noteDeclaredDocument(known.typeRef, object);
      return NO_FIELDS;
    }
  }
  // After in-place changes `prev` may be one of them: walk the whole object (forgotten facts are not used).
  const since = patched !== undefined && patched.changed.length > 0 ? undefined : prev;
  if (since === undefined && checked !== undefined && checked.knowsNothing() && typesCleanly(known.schema, node, object, true, checked)) {
    // The evaluation's first look at the document (a JSONPatch before any ApplyConfiguration): the generated
    // typing check answers for the strict decode (a document that types declares every field) faster than the
    // walk does, and records the document valid for the ApplyConfigurations to come, which type it first.
    if (object !== null && typeof object === 'object') checked.noteValidDocument(known.typeRef, object);
    return NO_FIELDS;
  }
  if (declaresEveryFieldGiven(node, object, since, edit, checked)) {
    if (checked !== undefined && object !== null && typeof object === 'object') checked.noteDeclaredDocument(known.typeRef, object);
    return NO_FIELDS;
  }
  return undeclaredFieldPaths(known, object, checked);
}

/**
 * declaresEveryField, walking only what differs from `prev` (a document known to declare every field) and,
 * when `edit` says how the object was made from `prev`, only along the edited path: a removal adds no field.
 */
function declaresEveryFieldGiven(node: TypeNode, object: JsonValue, prev: JsonValue | undefined, edit: DocumentEdit | undefined, checked: CheckedSubtrees | undefined): boolean {
  if (prev === undefined) return declaresEveryField(node, object, checked);
  if (edit === undefined || edit.from !== prev) return declaresEveryFieldSince(node, object, prev, checked);
  return edit.removed || declaresEveryFieldAlong(node, object, prev, edit.at, checked);
}

/**
 * Every place `sets` names is declared and its value declares every field below it: given that the document
 * the patch was applied to did, the result does (PatchedDocument; removals add no field). As declaresEveryField
 * walks, a container whose type has no form for it has nothing checked below it.
 */
function declaresEverySet(root: TypeNode, sets: readonly PatchSet[], checked: CheckedSubtrees): boolean {
  for (let i = 0; i < sets.length; i++) {
    const { path, items, value, memo } = sets[i]!;
    const node = memoizedPlaceNode(root, path, items, memo);
    if (node === UNDECLARED_PLACE) return false;
    if (node === undefined || value === null || typeof value !== 'object') continue;
    // A constant value (JSONPatch{value: {...}} of constants is frozen whole) is checked once per place and kind.
    if (memo !== undefined && memo.fineValue === value) continue;
    if (!declaresEveryField(node, value, checked)) return false;
    if (memo !== undefined && Object.isFrozen(value)) memo.fineValue = value;
  }
  return true;
}

/**
 * The type node a path of object members reaches from `root` (nodeOfPlace without array indices), kept in the
 * step's PlaceMemo as the strict decode keeps it; undefined when a container on the way has no form for the
 * next piece or a struct does not declare a key (src/compile/map-run-patch.ts then leaves the step to the op).
 */
export function memberPlaceNode(root: TypeNode, path: readonly string[], memo: PlaceMemo | undefined): TypeNode | undefined {
  const node = memoizedPlaceNode(root, path, undefined, memo);
  return node === UNDECLARED_PLACE ? undefined : node;
}

/** nodeOfPlace, derived once per kind for a constant path (its PlaceMemo) rather than walked at every evaluation. */
function memoizedPlaceNode(root: TypeNode, path: readonly string[], items: readonly boolean[] | undefined, memo: PlaceMemo | undefined): TypeNode | typeof UNDECLARED_PLACE | undefined {
  if (memo !== undefined && memo.from === root) return memo.derived as TypeNode | typeof UNDECLARED_PLACE | undefined;
  const node = nodeOfPlace(root, path, items);
  if (memo !== undefined) {
    memo.from = root;
    memo.derived = node;
    memo.fineValue = undefined;
    memo.typedValue = undefined;
  }
  return node;
}

/** A place below a struct key it does not declare (nodeOfPlace). */
const UNDECLARED_PLACE: unique symbol = Symbol('undeclared place');

/**
 * The node of the place `path` names below `root` (PatchSet: `items` tells which pieces index an array),
 * undefined when a container on the way has no form for the next piece (nothing is checked below it), or
 * UNDECLARED_PLACE when a piece is a key its struct does not declare.
 */
function nodeOfPlace(root: TypeNode, path: readonly string[], items: readonly boolean[] | undefined): TypeNode | typeof UNDECLARED_PLACE | undefined {
  let node: TypeNode | undefined = root;
  for (let j = 1; j < path.length && node !== undefined; j++) {
    const key = path[j]!;
    if (node.atom === undefined) node = undefined;
    else if (items !== undefined && items[j - 1] === true) node = node.list === undefined ? undefined : node.item;
    else if (node.map === undefined) node = undefined;
    else {
      node = node.keyNode(key);
      if (node === undefined) return UNDECLARED_PLACE;
    }
  }
  return node;
}

/** The reference walk of the strict decode, which names every undeclared field (fast-checks.ts only answers yes or no). */
export function undeclaredFieldPaths(known: KindSchema, object: JsonValue, checked: CheckedSubtrees | undefined): string[] {
  const unknown: string[] = [];
  walkUnknown(known.schema, known.typeRef, object, [], unknown, checked, { containers: 0 });
  return unknown;
}

/**
 * Appends the undeclared fields below `v` (`path`: the field names and indices above it, rendered only for a
 * field found); containers `checked` knows to be free of them are skipped.
 */
function walkUnknown(schema: Schema, tr: TypeRef, v: JsonValue, path: (string | number)[], out: string[], checked: CheckedSubtrees | undefined, walked: WalkCount): void {
  if (v === null || typeof v !== 'object') return;
  if (checked !== undefined) {
    if (checked.isDeclared(tr, v)) return;
    const before = out.length;
    const walkedBefore = walked.containers;
    walkContainer(schema, tr, v, path, out, checked, walked);
    // A memo entry costs about as much as walking a few small containers again.
    if (out.length === before && walked.containers - walkedBefore >= 3) checked.markDeclared(tr, v);
    return;
  }
  walkContainer(schema, tr, v, path, out, undefined, walked);
}

/** Containers walked so far in one decode (only differences are used). */
interface WalkCount {
  containers: number;
}

function walkContainer(schema: Schema, tr: TypeRef, v: JsonValue[] | JsonObject, path: (string | number)[], out: string[], checked: CheckedSubtrees | undefined, walked: WalkCount): void {
  walked.containers++;
  const atom = schema.resolve(tr);
  if (!atom) return;
  if (Array.isArray(v)) {
    if (!atom.list) return;
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      walkUnknown(schema, atom.list.elementType, v[i]!, path, out, checked, walked);
      path.pop();
    }
    return;
  }
  if (!atom.map) return;
  const closed = isEmptyTypeRef(atom.map.elementType);
  for (const key in v) {
    if (!hasOwn(v, key)) continue;
    const field = atom.map.fieldIndex.get(key);
    path.push(key);
    if (field !== undefined) walkUnknown(schema, field.type, v[key]!, path, out, checked, walked);
    else if (closed) out.push(renderPath(path));
    else walkUnknown(schema, atom.map.elementType, v[key]!, path, out, checked, walked);
    path.pop();
  }
}

/** sigs.k8s.io/json's field path: `a.b[0].c`. */
function renderPath(path: readonly (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s;
}

/** CheckedSubtrees.forget for each of `changed`, in the evaluation's memo whatever its schema. */
function forgetChanged(facts: EvaluationFacts | undefined, changed: readonly object[]): void {
  const checked = facts?.checked;
  if (checked !== undefined) for (let i = 0; i < changed.length; i++) checked.forget(changed[i]!);
}

/** The typed decoder of the evaluation's runtime: unknown kinds and undeclared fields, as json_patch.go reports them. */
function decodeStrictly(object: JsonValue, { request, runtime, memo, edit, patched, before }: Parameters<TypedDecoder>[1]): string | undefined {
  const facts = evaluationFacts(memo);
  const { gvk, known } = kindFacts(facts, request, runtime.schemas, object);
  // Nothing to decode against, but what the merges know of the changed containers (by the deduced schema) is stale.
  if (known === undefined && patched !== undefined) forgetChanged(facts, patched.changed);
  if (runtime.schemas.unknownKinds === 'error' && known === undefined) return unknownKindMessage(gvk);
  // encoding/json returns a type error before sigs.k8s.io/json's strict errors (unknown fields) are looked at.
  const typeError = known !== undefined && goTyped(known) ? goTypeError(object, known, before, edit, patched) : undefined;
  if (typeError !== undefined) return typeError;
  const errors = undeclaredFields(object, known, facts, edit, patched);
  if (errors.length === 0) return undefined;
  return `strict decoding error: ${errors.map((p) => `unknown field "${p}"`).join(', ')}`;
}

/**
 * A kind kube-apiserver decodes into a Go type: one of the built-in table. A custom resource (a kind of the
 * runtime's schemas) is decoded into an Unstructured, where no value has a type to mismatch.
 */
function goTyped(known: KindSchema): boolean {
  const builtin = builtinSchema();
  return builtin.ok && known.schema === builtin.value.schema;
}

/**
 * The Go type error decoding a JSONPatch result of a built-in kind gives (go-decode-types.ts), or undefined.
 * The document the patch was applied to is taken as decoding (kube-apiserver admits only objects it decoded,
 * and a value an earlier mutation wrote was decoded or typed then): only what the patch set is walked, by its
 * places (`patched`, `edit`) or by what differs from `before`; the whole document when neither is known.
 */
function goTypeError(object: JsonValue, known: KindSchema, before: JsonValue | undefined, edit: DocumentEdit | undefined, patched: PatchedDocument | undefined): string | undefined {
  const root = known.schema.node(known.typeRef);
  if (patched !== undefined) {
    if (setsDecode(root, patched.sets)) return undefined;
    for (const { path, items, value } of patched.sets) {
      const error = goDecodeErrorAt(root, path.slice(1), items, value);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  if (edit !== undefined) {
    if (edit.removed || editDecodes(root, object, edit.at)) return undefined;
    return goDecodeErrorAt(root, edit.at, undefined, valueAt(object, edit.at));
  }
  return goDecodes(root, object, before) ? undefined : goDecodeError(root, object, before);
}

/** The value at the object members `at` below `object` (null where one is missing). */
function valueAt(object: JsonValue, at: readonly string[]): JsonValue {
  let cur = object;
  for (let i = 0; i < at.length; i++) {
    if (!isJsonObject(cur) || !hasOwn(cur, at[i]!)) return null;
    cur = cur[at[i]!]!;
  }
  return cur;
}

/** Whether each value of `sets` decodes at its place (a place no type declares is the strict decode's to report). */
function setsDecode(root: TypeNode, sets: readonly PatchSet[]): boolean {
  for (let i = 0; i < sets.length; i++) {
    const { path, items, value, memo } = sets[i]!;
    if (value === null) continue;
    const node = memoizedPlaceNode(root, path, items, memo);
    if (node === UNDECLARED_PLACE || node === undefined) continue;
    if (!goDecodes(node, value)) return false;
  }
  return true;
}

/** Whether the member `at` names (from the root, every other member as in the document it was set in) decodes. */
function editDecodes(root: TypeNode, object: JsonValue, at: readonly string[]): boolean {
  let node = root;
  let cur = object;
  for (let i = 0; i < at.length; i++) {
    if (!isJsonObject(cur) || node.atom === undefined || node.map === undefined) return goDecodes(node, cur);
    const key = at[i]!;
    if (!hasOwn(cur, key)) return true;
    const child = node.keyNode(key);
    if (child === undefined) return true;
    node = child;
    cur = cur[key]!;
  }
  return goDecodes(node, cur);
}

/**
 * The Go type error kube-apiserver's decode of `object` into its built-in kind gives (go-decode-types.ts), or
 * undefined: for a custom resource or a kind without a schema, always undefined.
 */
export function builtinDecodeError(object: JsonValue, gvk: GroupVersionKind, schemas?: Pick<Schemas, 'kinds'>): string | undefined {
  const known = kindSchema(gvk, schemas);
  return known !== undefined && goTyped(known) ? goDecodeError(known.schema.node(known.typeRef), object) : undefined;
}

/**
 * Why kube-apiserver would not decode `object` as its kind, or undefined: encoding/json's type error first
 * (decode.go), then the strict decode's unknown fields. A CEL policy only ever sees objects that decode.
 */
export function undecodedReason(object: JsonValue, gvk: GroupVersionKind, schemas?: Pick<Schemas, 'kinds'>): string | undefined {
  const typeError = builtinDecodeError(object, gvk, schemas);
  if (typeError !== undefined) return typeError;
  const unknown = strictDecodeErrors(object, gvk, schemas);
  return unknown.length === 0 ? undefined : `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}`;
}

/** Takes `patched`: MAP's JSONPatches write in place into the maps the evaluation owns (ops/json-patch.ts). */
export const ssaTypedDecoder: TypedDecoder = Object.assign(decodeStrictly, { inPlaceEdits: true } as const);

/**
 * The same decoder, refusing `patched`: every JSONPatch then takes the reference path (evanphx-v4.ts, copy
 * on write, ownership ended), what the in-place path is tested against (test/engines/ssa-fused.test.ts).
 */
export const REFERENCE_TYPED_DECODER: TypedDecoder = Object.assign((object: JsonValue, context: Parameters<TypedDecoder>[1]) => decodeStrictly(object, context), { inPlaceEdits: false } as const);

/**
 * kube-apiserver's decode of an object an admission webhook patched (webhook/mutating/dispatcher.go: the
 * patched JSON decoded with a non-strict serializer into the kind's Go type; a custom resource is pruned to
 * its structural schema): fields the kind's schema does not declare are dropped, silently. Kyverno's webhook
 * runs a MutatingPolicy's JSONPatch on the unstructured object, so such a field is no error there; it is this
 * decode that removes it. A value of the wrong type for a built-in kind fails the decode (an InternalError the
 * webhook's failure policy does not ignore). A kind without a schema is kept as it is.
 */
export const ssaWebhookDecoder: WebhookDecoder = (object, { request, runtime, memo }: EngineContext, before?: JsonValue) => {
  const { known } = kindFacts(evaluationFacts(memo), request, runtime.schemas, object);
  if (!known) return { ok: true, value: object };
  const typeError = goTyped(known) ? goDecodeError(known.schema.node(known.typeRef), object, before) : undefined;
  if (typeError !== undefined) return { ok: false, message: typeError };
  return { ok: true, value: pruneUndeclared(known.schema, known.typeRef, object) };
};

/** `v` without the fields its type does not declare; `v` itself when it declares them all. */
function pruneUndeclared(schema: Schema, tr: TypeRef, v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  const atom = schema.resolve(tr);
  if (!atom) return v;
  if (Array.isArray(v)) {
    if (!atom.list) return v;
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = pruneUndeclared(schema, atom.list.elementType, v[i]!);
      if (item !== v[i] && out === undefined) out = v.slice();
      if (out !== undefined) out[i] = item;
    }
    return out ?? v;
  }
  if (!atom.map) return v;
  const closed = isEmptyTypeRef(atom.map.elementType);
  let out: JsonObject | undefined;
  for (const key of Object.keys(v)) {
    const field = atom.map.fieldIndex.get(key);
    if (field === undefined && closed) {
      out ??= copyObject(v);
      delete out[key];
      continue;
    }
    const child = pruneUndeclared(schema, field !== undefined ? field.type : atom.map.elementType, v[key]!);
    if (child !== v[key]) {
      out ??= copyObject(v);
      defineOwn(out, key, child);
    }
  }
  return out ?? v;
}
