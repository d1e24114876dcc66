/**
 * The structured-merge engine of the interpreter (`merge ssa`): MAP's ApplyConfiguration as kube-apiserver
 * runs it (admission/plugin/policy/mutating/patch/smd.go ApplyStructuredMergeDiff), over src/merge/ssa, plus
 * the strict typed decode kube-apiserver runs on a JSONPatch result (patch/json_patch.go).
 *
 * The schema of a kind comes from the table registered with `registerKindSchema` (CRDs, `--schema`), else
 * from the built-in table (client-go's SMD schema of every built-in kind).
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Origin, Span } from '../diagnostics/span.js';
import { registerMergeEngine, registerTypedDecoder, type MergeEngine } from '../interpreter/engines.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonValue } from '../ir/json.js';
import type { AdmissionRequest, GroupVersionKind } from '../k8s/request.js';
import { gvkOf } from '../k8s/resources.js';
import { applyStructuredMergeDiff } from '../merge/ssa/apply.js';
import { builtinSchema } from '../merge/ssa/builtin-schema.js';
import { gvkKey } from '../merge/ssa/builtin-kinds.js';
import { DEDUCED_SCHEMA, DEDUCED_TYPE_REF, isEmptyTypeRef, type Schema, type TypeRef } from '../merge/ssa/schema.js';

export interface KindSchema {
  schema: Schema;
  typeRef: TypeRef;
}

const extraKinds = new Map<string, KindSchema>();

/** Makes a kind's schema known (a CRD's converted OpenAPI, a `--schema` file); wins over the built-in table. */
export function registerKindSchema(gvk: GroupVersionKind, schema: KindSchema): void {
  extraKinds.set(gvkKey(gvk.group, gvk.version, gvk.kind), schema);
}

/** The schema of a kind, or undefined when neither table knows it. */
export function kindSchema(gvk: GroupVersionKind): KindSchema | undefined {
  const key = gvkKey(gvk.group, gvk.version, gvk.kind);
  const extra = extraKinds.get(key);
  if (extra) return extra;
  const builtin = builtinSchema();
  if (!builtin.ok) return undefined;
  const typeRef = builtin.value.kinds.get(key);
  return typeRef ? { schema: builtin.value.schema, typeRef } : undefined;
}

/** The kind whose schema types the object: the request's (versioned) kind, else the object's own. */
function kindOf(request: AdmissionRequest, object: JsonValue | undefined): GroupVersionKind {
  return request.kind ?? gvkOf(object ?? null);
}

function spanOf(origin: Origin | undefined): Span | undefined {
  if (!origin) return undefined;
  const { file, line, col, endLine, endCol } = origin;
  return { file, line, col, endLine, endCol };
}

function failure(message: string, origin: Origin | undefined): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: diagnostic('TM3010', { phase: 'eval', message, span: spanOf(origin), dialect: origin?.dialect ?? 'map' }) };
}

/**
 * smd.go: the patch takes apiVersion and kind from the object under admission (whatever the expression set),
 * is typed and guarded against atomics, then merged into the live object. Messages carry the patcher's
 * "error applying patch: " prefix.
 */
export const ssaMergeEngine: MergeEngine = (target, patch, { op, request }) => {
  const gvk = kindOf(request, target);
  // kube-apiserver types a custom resource with its CRD's published schema; offline, without one registered,
  // the deduced schema stands in (maps granular, lists atomic: what a CRD without list-type markers gives).
  const known = kindSchema(gvk) ?? { schema: DEDUCED_SCHEMA, typeRef: DEDUCED_TYPE_REF };
  if (!isJsonObject(patch)) return failure(`error applying patch: invalid ApplyConfiguration: expected an object, got ${JSON.stringify(patch)}`, op.origin);
  let typedPatch = patch;
  if (isJsonObject(target)) {
    typedPatch = copyObject(patch);
    for (const key of ['apiVersion', 'kind']) {
      if (hasOwn(target, key)) defineOwn(typedPatch, key, target[key]!);
    }
  }
  const r = applyStructuredMergeDiff(known.schema, known.typeRef, target ?? null, typedPatch, { atomicGuard: true });
  if (!r.ok) return failure(`error applying patch: ${r.diagnostics[0]?.message ?? 'merge failed'}`, op.origin);
  return { ok: true, value: r.value };
};

/**
 * The strict decode of a JSONPatch result into its Go type (json_patch.go: jsonSerializer.Decode with Strict):
 * unknown fields are reported as sigs.k8s.io/json words them. Kinds without a schema are unstructured: no check.
 */
export function strictDecodeErrors(object: JsonValue, gvk: GroupVersionKind): string[] {
  const known = kindSchema(gvk);
  if (!known) return [];
  const unknown: string[] = [];
  walkUnknown(known.schema, known.typeRef, object, '', unknown);
  return unknown;
}

function walkUnknown(schema: Schema, tr: TypeRef, v: JsonValue, path: string, out: string[]): void {
  const atom = schema.resolve(tr);
  if (!atom || v === null) return;
  if (Array.isArray(v)) {
    if (!atom.list) return;
    for (let i = 0; i < v.length; i++) walkUnknown(schema, atom.list.elementType, v[i]!, `${path}[${i}]`, out);
    return;
  }
  if (!isJsonObject(v) || !atom.map) return;
  const closed = isEmptyTypeRef(atom.map.elementType);
  for (const key of Object.keys(v)) {
    const field = atom.map.fieldIndex.get(key);
    const here = path === '' ? key : `${path}.${key}`;
    if (field === undefined) {
      if (closed) out.push(here);
      else walkUnknown(schema, atom.map.elementType, v[key]!, here, out);
      continue;
    }
    walkUnknown(schema, field.type, v[key]!, here, out);
  }
}

let registered = false;

/** Registers the `ssa` merge engine and the typed decoder with the interpreter (idempotent). */
export function registerSsaEngine(): void {
  if (registered) return;
  registerMergeEngine('ssa', ssaMergeEngine);
  registerTypedDecoder((object, request) => {
    const errors = strictDecodeErrors(object, kindOf(request, object));
    if (errors.length === 0) return undefined;
    return `strict decoding error: ${errors.map((p) => `unknown field "${p}"`).join(', ')}`;
  });
  registered = true;
}
