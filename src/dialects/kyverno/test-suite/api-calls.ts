/**
 * `apiCallResponses` (cli.kyverno.io Test): mocked answers for `apiCall` context entries. The Kyverno dialect
 * reads offline context data from the values' `policies[].rules[].values`, so each entry whose `urlPath`
 * (or `service.url`) and method have a mocked response gets the response body there (narrowed by the
 * entry's `jmesPath`), unless the values already give it.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { compileJmesCached } from '../../../jmespath/compile.js';
import type { TestSuite } from './model.js';

const obj = (v: JsonValue | undefined): JsonObject | undefined => (isJsonObject(v) ? v : undefined);
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** The suite's values with the mocked API responses filled in (the values themselves when there are none). */
export function apiCallValues(suite: TestSuite): JsonObject | undefined {
  if (suite.apiCallResponses.length === 0) return suite.values;
  const values: JsonObject = { ...(suite.values ?? {}) };
  const policies = list(values.policies).map((p) => (isJsonObject(p) ? { ...p } : p));
  values.policies = policies;
  for (const doc of suite.policies) {
    const policy = obj(doc.value);
    const name = obj(policy?.metadata)?.name;
    if (typeof name !== 'string') continue;
    for (const rule of list(obj(policy?.spec)?.rules).map(obj)) {
      if (!rule || typeof rule.name !== 'string') continue;
      for (const entry of list(rule.context).map(obj)) {
        const call = obj(entry?.apiCall);
        if (!entry || !call || typeof entry.name !== 'string') continue;
        const body = mockedBody(suite.apiCallResponses, call);
        if (body === undefined) continue;
        setRuleValue(policies, name, rule.name, entry.name, body);
      }
    }
  }
  return values;
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
