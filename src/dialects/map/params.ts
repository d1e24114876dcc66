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

/** Whether the paramKind resolves (a built-in kind or one the input provides) and whether it is namespaced. */
function paramKindInfo(policy: MapPolicy, objects: readonly ParamObject[]): { namespaced: boolean } | undefined {
  const pk = policy.paramKind!;
  const { group } = parseApiVersion(pk.apiVersion);
  const builtin = lookupKind(group, pk.kind);
  if (builtin) return { namespaced: builtin.namespaced };
  const ofKind = objects.filter((o) => o.apiVersion === pk.apiVersion && o.kind === pk.kind);
  if (ofKind.length === 0) return undefined;
  return { namespaced: ofKind.some((o) => o.namespace !== '') };
}

export function paramVariants(policy: MapPolicy, binding: MapBinding, objects: readonly ParamObject[]): ParamVariant[] {
  if (!policy.paramKind) return [{}];
  const pk = policy.paramKind;
  const info = paramKindInfo(policy, objects);
  if (!info) return [{ error: `failed to configure policy: failed to find resource referenced by paramKind: '${pk.apiVersion}, Kind=${pk.kind}'` }];
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
