/**
 * Mocked context data of a cli.kyverno.io Test for Kyverno policies' context entries. The Kyverno dialect
 * reads offline context data from the values' `policies[].rules[].values`, so each entry a mock answers gets
 * its value there, unless the values already give it:
 * - `apiCall`: `apiCallResponses` by `urlPath` (or `service.url`) and method, the response body narrowed by
 *   the entry's `jmesPath`;
 * - `globalReference`: the test's `globalContextEntries` (store/contextloader.go mockGCtxStore): the entry
 *   named before the first dot, its projection after it (loaders/globalcontext.go), narrowed by `jmesPath`;
 * - `configMap`, in a test with `clusterResources` (the CLI then resolves ConfigMaps from its fake cluster):
 *   the ConfigMap's `data` and `metadata` (loaders/configmap.go; the namespace defaults to the policy's, or
 *   `default` for a ClusterPolicy).
 * Entries of the rule and of its foreach declarations are filled; one whose name or path holds a `{{ }}`
 * variable is left to the engine.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { compileJmesCached } from '../../../jmespath/compile.js';
import type { TestSuite } from './model.js';
import { entryProjection, type GlobalContextEntries } from './global-context.js';

const obj = (v: JsonValue | undefined): JsonObject | undefined => (isJsonObject(v) ? v : undefined);
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** The suite's values with the mocked context data filled in (the values themselves when there are none). */
export function mockedContextValues(suite: TestSuite, cluster: readonly JsonObject[]): JsonObject | undefined {
  if (suite.apiCallResponses.length === 0 && suite.globalContext.size === 0 && !suite.hasClusterResources) return suite.values;
  const values: JsonObject = { ...(suite.values ?? {}) };
  const policies = list(values.policies).map((p) => (isJsonObject(p) ? { ...p } : p));
  values.policies = policies;
  for (const doc of suite.policies) {
    const policy = obj(doc.value);
    const name = obj(policy?.metadata)?.name;
    if (typeof name !== 'string') continue;
    const policyNamespace = policy?.kind === 'Policy' ? obj(policy.metadata)?.namespace : undefined;
    for (const rule of list(obj(policy?.spec)?.rules).map(obj)) {
      if (!rule || typeof rule.name !== 'string') continue;
      for (const entry of contextEntries(rule)) {
        if (typeof entry.name !== 'string') continue;
        const call = obj(entry.apiCall);
        const reference = obj(entry.globalReference);
        const configMap = obj(entry.configMap);
        const value = call
          ? mockedBody(suite.apiCallResponses, call)
          : reference
            ? globalReferenceValue(suite.globalContext, reference)
            : configMap && suite.hasClusterResources
              ? configMapValue(cluster, configMap, typeof policyNamespace === 'string' ? policyNamespace : '')
              : undefined;
        if (value === undefined) continue;
        setRuleValue(policies, name, rule.name, entry.name, value);
      }
    }
  }
  return values;
}

/** The rule's context entries, then those of its foreach declarations (nested ones included), in order. */
function contextEntries(rule: JsonObject): JsonObject[] {
  const out = list(rule.context).map(obj).filter((e): e is JsonObject => e !== undefined);
  const walk = (foreach: JsonValue | undefined): void => {
    for (const f of list(foreach).map(obj)) {
      if (!f) continue;
      out.push(...list(f.context).map(obj).filter((e): e is JsonObject => e !== undefined));
      walk(f.foreach);
    }
  };
  walk(obj(rule.mutate)?.foreach);
  return out;
}

/** The configMap entry's value from the fake cluster, or undefined when the engine must decide (variables, not found). */
function configMapValue(cluster: readonly JsonObject[], entry: JsonObject, policyNamespace: string): JsonValue | undefined {
  const name = entry.name;
  const given = typeof entry.namespace === 'string' ? entry.namespace : '';
  if (typeof name !== 'string' || name.includes('{{') || given.includes('{{')) return undefined;
  const namespace = given !== '' ? given : policyNamespace !== '' ? policyNamespace : 'default';
  // A namespaced Policy reads ConfigMaps of its own namespace only.
  if (policyNamespace !== '' && namespace !== policyNamespace) return undefined;
  const cm = cluster.find((o) => o.apiVersion === 'v1' && o.kind === 'ConfigMap' && obj(o.metadata)?.name === name && (obj(o.metadata)?.namespace ?? '') === namespace);
  if (!cm) return undefined;
  // The typed ConfigMap's JSON: ObjectMeta always writes creationTimestamp (null when unset).
  const metadata = { ...(obj(cm.metadata) ?? {}) };
  if (!hasOwn(metadata, 'creationTimestamp')) metadata.creationTimestamp = null;
  return { data: cm.data ?? null, metadata };
}

/** The globalReference's value from the test's entries, or undefined when no entry answers it. */
function globalReferenceValue(entries: GlobalContextEntries, reference: JsonObject): JsonValue | undefined {
  const name = reference.name;
  const path = typeof reference.jmesPath === 'string' ? reference.jmesPath : '';
  if (typeof name !== 'string' || name.includes('{{') || path.includes('{{')) return undefined;
  const [entry = '', projection = ''] = name.split('.');
  if (!entries.has(entry)) return undefined;
  const value = entryProjection(entries.get(entry)!, projection);
  if (value === undefined || path === '') return value;
  const program = compileJmesCached(path);
  if (!program.ok) return undefined;
  const result = program.value.search(value);
  return result.ok ? ((result.value ?? null) as JsonValue) : undefined;
}

function mockedBody(mocks: readonly JsonObject[], call: JsonObject): JsonValue | undefined {
  const method = typeof call.method === 'string' ? call.method : 'GET';
  const url = typeof call.urlPath === 'string' ? call.urlPath : obj(call.service)?.url;
  const mock = mocks.find((m) => (m.urlPath === url || m.url === url) && (typeof m.method === 'string' ? m.method : 'GET') === method);
  if (!mock) return undefined;
  const body = obj(mock.response)?.body ?? null;
  if (typeof call.jmesPath !== 'string' || call.jmesPath === '') return body;
  const program = compileJmesCached(call.jmesPath);
  if (!program.ok) return undefined;
  const result = program.value.search(body);
  return result.ok ? ((result.value ?? null) as JsonValue) : undefined;
}

function setRuleValue(policies: JsonValue[], policy: string, rule: string, name: string, value: JsonValue): void {
  let p = policies.find((x) => isJsonObject(x) && x.name === policy) as JsonObject | undefined;
  if (!p) {
    p = { name: policy };
    policies.push(p);
  }
  const rules = list(p.rules).map((r) => (isJsonObject(r) ? { ...r } : r));
  p.rules = rules;
  let r = rules.find((x) => isJsonObject(x) && x.name === rule) as JsonObject | undefined;
  if (!r) {
    r = { name: rule };
    rules.push(r);
  }
  const ruleValues: JsonObject = { ...(obj(r.values) ?? {}) };
  if (!hasOwn(ruleValues, name)) ruleValues[name] = value;
  r.values = ruleValues;
}
