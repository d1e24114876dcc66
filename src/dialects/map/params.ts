/**
 * Parameter resolution (admission/plugin/policy/generic policy_dispatcher.go collectParams): which param
 * objects a binding selects, each one invocation of the policy. Params are sibling documents of the input.
 * A namespaced paramKind whose paramRef has no namespace reads the request's namespace, so such a binding
 * yields one variant per namespace that holds params, restricted to requests in that namespace, plus the
 * variants for the other requests (not found; cluster-scoped).
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { isJsonObject } from '../../ir/json.js';
import type { MatchClause } from '../../ir/match.js';
import type { SourceDoc } from '../../io/source.js';
import { labelsOf } from '../../k8s/labels.js';
import { compileLabelSelector } from '../../k8s/labels.js';
import { lookupKind, parseApiVersion } from '../../k8s/resources.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { MapBinding, MapPolicy, ParamObject } from './model.js';

/** One invocation's param situation. */
export interface ParamVariant {
  /** The `params` value: absent when the policy has no paramKind (no `params` variable at all). */
  params?: JsonValue;
  /** Distinguishes invocations of one binding in the IR policy id ("<namespace>/<name>" of the param). */
  idSuffix?: string;
  /** Further restriction of the requests this variant covers. */
  clause?: MatchClause;
  /** A configuration error raised (under the failure policy) when the variant matches. */
  error?: string;
  /** What the error is about: the policy's paramKind, else the binding's paramRef. */
  errorAt?: 'paramKind';
}

export const NOT_FOUND_DENY = 'no params found for policy binding with `Deny` parameterNotFoundAction';

export function collectParamObjects(siblings: readonly SourceDoc[]): ParamObject[] {
  const out: ParamObject[] = [];
  for (const d of siblings) {
    const v = d.value;
    if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') continue;
    const meta = isJsonObject(v.metadata) ? v.metadata : {};
    const labels: Record<string, string> = {};
    for (const [k, x] of Object.entries(labelsOf(v))) if (typeof x === 'string') labels[k] = x;
    out.push({
      value: v as JsonObject,
      apiVersion: v.apiVersion,
      kind: v.kind,
      name: typeof meta.name === 'string' ? meta.name : '',
      namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
      labels,
    });
  }
  return out;
}

/** What the cluster serves besides the built-in kinds: the runtime's custom kinds and the input's CRDs. */
export interface ServedKinds {
  runtime?: Runtime | undefined;
  crds: readonly JsonObject[];
}

/** The CustomResourceDefinitions among the input's documents. */
export function collectCrds(siblings: readonly SourceDoc[]): JsonObject[] {
  return siblings.map((d) => d.value).filter((v): v is JsonObject => isJsonObject(v) && v.kind === 'CustomResourceDefinition' && typeof v.apiVersion === 'string' && v.apiVersion.startsWith('apiextensions.k8s.io/'));
}

/** The scope of a kind a CRD serves in `version`; undefined when none of the CRDs serves it. */
function crdScope(crds: readonly JsonObject[], group: string, version: string, kind: string): { namespaced: boolean } | undefined {
  for (const crd of crds) {
    const spec = isJsonObject(crd.spec) ? crd.spec : undefined;
    const names = isJsonObject(spec?.names) ? spec.names : undefined;
    if (spec?.group !== group || names?.kind !== kind || !Array.isArray(spec.versions)) continue;
    if (spec.versions.some((v) => isJsonObject(v) && v.name === version && v.served === true)) return { namespaced: spec.scope !== 'Cluster' };
  }
  return undefined;
}

/**
 * Whether the paramKind resolves and whether it is namespaced (policy_source.go resolves it with the REST
 * mapper: a built-in kind, a kind a CRD serves, given with the runtime's custom kinds or among the input),
 * else a kind the input provides params of.
 */
