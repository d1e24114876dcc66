/**
 * The structured-merge engine of the interpreter (`merge ssa`): MAP's ApplyConfiguration as kube-apiserver
 * runs it (admission/plugin/policy/mutating/patch/smd.go ApplyStructuredMergeDiff), over src/merge/ssa, plus
 * the strict typed decode kube-apiserver runs on a JSONPatch result (patch/json_patch.go).
 *
 * The schema of a kind comes from the custom kinds of the active schema environment (CRDs, `--schema`;
 * `withSchemaEnvironment`), else from the built-in table (client-go's SMD schema of every built-in kind).
 * A kind neither knows is kube-apiserver's error unless the environment says `unknownKinds: 'deduced'`.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { spanOfOrigin, type Origin } from '../diagnostics/span.js';
import { registerMergeEngine, registerTypedDecoder, type EvalMemo, type MergeEngine } from '../interpreter/engines.js';
import { evalFailure } from '../interpreter/failure.js';
import { RequestDenied } from '../interpreter/run-policy.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { AdmissionRequest, GroupVersionKind } from '../k8s/request.js';
import { gvkOf } from '../k8s/resources.js';
import { applyStructuredMergeDiff } from '../merge/ssa/apply.js';
import { builtinSchema } from '../merge/ssa/builtin-schema.js';
import { CheckedSubtrees } from '../merge/ssa/checked.js';
import { gvkKey } from '../merge/ssa/builtin-kinds.js';
import { formatGvk, KindSchemaTable, type KindSchema } from '../merge/ssa/openapi/kinds.js';
import { DEDUCED_SCHEMA, DEDUCED_TYPE_REF, isEmptyTypeRef, type Schema, type TypeRef } from '../merge/ssa/schema.js';

export type { KindSchema };

/** What typing does with a kind that has no schema: kube-apiserver's error, or the deduced schema. */
export type UnknownKindPolicy = 'error' | 'deduced';

/** The schemas an evaluation types objects with. */
export interface SchemaEnvironment {
  /** Custom kinds (CRDs, OpenAPI documents); they win over the built-in table. */
  kinds?: KindSchemaTable;
  unknownKinds?: UnknownKindPolicy;
}

let environment: Required<SchemaEnvironment> = { kinds: new KindSchemaTable(), unknownKinds: 'error' };

/**
 * Puts `env` in force (fields left out keep the enclosing environment) and returns the function that restores
 * the enclosing one; call it in a `finally`, so a CLI run or a test never leaks its kinds into the next.
 */
export function enterSchemaEnvironment(env: SchemaEnvironment): () => void {
  const enclosing = environment;
  environment = { kinds: env.kinds ?? enclosing.kinds, unknownKinds: env.unknownKinds ?? enclosing.unknownKinds };
  return () => {
    environment = enclosing;
  };
}

/** Runs `run` (synchronous) with `env` in force, then restores the enclosing environment. */
export function withSchemaEnvironment<T>(env: SchemaEnvironment, run: () => T): T {
  const leave = enterSchemaEnvironment(env);
  try {
    return run();
  } finally {
    leave();
  }
}

/**
 * dispatcher.go dispatchOne: without a type converter for the versioned kind, every mutation of the policy
 * (JSONPatch too) fails with this ServiceUnavailable StatusError, which no failure policy ignores.
 */
export function unknownKindMessage(gvk: GroupVersionKind): string {
  return `Resource kind ${formatGvk(gvk)} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.`;
}

