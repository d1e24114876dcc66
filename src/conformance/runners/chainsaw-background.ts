/**
 * Kyverno's background controller, simulated for chainsaw replays: `mutate.targets` rules (mutate existing)
 * run after an admitted write or a delete of a trigger, and, for rules with `mutateExistingOnPolicyUpdate`,
 * once per stored object when their policy is installed (pkg/policy: the policy controller enqueues an
 * UpdateRequest per existing trigger). The rule evaluation itself is the dialect's `mutateExisting`; this module
 * only decides which triggers and targets it sees and writes the mutated targets back to the store.
 */
import { hasMutateExistingRules, mutateExisting } from '../../dialects/kyverno/mutate-existing.js';
import { recognizesKyverno } from '../../dialects/kyverno/parse.js';
import { firstError } from '../policies.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';

/** The object store the replay keeps, as this module needs it. */
export interface BackgroundStore {
  /** Every stored object, keyed by the replay's object key. */
  readonly objects: Map<string, JsonObject>;
  keyOf(o: JsonObject): string;
  /** The request fields describing who wrote and in which namespace (userInfo, namespaceObject). */
  requestFor(object: JsonObject): Omit<AdmissionRequest, 'object' | 'oldObject' | 'operation'>;
}

/** Policy documents with at least one mutate-existing rule (the only ones the background controller runs). */
export function backgroundPolicies(docs: readonly SourceDoc[]): SourceDoc[] {
  return docs.filter(hasMutateExistingRules);
}

/**
 * Runs the mutate-existing rules of `docs` for one trigger request over the stored objects and stores the
 * mutated targets. Returns the errors reported (rule failures are what Kyverno records on the UpdateRequest;
 * the replay keeps them as notes).
 */
export function runBackground(docs: readonly SourceDoc[], trigger: AdmissionRequest, store: BackgroundStore): string[] {
  const errors: string[] = [];
  // One rule at a time, so a later rule sees the targets an earlier one wrote, as consecutive UpdateRequests
  // processed by the background controller would (mutateExisting itself reads the targets once per call).
  for (const doc of docs) {
    for (const single of oneRuleEach(doc)) {
      const out = mutateExisting([single], trigger, [...store.objects.values()]);
      const bad = out.diagnostics.filter((d) => d.severity === 'error');
      if (bad.length > 0) errors.push(firstError(bad));
      for (const r of out.results) {
        if (!r.result.allowed || !isJsonObject(r.result.object)) {
          errors.push(firstError(r.result.diagnostics));
          continue;
        }
        if (!jsonEqual(r.result.object, r.target)) store.objects.set(store.keyOf(r.target), r.result.object);
      }
    }
  }
  return errors;
}

/** The document once per mutate-existing rule, every other rule's targets emptied (indices, so spans, kept). */
function oneRuleEach(doc: SourceDoc): SourceDoc[] {
  const value = doc.value;
  if (!recognizesKyverno(doc) || !isJsonObject(value)) return [];
  const spec = isJsonObject(value.spec) ? value.spec : {};
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  const out: SourceDoc[] = [];
  rules.forEach((rule, i) => {
    if (!hasTargets(rule)) return;
    if (rules.length === 1) {
      out.push(doc);
      return;
    }
    const only = rules.map((raw, j): JsonValue => (j === i || !hasTargets(raw) ? raw : withoutTargets(raw as JsonObject)));
    out.push({ ...doc, value: { ...value, spec: { ...spec, rules: only } } });
  });
  return out;
}

function hasTargets(rule: JsonValue | undefined): boolean {
  return isJsonObject(rule) && isJsonObject(rule.mutate) && Array.isArray(rule.mutate.targets) && rule.mutate.targets.length > 0;
}

function withoutTargets(rule: JsonObject): JsonObject {
  return { ...rule, mutate: { ...(rule.mutate as JsonObject), targets: [] } };
}

/**
 * Installing (or updating) a policy: each stored object is a trigger for the rules that ask for
 * `mutateExistingOnPolicyUpdate`. The rule-level field overrides the deprecated spec-level one
 * (api/kyverno/v1 `Mutation.MutateExistingOnPolicyUpdate` is a *bool consulted before the spec's).
 */
export function runOnPolicyUpdate(docs: readonly SourceDoc[], store: BackgroundStore): string[] {
  const onUpdate = docs.map(onPolicyUpdateOnly).filter((d): d is SourceDoc => d !== undefined);
  if (onUpdate.length === 0) return [];
  const errors: string[] = [];
  for (const trigger of [...store.objects.values()]) {
    // The policy controller has no admission request: the trigger is presented as a create of what is stored.
    errors.push(...runBackground(onUpdate, { ...store.requestFor(trigger), object: trigger, oldObject: null, operation: 'CREATE' }, store));
  }
  return errors;
}

/** The document with the targets of every rule not run on policy update emptied (indices, so spans, kept). */
function onPolicyUpdateOnly(doc: SourceDoc): SourceDoc | undefined {
  if (!recognizesKyverno(doc) || !isJsonObject(doc.value)) return undefined;
  const spec = isJsonObject(doc.value.spec) ? doc.value.spec : {};
  const specLevel = spec.mutateExistingOnPolicyUpdate === true;
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  let any = false;
  const kept = rules.map((raw): JsonValue => {
    if (!isJsonObject(raw) || !isJsonObject(raw.mutate)) return raw;
    const own = raw.mutate.mutateExistingOnPolicyUpdate;
    const enabled = typeof own === 'boolean' ? own : specLevel;
    if (enabled && hasTargets(raw)) {
      any = true;
      return raw;
    }
    return withoutTargets(raw);
  });
  if (!any) return undefined;
  return { ...doc, value: { ...doc.value, spec: { ...spec, rules: kept } } };
}
