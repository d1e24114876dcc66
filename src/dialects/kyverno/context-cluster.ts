/**
 * Context entries that read the cluster, where the runtime's data provider answers API server GETs (a replayed
 * cluster: conformance/runners/chainsaw.ts; `KyvernoDataProvider.apiGet`). Elsewhere they keep needing values
 * supplied offline (context.ts).
 * - `apiCall` with a `urlPath` GET (pkg/engine/apicall/apiCall.go Fetch, Store): the path substituted, the
 *   response stored whole or narrowed by the substituted `jmesPath` (a null result is stored too); a failed
 *   call stores `default` as it is, when given, else fails the entry;
 * - `configMap` (loaders/configmap.go): name and namespace substituted (no namespace: the policy's, or
 *   `default`), the ConfigMap's `data` and `metadata`, or a failure when it is not there.
 * A namespaced Policy's entries, a `service` call and another method stay with the values supplied offline.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { substituteTree, type QueryOutcome, type Substituted, type SubstitutionEnv } from './variables.js';

export type ApiGet = (urlPath: string) => { found: JsonValue } | 'missing' | undefined;

/** The entry's value from the cluster, or undefined when `apiGet` does not serve it (the caller keeps `unresolved`). */
export function clusterEntry(entry: JsonObject, env: SubstitutionEnv, queryOn: (expression: string, data: unknown) => QueryOutcome, apiGet: ApiGet): Substituted<JsonValue> | undefined {
  if (typeof entry.policyNamespace === 'string' && entry.policyNamespace !== '') return undefined;
  const name = typeof entry.name === 'string' ? entry.name : '';
  if (isJsonObject(entry.apiCall)) return apiCallEntry(name, entry.apiCall, env, queryOn, apiGet);
  if (isJsonObject(entry.configMap)) return configMapEntry(name, entry.configMap, env, apiGet);
  return undefined;
}

function apiCallEntry(name: string, call: JsonObject, env: SubstitutionEnv, queryOn: (expression: string, data: unknown) => QueryOutcome, apiGet: ApiGet): Substituted<JsonValue> | undefined {
  if (typeof call.urlPath !== 'string' || call.service !== undefined || (call.method !== undefined && call.method !== 'GET')) return undefined;
  const url = substituteTree(call.urlPath, env);
  if (!url.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} ${call.urlPath}: ${url.message}` };
  const got = apiGet(String(url.value));
  if (got === undefined) return undefined;
  if (got === 'missing') {
    if (call.default !== undefined && call.default !== null) return { ok: true, value: call.default };
    return { ok: false, message: `failed to fetch data for APICall: failed to GET resource with raw url: ${String(url.value)}: the server could not find the requested resource` };
  }
  if (typeof call.jmesPath !== 'string' || call.jmesPath === '') return { ok: true, value: got.found };
  const path = substituteTree(call.jmesPath, env);
  if (!path.ok) return { ok: false, message: `failed to substitute variables in context entry ${name} JMESPath ${call.jmesPath}: ${path.message}` };
  const r = queryOn(String(path.value), got.found);
  if (!r.ok) return { ok: false, message: `failed to apply JMESPath ${String(path.value)} for context entry ${name}: ${r.message}` };
  return { ok: true, value: (r.value ?? null) as JsonValue };
}

function configMapEntry(name: string, configMap: JsonObject, env: SubstitutionEnv, apiGet: ApiGet): Substituted<JsonValue> | undefined {
  const cmName = substituteTree(configMap.name ?? '', env);
  if (!cmName.ok) return { ok: false, message: `failed to substitute variables in context ${name} configMap.name ${String(configMap.name)}: ${cmName.message}` };
  const cmNamespace = substituteTree(configMap.namespace ?? '', env);
  if (!cmNamespace.ok) return { ok: false, message: `failed to substitute variables in context ${name} configMap.namespace ${String(configMap.namespace)}: ${cmNamespace.message}` };
  const namespace = String(cmNamespace.value) === '' ? 'default' : String(cmNamespace.value);
  const got = apiGet(`/api/v1/namespaces/${namespace}/configmaps/${String(cmName.value)}`);
  if (got === undefined) return undefined;
  if (got === 'missing') {
    return { ok: false, message: `failed to retrieve config map for context entry ${name}: failed to get configmap ${namespace}/${String(cmName.value)} : configmap "${String(cmName.value)}" not found` };
  }
  const cm = isJsonObject(got.found) ? got.found : {};
  return { ok: true, value: { data: cm.data ?? null, metadata: cm.metadata ?? {} } };
}
