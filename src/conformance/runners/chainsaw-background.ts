/**
 * Kyverno's background controller, simulated for chainsaw replays: `mutate.targets` rules (mutate existing)
 * run after an admitted write or a delete of a trigger, and, for rules with `mutateExistingOnPolicyUpdate`,
 * once per stored object when their policy is installed (pkg/policy: the policy controller enqueues an
 * UpdateRequest per existing trigger). The rule evaluation itself is the dialect's `mutateExisting`; this module
 * only decides which triggers and targets it sees and writes the mutated targets back to the store.
 * MutatingPolicies with `evaluation.mutateExisting` have their own UpdateRequests (`MpolBackground`).
 *
 * Not modelled: a target write goes straight to the store (in a cluster it is an admission request of the
 * background controller's service account, which other policies may mutate or trigger on), and Kyverno's
 * resourceFilters (kube-system and the other filtered namespaces and kinds are targets like any other here).
 */
import { hasMutateExistingRules, mutateExisting } from '../../dialects/kyverno/mutate-existing.js';
import { recognizesKyverno } from '../../dialects/kyverno/parse.js';
import { firstError } from '../policies.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import type { Runtime } from '../../runtime/runtime.js';
import { policyKey, readPolicies, type ExistingPolicy } from '../../dialects/kyverno-mpol/mutate-existing.js';
import {
  admissionUpdateRequests,
  policyEventUpdateRequests,
  processUpdateRequest,
  type MpolCluster,
  type UpdateRequest,
} from '../../dialects/kyverno-mpol/mutate-existing-cluster.js';

/** The object store the replay keeps, as this module needs it. */
export interface BackgroundStore {
  /** Every stored object, keyed by the replay's object key. */
  readonly objects: Map<string, JsonObject>;
  keyOf(o: JsonObject): string;
  /** The request fields describing who wrote and in which namespace (userInfo, namespaceObject). */
  requestFor(object: JsonObject): Omit<AdmissionRequest, 'object' | 'oldObject' | 'operation'>;
  /** The runtime the replay's policies run with (default: a default runtime). */
  readonly runtime?: Runtime;
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
      const out = mutateExisting([single], trigger, [...store.objects.values()], undefined, store.runtime);
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

// ---- MutatingPolicy mutate existing (kyverno-mpol/mutate-existing.ts)

/**
 * Kyverno's background controller for MutatingPolicies with `evaluation.mutateExisting`, over the replayed
 * store: UpdateRequests from admitted writes and deletes (the policy's webhook saw the request) and from policy
 * events, each processed at once, its target writes stored in order.
 */
export class MpolBackground {
  private units: ExistingPolicy[] = [];

  constructor(private readonly store: BackgroundStore & { provider: KyvernoDataProvider }) {}

  /** The policy set changed: `docs` are all MutatingPolicy documents now installed (and their exceptions). */
  reload(docs: readonly SourceDoc[]): void {
    this.units = readPolicies(docs).existing;
  }

  /** Whether any installed MutatingPolicy mutates existing resources. */
  get active(): boolean {
    return this.units.length > 0;
  }

  /** A write or delete went through admission (the request the policy's webhook received). */
  admitted(request: AdmissionRequest): string[] {
    return this.process(admissionUpdateRequests(this.units, request, this.store.provider, this.store.runtime));
  }

  /**
   * Policy events for `docs` just installed or updated (pkg/policy: add and update events of a
   * mutate-existing policy). The background reconcile repeats them every reconcile period (1h by default),
   * which a replay never reaches.
   */
  installed(docs: readonly SourceDoc[]): string[] {
    const keys = new Set(readPolicies(docs).existing.map((u) => policyKey(u.policy)));
    return this.process(this.units.filter((u) => keys.has(policyKey(u.policy))).flatMap((u) => policyEventUpdateRequests(u, this.cluster())));
  }

  private cluster(): MpolCluster {
    const objects = this.store.objects;
    return {
      objects: () => [...objects.values()],
      namespace: (name) => objects.get(this.store.keyOf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
      provider: this.store.provider,
      ...(this.store.runtime ? { runtime: this.store.runtime } : {}),
    };
  }

  private process(urs: readonly UpdateRequest[]): string[] {
    const errors: string[] = [];
    for (const ur of urs) {
      const out = processUpdateRequest(ur, this.cluster());
      errors.push(...out.errors.map((e) => `${policyKey(ur.unit.policy)}: ${e}`));
      for (const e of out.evaluated) for (const r of e.evaluation.responses) if (r.status === 'error') errors.push(`${r.policy}: ${r.reason ?? 'error'}`);
      for (const w of out.writes) {
        const key = this.store.keyOf(w.target);
        // A target deleted since it was listed is skipped (processor.go: NotFound does not fail the request).
        if (this.store.objects.has(key)) this.store.objects.set(key, w.object);
      }
    }
    return errors;
  }
}
