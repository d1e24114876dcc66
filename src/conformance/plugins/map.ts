/**
 * The MAP corpus' runner (listed in ../runners.ts): it hands the request attributes the `AdmissionRequest` type
 * does not carry (requestKind, requestResource, requestSubResource, from the manifest's `request`) to the CEL
 * `request` variable and types custom kinds with the schemas the case ships, both through the case's runtime,
 * then runs the default admission runner.
 */
import { kindSchema } from '../../engines/ssa.js';
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { gvkOf } from '../../k8s/resources.js';
import { kindSchemasFromCrds, kindSchemasFromOpenApi } from '../../merge/ssa/openapi/load.js';
import { firstError } from '../policies.js';
import { runAdmissionCase } from '../runners/admission.js';
import { createRuntime } from '../../runtime/create.js';
import { deriveRuntime, type RequestExtras, type SchemaEnvironment } from '../../runtime/runtime.js';
import type { AdmissionCase, CaseResult } from '../types.js';
import type { RunContext } from '../runners/context.js';

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

function extrasOf(c: AdmissionCase): RequestExtras {
  const hints = c.hints ?? {};
  const out: RequestExtras = {};
  const rk = hints['requestKind'];
  if (isJsonObject(rk)) out.requestKind = { group: str(rk['group']), version: str(rk['version']), kind: str(rk['kind']) };
  const rr = hints['requestResource'];
  if (isJsonObject(rr)) out.requestResource = { group: str(rr['group']), version: str(rr['version']), resource: str(rr['resource']) };
  if (typeof hints['requestSubResource'] === 'string') out.requestSubResource = hints['requestSubResource'];
  return out;
}

const isCrd = (d: SourceDoc): boolean => isJsonObject(d.value) && hasOwn(d.value, 'kind') && d.value['kind'] === 'CustomResourceDefinition';
const isOpenApi = (d: SourceDoc): boolean => isJsonObject(d.value) && hasOwn(d.value, 'openapi') && hasOwn(d.value, 'components');

/**
 * kube-apiserver types every kind with its published OpenAPI, so a case on a custom resource carries the
 * schema among its sibling documents: CustomResourceDefinitions or OpenAPI v3 documents, made the case's
 * kinds. OpenAPI documents are taken out of the documents the dialect sees; CRDs stay, since a paramKind
 * resolves against the kinds they serve (params.ts), as on a cluster where they are installed.
 */
function schemasOf(c: AdmissionCase): { env: SchemaEnvironment; rest: SourceDoc[] } | { error: string } {
  const crds = c.siblingDocs.filter(isCrd);
  const documents = c.siblingDocs.filter(isOpenApi);
  const kinds = kindSchemasFromCrds(crds);
  if (!kinds.ok) return { error: `the case's CustomResourceDefinition: ${firstError(kinds.diagnostics)}` };
  const fromDocuments = kindSchemasFromOpenApi(documents);
  if (!fromDocuments.ok) return { error: `the case's OpenAPI document: ${firstError(fromDocuments.diagnostics)}` };
  const env: SchemaEnvironment = { kinds: kinds.value.addAll(fromDocuments.value) };
  const gvk = c.request?.kind ?? gvkOf(c.request?.object ?? c.request?.oldObject ?? null);
  const known = kindSchema(gvk, env) !== undefined;
  // A custom kind the case gives no schema for: upstream's apiserver had the CRD the Go test created, and the
  // corpus does not transcribe it (k8s-integration/crd-panda-label: fixtures.AllowAllSchema, an object that
  // preserves unknown fields, so every map is granular as in the deduced schema). The case runs with the
  // deduced fallback instead of the unknown-kind error a real apiserver without that CRD would give.
  if (!known) env.unknownKinds = 'deduced';
  return { env, rest: c.siblingDocs.filter((d) => !isOpenApi(d)) };
}

export function runMapCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  const schemas = schemasOf(c);
  if ('error' in schemas) return { status: 'error', reason: schemas.error };
  const runnable = schemas.rest.length === c.siblingDocs.length ? c : { ...c, siblingDocs: schemas.rest };
  // Fields the case leaves out keep the run's (`--via` deduces unknown kinds: see runCase).
  const runtime = deriveRuntime(ctx.runtime ?? createRuntime(), { schemas: schemas.env, ...(c.request ? { requestExtras: extrasOf(c) } : {}) });
  return runAdmissionCase(runnable, { ...ctx, runtime });
}
