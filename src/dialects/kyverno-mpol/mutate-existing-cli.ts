/**
 * Mutate existing for MutatingPolicy as the Kyverno CLI runs it (`kyverno test`, `kyverno apply
 * --target-resource`; cmd/cli/kubectl-kyverno/processor/policy_processor.go and commands/test): per trigger
 * resource, the trigger is first admitted by every MutatingPolicy (engine Handle with no predicate: admission
 * settings and targets are not consulted), then every supplied target goes through every mutate-existing policy
 * (and autogen variant) that `targetMatchPredicate` admits: the expression's targets (evaluated with only
 * `object`, the trigger as the CLI left it, and `variables` bound), or a match of the target against the target
 * (or trigger) constraints with every operation and no namespace object. The trigger is never matched. Each
 * trigger's run starts from the supplied targets. See mutate-existing.ts for the shared part.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { Runtime } from '../../runtime/runtime.js';
import { evaluateMpolExpression } from './cel-engine.js';
import { lowerPolicy, policyId, type Variant } from './lower.js';
import {
  admissionRequestValue,
  decided,
  decisionIr,
  evaluateTarget,
  matchOf,
  metadata,
  objectsProvider,
  policyKey,
  readPolicies,
  runIr,
  selectorObjects,
  str,
  variableExprs,
  type ExistingPolicy,
  type TargetEvaluation,
  type TargetStatus,
} from './mutate-existing.js';
import { DIALECT } from './model.js';

/** The minimal namespace the CLI matches targets against (predicates/namespace: only its name label). */
function minimalNamespace(name: string): JsonObject | null {
  return name === '' ? null : { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}

export interface CliTargetResult {
  /** The target as supplied. */
  target: JsonObject;
  evaluation: TargetEvaluation;
}

export interface CliOutcome {
  /** Targets some policy admitted (targetMatchPredicate), in supplied order. */
  results: CliTargetResult[];
  /** A failure of the whole run (the CLI stops: "failed to discover CEL targets"). */
  error?: string;
  diagnostics: Diagnostic[];
}

function targetKey(o: JsonObject): string {
  const md = metadata(o);
  return str(md.namespace) !== '' ? `${str(md.namespace)}/${str(md.name)}` : str(md.name);
}

/**
 * `kyverno test` / `kyverno apply` for one trigger resource (processor/policy_processor.go): the mutate-existing
 * policies of `docs` over `targets`. `trigger` is the trigger's request as the CLI builds it.
 */
export function cliMutateExisting(docs: readonly SourceDoc[], trigger: AdmissionRequest, targets: readonly JsonObject[], provider?: KyvernoDataProvider, runtime?: Runtime): CliOutcome {
  const read = readPolicies(docs);
  const out: CliOutcome = { results: [], diagnostics: read.diagnostics };
  if (read.existing.length === 0) return out;
  // The CLI first runs every MutatingPolicy on the trigger (engine Handle, no predicate: admission settings and
  // targets are not consulted); the CEL target selectors read the trigger as that left it.
  let resource: JsonValue | null = trigger.object;
  const admitted = read.all.flatMap((u) => u.variants.map((v) => lowerPolicy(u.policy, v, u.exceptions)));
  if (admitted.length > 0) {
    const all = runIr(admitted, trigger, provider, runtime);
    if (all.allowed) resource = all.object;
  }
  const request = admissionRequestValue(trigger);
  const celTargets = new Map<string, Set<string>>();
  for (const unit of read.existing) {
    const expression = unit.policy.targetMatchConstraints?.expression;
    if (!expression) continue;
    const v = evaluateMpolExpression(
      { text: expression.text, origin: { ...expression.doc.spanOf(expression.path), dialect: DIALECT } },
      variableExprs(unit.policy),
      { object: resource },
      provider,
    );
    if (!v.ok) return { ...out, error: `failed to discover CEL targets: failed to evaluate CEL expression for policy ${unit.policy.name}: ${v.message}` };
    const objects = selectorObjects(v.value);
    if (typeof objects === 'string') return { ...out, error: `failed to discover CEL targets: ${objects} for policy ${unit.policy.name}` };
    celTargets.set(unit.policy.name, new Set(objects.map(targetKey)));
  }
  for (const target of targets) {
    const admittedUnits: { unit: ExistingPolicy; variants: Variant[] }[] = [];
    for (const unit of read.existing) {
      const variants = unit.variants.filter((v) => cliTargetPredicate(unit, v, target, celTargets, provider, runtime));
      if (variants.length > 0) admittedUnits.push({ unit, variants });
    }
    if (admittedUnits.length === 0) continue;
    out.results.push({ target, evaluation: evaluateTarget(admittedUnits, target, request, provider, runtime) });
  }
  return out;
}

/** processor.go targetMatchPredicate, for the policy or one of its autogen variants. */
function cliTargetPredicate(unit: ExistingPolicy, variant: Variant, target: JsonObject, celTargets: ReadonlyMap<string, ReadonlySet<string>>, provider: KyvernoDataProvider | undefined, runtime: Runtime | undefined): boolean {
  const tmc = unit.policy.targetMatchConstraints;
  if (tmc?.expression) return celTargets.get(unit.policy.name)?.has(targetKey(target)) ?? false;
  const constraints = tmc && tmc.resourceRules.length > 0 ? tmc : variant.matchConstraints;
  const ir = decisionIr(unit, matchOf(constraints, undefined, ['*']), [], undefined);
  const namespace = str(metadata(target).namespace);
  return decided(ir, { object: target, oldObject: null, operation: 'UPDATE', namespaceObject: minimalNamespace(namespace) }, provider, runtime);
}

/** One engine response of a target, as `kyverno test` checks it (commands/test/output.go). */
export interface CliResponse {
  /** The trigger whose run produced it. */
  trigger: JsonObject;
  policy: string;
  status: TargetStatus;
  reason?: string;
  /** The patched target a pass response carries: the target after every policy of that run. */
  patched?: JsonObject;
}

/** The identity `kyverno test` keys targets by (apiVersion, kind, namespace, name). */
export function targetIdentity(o: JsonObject): string {
  const md = metadata(o);
  return `${str(o.apiVersion)},${str(o.kind)},${str(md.namespace)},${str(md.name)}`;
}

/**
 * commands/test: every trigger resource runs the mutate-existing policies over the supplied targets (each run
 * starts from the supplied objects). The responses of each target, by `targetIdentity`; a string when the CLI
 * stops with an error.
 */
export function cliTestTargets(
  docs: readonly SourceDoc[],
  triggers: readonly { object: JsonObject; request: AdmissionRequest }[],
  targets: readonly JsonObject[],
  clusterObjects: readonly JsonObject[] = [],
  runtime?: Runtime,
): Map<string, CliResponse[]> | string {
  const provider = objectsProvider([...triggers.map((t) => t.object), ...targets, ...clusterObjects]);
  const out = new Map<string, CliResponse[]>();
  for (const t of targets) out.set(targetIdentity(t), []);
  for (const trigger of triggers) {
    const r = cliMutateExisting(docs, trigger.request, targets, provider, runtime);
    const invalid = r.diagnostics.find((d) => d.severity === 'error');
    if (invalid) return invalid.message;
    if (r.error) return r.error;
    for (const res of r.results) {
      const list = out.get(targetIdentity(res.target))!;
      for (const resp of res.evaluation.responses) {
        list.push({
          trigger: trigger.object,
          policy: resp.policy,
          status: resp.status,
          ...(resp.reason ? { reason: resp.reason } : {}),
          ...(resp.status === 'pass' ? { patched: res.evaluation.object } : {}),
        });
      }
    }
  }
  return out;
}

export interface CliTriggerOutcome {
  /** The trigger after every MutatingPolicy (what each pass response of the trigger carries). */
  object: JsonValue | null;
  /** One response per policy the trigger matched (a policy it does not match answers nothing). */
  responses: { policy: string; status: TargetStatus; reason?: string }[];
}

/**
 * The CLI's admission of a trigger resource (processor: engine Handle with no predicate): every MutatingPolicy
 * and autogen variant of `docs`, whatever its admission setting or targets, in order.
 */
export function cliTrigger(docs: readonly SourceDoc[], trigger: AdmissionRequest, provider?: KyvernoDataProvider, runtime?: Runtime): CliTriggerOutcome | string {
  const read = readPolicies(docs);
  const invalid = read.diagnostics.find((d) => d.severity === 'error');
  if (invalid) return invalid.message;
  const irs = read.all.flatMap((u) => u.variants.map((v) => lowerPolicy(u.policy, v, u.exceptions)));
  const keyOf = new Map(read.all.map((u) => [policyId(u.policy), policyKey(u.policy)]));
  const r = runIr(irs, trigger, provider, runtime);
  const responses = new Map<string, CliTriggerOutcome['responses'][number]>();
  for (const t of r.trace) {
    const policy = keyOf.get(t.policy) ?? t.policy;
    if (t.outcome === 'not-matched') continue;
    if (t.outcome === 'error') responses.set(policy, { policy, status: 'error', ...(t.reason ? { reason: t.reason } : {}) });
    else if (t.node === 'policy' && t.outcome === 'skipped') responses.set(policy, { policy, status: 'skip', ...(t.reason ? { reason: t.reason } : {}) });
    else if (!responses.has(policy)) responses.set(policy, { policy, status: 'pass' });
  }
  return { object: r.allowed ? r.object : trigger.object, responses: [...responses.values()] };
}
