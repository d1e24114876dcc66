/**
 * Kyverno PolicyExceptions (kyverno.io/v2, v2beta1) as the engine applies them to mutate rules
 * (pkg/engine/engine.go invokeRuleHandler, handlers/mutation/mutate_resource.go, utils/exceptions.go
 * MatchesException): after the rule matched, its context loaded and its preconditions held, an exception
 * whose `exceptions[]` names the policy (`name`, or `namespace/name` for a Policy) and the rule (wildcards
 * allowed) and whose `match` (any/all resource filters) and `conditions` (any/all) hold for the request makes
 * the rule `skip` ("rule is skipped due to policy exceptions<ns/name>").
 *
 * An exception's match and conditions are read by the Kyverno dialect itself, as the match and preconditions
 * of a one-rule policy that would write a marker: the rule writes it exactly when the exception applies.
 * Conditions are evaluated on the request (the rule's own context entries are not visible to them).
 * CEL PolicyExceptions (policies.kyverno.io) are read by the MutatingPolicy dialect, not here.
 */
import { hasErrors, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import { apply } from '../../../interpreter/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { Guard, Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import { toYaml } from '../../../io/yaml-dump.js';
import { loadYamlText } from '../../../io/yaml-load.js';
import { wildcardMatch } from '../../../k8s/glob.js';
import type { AdmissionRequest } from '../../../k8s/request.js';
import { parseKyverno } from '../parse.js';
import type { Runtime } from '../../../runtime/runtime.js';

const API_GROUP = 'kyverno.io/';
const MARKER = 'transmute.dev/policy-exception';

export interface KyvernoException {
  /** `namespace/name` or `name`, as the engine names it in its message. */
  key: string;
  refs: { policyName: string; ruleNames: string[] }[];
  /** The exception's match and conditions as a one-rule IR policy. */
  probe: Policy;
}

/** True for a kyverno.io PolicyException (not the CEL one of policies.kyverno.io). */
export function isKyvernoException(doc: SourceDoc): boolean {
  const v = doc.value;
  return isJsonObject(v) && v.kind === 'PolicyException' && typeof v.apiVersion === 'string' && v.apiVersion.startsWith(API_GROUP);
}

/** Reads the suite's kyverno.io PolicyExceptions; a problem is reported per exception, which is then left out. */
export function readExceptions(docs: readonly SourceDoc[], file: string): { exceptions: KyvernoException[]; diagnostics: Diagnostic[] } {
  const exceptions: KyvernoException[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const doc of docs) {
    if (!isKyvernoException(doc)) continue;
    const v = doc.value as JsonObject;
    const metadata = isJsonObject(v.metadata) ? v.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    const spec = isJsonObject(v.spec) ? v.spec : {};
    const refs = (Array.isArray(spec.exceptions) ? spec.exceptions : []).filter(isJsonObject).map((e) => ({
      policyName: typeof e.policyName === 'string' ? e.policyName : '',
      ruleNames: (Array.isArray(e.ruleNames) ? e.ruleNames : []).filter((r): r is string => typeof r === 'string'),
    }));
    const rule: JsonObject = { name: 'exception', match: spec.match ?? {}, mutate: { patchStrategicMerge: { metadata: { annotations: { [MARKER]: 'applies' } } } } };
    if (spec.conditions !== undefined && spec.conditions !== null) rule.preconditions = spec.conditions as JsonValue;
    const policy = { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: `exception-${name}` }, spec: { rules: [rule] } };
    const loaded = loadYamlText(`${file} (PolicyException ${name})`, toYaml(policy));
    if (!loaded.ok) {
      diagnostics.push(...loaded.diagnostics);
      continue;
    }
    const parsed = parseKyverno(loaded.value);
    if (hasErrors(parsed.diagnostics) || parsed.policies.length !== 1) {
      diagnostics.push(...parsed.diagnostics);
      continue;
    }
    exceptions.push({ key: namespace ? `${namespace}/${name}` : name, refs, probe: parsed.policies[0]! });
  }
  return { exceptions, diagnostics };
}

/** The exceptions that apply to the request, by key. */
export function applyingExceptions(exceptions: readonly KyvernoException[], request: AdmissionRequest, runtime?: Runtime): KyvernoException[] {
  if (exceptions.length === 0) return [];
  return exceptions.filter((e) => {
    const r = apply([e.probe], request, { patch: false, ...(runtime ? { runtime } : {}) });
    return r.trace.some((t) => t.node === 'rule' && t.outcome === 'applied');
  });
}

/** Exceptions among `applying` that name this policy and rule (Exception.Contains). */
export function exemptingKeys(applying: readonly KyvernoException[], policyKey: string, rule: string): string[] {
  return applying.filter((e) => e.refs.some((r) => r.policyName === policyKey && r.ruleNames.some((n) => wildcardMatch(n, rule)))).map((e) => e.key);
}

/**
 * The policies with every exempted rule made to skip: a false guard after its preconditions (the caller words
 * the skip as the engine does, from exemptingKeys). Policies without an exempted rule are returned as they are.
 */
export function withExemptions(policies: readonly Policy[], applying: readonly KyvernoException[], policyKeyOf: (p: Policy) => string | undefined): Policy[] {
  if (applying.length === 0) return [...policies];
  return policies.map((p) => {
    const key = policyKeyOf(p);
    if (key === undefined) return p;
    let changed = false;
    const rules = p.rules.map((rule) => {
      const keys = exemptingKeys(applying, key, rule.name);
      if (keys.length === 0) return rule;
      changed = true;
      const guard: Guard = { kind: 'const', value: false, origin: rule.origin };
      return { ...rule, guards: [...rule.guards, guard] };
    });
    return changed ? { ...p, rules } : p;
  });
}