function paramKindInfo(policy: MapPolicy, objects: readonly ParamObject[], served: ServedKinds): { namespaced: boolean } | undefined {
  const pk = policy.paramKind!;
  const { group, version } = parseApiVersion(pk.apiVersion);
  const builtin = lookupKind(group, pk.kind);
  if (builtin) return { namespaced: builtin.namespaced };
  const custom = served.runtime?.schemas.kinds.get({ group, version, kind: pk.kind });
  if (custom) return { namespaced: custom.namespaced ?? true };
  const fromCrd = crdScope(served.crds, group, version, pk.kind);
  if (fromCrd) return fromCrd;
  const ofKind = objects.filter((o) => o.apiVersion === pk.apiVersion && o.kind === pk.kind);
  if (ofKind.length === 0) return undefined;
  return { namespaced: ofKind.some((o) => o.namespace !== '') };
}

export function paramVariants(policy: MapPolicy, binding: MapBinding, objects: readonly ParamObject[], served: ServedKinds = { crds: [] }): ParamVariant[] {
  if (!policy.paramKind) return [{}];
  const pk = policy.paramKind;
  const info = paramKindInfo(policy, objects, served);
  if (!info) return [{ error: `failed to configure policy: failed to find resource referenced by paramKind: '${pk.apiVersion}, Kind=${pk.kind}'`, errorAt: 'paramKind' }];
  const ref = binding.paramRef;
  if (!ref) return [{ params: null }];
  if (!info.namespaced && ref.namespace) {
    return [{ error: 'failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`' }];
  }
  const selector = ref.selector ? compileLabelSelector(ref.selector).selector : undefined;
  const candidates = objects.filter(
    (o) => o.apiVersion === pk.apiVersion && o.kind === pk.kind && (ref.name !== undefined ? o.name === ref.name : selector!.matches(o.labels)),
  );
  const notFound = (clause?: MatchClause): ParamVariant[] =>
    ref.parameterNotFoundAction === 'Deny' ? [{ error: NOT_FOUND_DENY, ...(clause ? { clause } : {}) }] : [];
  const variant = (o: ParamObject, clause?: MatchClause): ParamVariant => ({
    params: o.value,
    idSuffix: o.namespace === '' ? o.name : `${o.namespace}/${o.name}`,
    ...(clause ? { clause } : {}),
  });

  if (!info.namespaced || ref.namespace !== undefined) {
    const inScope = candidates.filter((o) => (info.namespaced ? o.namespace === ref.namespace : o.namespace === ''));
    return inScope.length > 0 ? inScope.map((o) => variant(o)) : notFound();
  }
  // The request's namespace decides: one group of variants per namespace that holds params.
  const namespaces = [...new Set(candidates.map((o) => o.namespace))];
  const out: ParamVariant[] = [];
  for (const ns of namespaces) {
    for (const o of candidates.filter((c) => c.namespace === ns)) out.push(variant(o, { namespaces: [ns], scope: 'Namespaced' }));
  }
  out.push(...notFound(namespaces.length > 0 ? { excludedNamespaces: namespaces, scope: 'Namespaced' } : { scope: 'Namespaced' }));
  out.push({ error: 'failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources', clause: { scope: 'Cluster' } });
  return out;
}

/**
 * The params of a binding as the Kyverno CLI picks them (pkg/admissionpolicy/mutate.go
 * processMAPWithoutClient): one invocation. With a selector, every param object whose labels it matches, of any
 * kind and namespace, as one list (`params.items`, an UnstructuredList's content), or null when none does;
 * without one, the first object of the paramRef's name (else, with no name, of its namespace), or null. The
 * paramKind is not resolved and parameterNotFoundAction not applied.
 */
export function kyvernoCliVariants(policy: MapPolicy, binding: MapBinding, objects: readonly ParamObject[]): ParamVariant[] {
  if (!policy.paramKind) return [{}];
  const ref = binding.paramRef;
  if (!ref) return [{ params: null }];
  if (ref.selector) {
    const selector = compileLabelSelector(ref.selector).selector;
    const items = objects.filter((o) => selector.matches(o.labels)).map((o) => o.value);
    return [{ params: items.length > 0 ? { items } : null }];
  }
  const first = objects.find((o) => (ref.name ? o.name === ref.name : ref.namespace ? o.namespace === ref.namespace : false));
  return [first === undefined ? { params: null } : { params: first.value, idSuffix: first.namespace === '' ? first.name : `${first.namespace}/${first.name}` }];
}
