/**
 * Kyverno GlobalContextEntry objects of a replayed cluster, read by the CEL `globalContext` library
 * (pkg/cel/libs/context.go GetGlobalReference) as Kyverno's controller stores them:
 * - `kubernetesResource` (pkg/globalcontext/k8sresource/entry.go): the list of the resource's objects (in a
 *   namespace when one is named); projection `""` is that list, a named projection its JMESPath result, an
 *   unknown one the error `projection "x" not found`;
 * - `apiCall` with a `urlPath` GET (pkg/globalcontext/externalapi/entry.go): the API server's response, an
 *   object or a `<Kind>List` of `items`; projection `""` is the response, a named one its JMESPath result,
 *   and one that is missing or null the error `no data available`; a call that fails (no such object) fails
 *   every read.
 * An entry that does not exist reads as null (GetGlobalReference logs it and returns nil). Anything this
 * cluster cannot answer (a service call, a POST, a query string, a subresource) is undefined: the library
 * then says the case needs data offline runs do not have.
 */
import { CelError } from '../../cel/values.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { compileJmes } from '../../jmespath/index.js';
import { apiGet, type ReplayedCluster } from './api-server.js';

function search(expression: string, data: JsonValue): JsonValue {
  const program = compileJmes(expression);
  if (!program.ok) throw new CelError(program.diagnostics[0]?.message ?? `invalid JMESPath ${JSON.stringify(expression)}`);
  const r = program.value.search(data);
  if (!r.ok) throw new CelError(r.error.message);
  return (r.value ?? null) as JsonValue;
}

function projectionsOf(spec: JsonObject): { name: string; jmesPath: string }[] {
  const raw = Array.isArray(spec.projections) ? spec.projections : [];
  return raw.filter(isJsonObject).map((p) => ({ name: String(p.name ?? ''), jmesPath: String(p.jmesPath ?? '') }));
}

/** The entry's data read at `projection`, as described in the header. */
function entryRead(cluster: ReplayedCluster, spec: JsonObject, projection: string): JsonValue | undefined {
  const projections = projectionsOf(spec);
  const k8s = spec.kubernetesResource;
  if (isJsonObject(k8s)) {
    const group = String(k8s.group ?? '');
    const apiVersion = group === '' ? String(k8s.version ?? '') : `${group}/${String(k8s.version ?? '')}`;
    const objects: JsonValue = cluster.list(apiVersion, String(k8s.resource ?? ''), String(k8s.namespace ?? ''));
    if (projection === '') return objects;
    const p = projections.find((x) => x.name === projection);
    if (p === undefined) throw new CelError(`projection "${projection}" not found`);
    return search(p.jmesPath, objects);
  }
  const call = spec.apiCall;
  if (!isJsonObject(call) || typeof call.urlPath !== 'string' || call.urlPath === '' || (call.method !== undefined && call.method !== 'GET')) return undefined;
  const got = apiGet(cluster, call.urlPath);
  if (got === undefined) return undefined;
  if (got === 'missing') throw new CelError(`failed to call ${call.urlPath}: not found`);
  const response = got.found;
  // setData stores the response and each projection's result; Get of a key it lacks, or holds nil, fails.
  const data: Record<string, JsonValue> = { '': response };
  for (const p of projections) data[p.name] = search(p.jmesPath, response);
  const value = hasOwn(data, projection) ? data[projection] : undefined;
  if (value === undefined || value === null) throw new CelError('no data available');
  return value;
}

/** The `globalContext` library's reader over the cluster's GlobalContextEntry objects. */
export function clusterGlobalContext(cluster: ReplayedCluster): (entry: string, projection: string) => JsonValue | undefined {
  return (entry, projection) => {
    for (const o of cluster.objects()) {
      if (o.kind !== 'GlobalContextEntry' || typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('kyverno.io/')) continue;
      if (!isJsonObject(o.metadata) || o.metadata.name !== entry) continue;
      return entryRead(cluster, isJsonObject(o.spec) ? o.spec : {}, projection);
    }
    return null;
  };
}