/** The schema of a kind, or undefined when neither the environment nor the built-in table knows it. */
export function kindSchema(gvk: GroupVersionKind): KindSchema | undefined {
  const extra = environment.kinds.get(gvk);
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

/** The memo key of the kind typed last in an evaluation. */
const KIND = Symbol('ssa kind');

interface KindFacts {
  /** The object's apiVersion and kind the facts were derived from (unused when the request has a kind). */
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly gvk: GroupVersionKind;
  readonly known: KindSchema | undefined;
}

/**
 * kindOf and kindSchema, derived once per evaluation rather than per mutation: all of a request's mutations
 * type the same kind (the request's, else the object's apiVersion/kind, compared again since a mutation may
 * change them), and the schema environment does not change during one synchronous evaluation.
 */
function kindFacts(memo: EvalMemo | undefined, request: AdmissionRequest, object: JsonValue | undefined): KindFacts {
  const own = request.kind === undefined && isJsonObject(object);
  const apiVersion = own && hasOwn(object, 'apiVersion') ? object['apiVersion'] : undefined;
  const kind = own && hasOwn(object, 'kind') ? object['kind'] : undefined;
  const hit = memo?.get(KIND) as KindFacts | undefined;
  if (hit !== undefined && hit.apiVersion === apiVersion && hit.kind === kind) return hit;
  const gvk = kindOf(request, object);
  const facts: KindFacts = { apiVersion, kind, gvk, known: kindSchema(gvk) };
  memo?.set(KIND, facts);
  return facts;
}

/** The memo key of this engine's checked subtrees (one CheckedSubtrees per evaluation and schema). */
const CHECKED = Symbol('ssa checked subtrees');

function checkedSubtrees(memo: EvalMemo | undefined, schema: Schema): CheckedSubtrees | undefined {
  if (memo === undefined) return undefined;
  const hit = memo.get(CHECKED) as CheckedSubtrees | undefined;
  if (hit?.schema === schema) return hit;
  const fresh = new CheckedSubtrees(schema);
  memo.set(CHECKED, fresh);
  return fresh;
}

/**
 * smd.go: the patch takes apiVersion and kind from the object under admission (whatever the expression set),
 * is typed and guarded against atomics, then merged into the live object. Messages carry the patcher's
 * "error applying patch: " prefix.
 */
export const ssaMergeEngine: MergeEngine = (target, patch, { op, request, memo }) => {
  const facts = kindFacts(memo, request, target);
  const gvk = facts.gvk;
  let known = facts.known;
  if (known === undefined) {
    if (environment.unknownKinds === 'error') throw new RequestDenied(evalFailure('TM3010', unknownKindMessage(gvk), op.origin));
    // `--unknown-schema deduced`: maps granular, lists atomic (NewDeducedTypeConverter).
    known = { schema: DEDUCED_SCHEMA, typeRef: DEDUCED_TYPE_REF };
  }
  if (!isJsonObject(patch)) return failure(`error applying patch: invalid ApplyConfiguration: expected an object, got ${JSON.stringify(patch)}`, op.origin);
  let typedPatch = patch;
  if (isJsonObject(target)) {
    typedPatch = copyObject(patch);
    for (const key of ['apiVersion', 'kind']) {
      if (hasOwn(target, key)) defineOwn(typedPatch, key, target[key]!);
    }
  }
  const checked = checkedSubtrees(memo, known.schema);
  const r = applyStructuredMergeDiff(known.schema, known.typeRef, target ?? null, typedPatch, checked ? { atomicGuard: true, checked } : { atomicGuard: true });
  if (!r.ok) return failure(`error applying patch: ${r.diagnostics[0]?.message ?? 'merge failed'}`, op.origin);
  return { ok: true, value: r.value };
};

/**
 * The strict decode of a JSONPatch result into its Go type (json_patch.go: jsonSerializer.Decode with Strict):
 * unknown fields are reported as sigs.k8s.io/json words them. Kinds without a schema are unstructured: no check.
 */
export function strictDecodeErrors(object: JsonValue, gvk: GroupVersionKind, memo?: EvalMemo): string[] {
  return undeclaredFields(object, kindSchema(gvk), memo);
}

function undeclaredFields(object: JsonValue, known: KindSchema | undefined, memo: EvalMemo | undefined): string[] {
  if (!known) return [];
  const unknown: string[] = [];
  walkUnknown(known.schema, known.typeRef, object, [], unknown, checkedSubtrees(memo, known.schema));
  return unknown;
}

/**
 * Appends the undeclared fields below `v` (`path`: the field names and indices above it, rendered only for a
 * field found); containers `checked` knows to be free of them are skipped.
 */
function walkUnknown(schema: Schema, tr: TypeRef, v: JsonValue, path: (string | number)[], out: string[], checked: CheckedSubtrees | undefined): void {
  if (v === null || typeof v !== 'object') return;
  if (checked !== undefined) {
    if (checked.isDeclared(tr, v)) return;
    const before = out.length;
    const walkedBefore = walked;
    walkContainer(schema, tr, v, path, out, checked);
    // A memo entry costs about as much as walking a few small containers again.
    if (out.length === before && walked - walkedBefore >= 3) checked.markDeclared(tr, v);
    return;
  }
  walkContainer(schema, tr, v, path, out, undefined);
}

/** Containers walked so far (only differences are used). */
let walked = 0;

function walkContainer(schema: Schema, tr: TypeRef, v: JsonValue[] | JsonObject, path: (string | number)[], out: string[], checked: CheckedSubtrees | undefined): void {
  walked++;
  const atom = schema.resolve(tr);
  if (!atom) return;
  if (Array.isArray(v)) {
    if (!atom.list) return;
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      walkUnknown(schema, atom.list.elementType, v[i]!, path, out, checked);
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
    if (field !== undefined) walkUnknown(schema, field.type, v[key]!, path, out, checked);
    else if (closed) out.push(renderPath(path));
    else walkUnknown(schema, atom.map.elementType, v[key]!, path, out, checked);
    path.pop();
  }
}

/** sigs.k8s.io/json's field path: `a.b[0].c`. */
function renderPath(path: readonly (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s;
}

let registered = false;

/** Registers the `ssa` merge engine and the typed decoder with the interpreter (idempotent). */
export function registerSsaEngine(): void {
  if (registered) return;
  registerMergeEngine('ssa', ssaMergeEngine);
  registerTypedDecoder((object, request, memo) => {
    const { gvk, known } = kindFacts(memo, request, object);
    if (environment.unknownKinds === 'error' && known === undefined) return unknownKindMessage(gvk);
    const errors = undeclaredFields(object, known, memo);
    if (errors.length === 0) return undefined;
    return `strict decoding error: ${errors.map((p) => `unknown field "${p}"`).join(', ')}`;
  });
  registered = true;
}
