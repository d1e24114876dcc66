/**
 * Mutate existing for Kyverno's MutatingPolicy (`spec.evaluation.mutateExisting.enabled`), run offline on
 * objects the caller supplies, as Kyverno runs it in two places that do not agree:
 *
 * Cluster (the background controller, pkg/background/mpol/processor.go; pkg/policy/mpol.go):
 * - an admitted request creates an UpdateRequest per mutate-existing policy whose admission is enabled and
 *   whose matchConstraints (with the request's namespace) and matchConditions hold (engine
 *   MatchesMutateExisting); a policy event (install, update, and every background reconcile) creates one bare
 *   UpdateRequest, or, when `targetMatchConstraints.expression` is set, one per existing trigger (an UPDATE the
 *   policy controller makes up: no user, no requestKind);
 * - targets: the objects `targetMatchConstraints` lists when it has resource rules and no expression, else the
 *   ones `matchConstraints` lists (group/version/resource through the REST mapper, so no wildcards;
 *   namespaceSelector and objectSelector as list filters; resourceNames; a namespaced policy's namespace);
 *   with an expression, what it returns for the trigger (re-read from the cluster), once its matchConditions
 *   hold for that trigger;
 * - each target is evaluated with no matcher (engine built with a nil matcher): PolicyExceptions, variables,
 *   `targetMatchConditions` (never matchConditions), then the mutations; `object` is the target, `oldObject` and
 *   `namespaceObject` are null, `request` is the trigger's admission request (the UpdateRequest's) or, for a
 *   bare UpdateRequest, an UPDATE of the target itself. The policy's Pod-controller autogen variants share its
 *   name and run on each target after it (their JSONPatch mutations unchanged, their ApplyConfigurations
 *   rewritten for templates);
 * - a target whose result differs from what was listed is written back.
 *
 * Kyverno CLI (`kyverno test` / `kyverno apply --target-resource`, cmd/cli/kubectl-kyverno/processor):
 * - per trigger resource, every supplied target goes through every mutate-existing policy (and autogen variant)
 *   that `targetMatchPredicate` admits: the expression's targets (evaluated with only `object`, the trigger
 *   after the CLI mutated it, and `variables`), or a match of the target against the target (or trigger)
 *   constraints with every operation and no namespace object. The trigger itself is not matched.
 * - `request` is the trigger's request; targets start from the supplied objects for every trigger.
 *
 * This module holds what both share: reading the policies, one target through them (the IR of a policy with
 * the trigger's request bound as the reserved variable MPOL_REQUEST_VAR), the requests, and the match
 * decisions; mutate-existing-cli.ts and mutate-existing-cluster.ts hold each way.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import { apply } from '../../interpreter/index.js';
import type { ApplyResult } from '../../interpreter/api.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { MatchClause, MatchSpec, ResourcePattern } from '../../ir/match.js';
import type { LetOp, Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { gvkOf, guessResource, lookupKind } from '../../k8s/resources.js';
import { createRuntime } from '../../runtime/create.js';
import { deriveRuntime, type Runtime } from '../../runtime/runtime.js';
import { clauses } from '../map/lower.js';
import type { MatchResources } from '../map/model.js';
import { autogenVariants } from './autogen.js';
import { MPOL_REQUEST_VAR, mpolRequestValue } from './cel-engine.js';
import { lowerPolicy, type Variant } from './lower.js';
import { DIALECT, type MpolException, type MpolPolicy } from './model.js';
import { readMpolDocuments } from './parse.js';

/** One mutate-existing policy with what evaluating it needs: its exceptions and autogen variants. */
export interface ExistingPolicy {
  policy: MpolPolicy;
  exceptions: MpolException[];
  /** The policy itself, then its autogen variants (same name: the engine runs them all on a target). */
  variants: Variant[];
}

/** Kyverno's policy key: `namespace/name` for a NamespacedMutatingPolicy, the name otherwise. */
export function policyKey(p: MpolPolicy): string {
  return p.namespace !== undefined ? `${p.namespace}/${p.name}` : p.name;
}

function exceptionsFor(policy: MpolPolicy, exceptions: readonly MpolException[]): MpolException[] {
  return exceptions.filter((e) => e.policyRefs.some((r) => r.name === policy.name && (r.kind === '' || r.kind === policy.kind)));
}

function unitOf(policy: MpolPolicy, exceptions: readonly MpolException[]): ExistingPolicy {
  const variants: Variant[] = [policy, ...autogenVariants(policy).map((v) => ({ ...v, suffix: `autogen ${v.config}` }))];
  return { policy, exceptions: exceptionsFor(policy, exceptions), variants };
}

/** Every MutatingPolicy among `docs` (with its exceptions), read and checked as Kyverno admits them. */
export function readPolicies(docs: readonly SourceDoc[]): { all: ExistingPolicy[]; existing: ExistingPolicy[]; diagnostics: Diagnostic[] } {
  const read = readMpolDocuments(docs);
  const all = read.policies.map((p) => unitOf(p, read.exceptions));
  return { all, existing: all.filter((u) => u.policy.mutateExisting), diagnostics: read.diagnostics };
}

// ---- one target through the policies (engine Evaluate with target = true)

export type TargetStatus = 'pass' | 'skip' | 'error';

export interface PolicyResponse {
  /** The policy key (`namespace/name` for a NamespacedMutatingPolicy). */
  policy: string;
  /** The autogen variant (`autogen defaults`, `autogen cronjobs`); absent for the policy itself. */
  variant?: string;
  /** pass: evaluated (the target may be unchanged); skip: a targetMatchCondition or an exception; error. */
  status: TargetStatus;
  reason?: string;
}

export interface TargetEvaluation {
  /** The target after every policy that passed (the supplied object when none changed it). */
  object: JsonObject;
  responses: PolicyResponse[];
}

export const MATCH_EVERYTHING: MatchSpec = { globs: 'exact' };

function requestLet(policy: MpolPolicy, request: JsonObject): LetOp {
  const origin = { ...policy.doc.spanOf([]), dialect: DIALECT };
  return { kind: 'let', name: MPOL_REQUEST_VAR, value: { kind: 'literal', json: request, origin }, origin };
}

/** The IR of one policy (or variant) evaluated on a target: no match, targetMatchConditions as guards. */
function targetIr(unit: ExistingPolicy, variant: Variant, request: JsonObject): Policy {
  const ir = lowerPolicy(unit.policy, { ...variant, matchConditions: unit.policy.targetMatchConditions }, unit.exceptions);
  return { ...ir, match: MATCH_EVERYTHING, lets: [requestLet(unit.policy, request), ...(ir.lets ?? [])], semantics: { ...ir.semantics, failurePolicy: 'fail' } };
}

/**
 * Runs IR built here with `runtime` (default: a fresh default runtime), the cluster data of `provider` when
 * one is given.
 */
export function runIr(ir: Policy | readonly Policy[], request: AdmissionRequest, provider: KyvernoDataProvider | undefined, runtime?: Runtime): ApplyResult {
  const base = runtime ?? createRuntime();
  return apply(Array.isArray(ir) ? ir : [ir as Policy], request, { patch: false, runtime: provider ? deriveRuntime(base, { kyvernoData: provider }) : base });
}

function firstErrorMessage(r: ApplyResult): string | undefined {
  const e = r.trace.find((t) => t.outcome === 'error');
  return e?.reason ?? r.diagnostics.find((d) => d.severity === 'error')?.message;
}

/**
 * engine.go Evaluate for one target: each admitted policy (and variant) in order, each seeing the target as the
 * previous one left it. `request` is the CEL `request` value (the trigger's admission request).
 */
export function evaluateTarget(
  units: readonly { unit: ExistingPolicy; variants: readonly Variant[] }[],
  target: JsonObject,
  request: JsonObject,
  provider?: KyvernoDataProvider,
  runtime?: Runtime,
): TargetEvaluation {
  let object = target;
  const responses: PolicyResponse[] = [];
  for (const { unit, variants } of units) {
    for (const variant of variants) {
      const ir = targetIr(unit, variant, request);
      const r = runIr(ir, { object, oldObject: null, operation: 'UPDATE', namespaceObject: null }, provider, runtime);
      const base = { policy: policyKey(unit.policy), ...(variant.suffix ? { variant: variant.suffix } : {}) };
      const error = !r.allowed ? firstErrorMessage(r) ?? 'evaluation failed' : undefined;
      if (error !== undefined) {
        responses.push({ ...base, status: 'error', reason: error });
        continue;
      }
      const skipped = r.trace.find((t) => t.node === 'policy' && t.outcome === 'skipped');
      if (skipped) {
        responses.push({ ...base, status: 'skip', ...(skipped.reason ? { reason: skipped.reason } : {}) });
        continue;
      }
      responses.push({ ...base, status: 'pass' });
      if (isJsonObject(r.object)) object = r.object;
    }
  }
  return { object, responses };
}

// ---- requests

export const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');
export const metadata = (o: JsonValue | null | undefined): JsonObject => (isJsonObject(o) && isJsonObject(o.metadata) ? o.metadata : {});

/** The resource a kind is served as: the built-in table, else apimachinery's guess (as chainsaw.ts lists). */
export function resourceFor(group: string, kind: string): string {
  return lookupKind(group, kind)?.resource ?? guessResource(kind);
}

/**
 * The admission request the background controller makes up (processor.go for a bare UpdateRequest;
 * policy/mpol.go newCELMutateURForTrigger): an UPDATE of the object with its kind, resource and subresource,
 * namespace and name, and nothing else. As the CEL `request` value (the request as JSON, plus `object` and
 * `oldObject`): no userInfo fields, no requestKind / requestResource, no dryRun.
 */
export function syntheticRequest(object: JsonObject, resource: { group: string; version: string; resource: string }, subresource = ''): JsonObject {
  const gvk = gvkOf(object);
  const md = metadata(object);
  const out: JsonObject = {
    kind: { group: gvk.group, version: gvk.version, kind: gvk.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
    operation: 'UPDATE',
    userInfo: {},
    object,
    oldObject: null,
  };
  if (subresource !== '') out.subResource = subresource;
  if (str(md.name) !== '') out.name = str(md.name);
  if (str(md.namespace) !== '') out.namespace = str(md.namespace);
  return out;
}

/** The CEL `request` value of a real admission request (or the CLI's). */
export function admissionRequestValue(request: AdmissionRequest): JsonObject {
  return mpolRequestValue(request) as JsonObject;
}

// ---- matching

/** `constraints` as an IR match (`operations` replaced when given), with the namespaced policy's namespace. */
export function matchOf(constraints: MatchResources, namespace: string | undefined, operations?: string[]): MatchSpec {
  const c = clauses(operations ? withOperations(constraints, operations) : constraints);
  const all: MatchClause[] = [c.match];
  if (namespace !== undefined) all.push({ namespaces: [namespace], scope: 'Namespaced' });
  const spec: MatchSpec = { globs: 'exact', all };
  if (c.exclude) spec.exclude = { any: [c.exclude] };
  return spec;
}

function withOperations(m: MatchResources, operations: string[]): MatchResources {
  const set = (rs: ResourcePattern[]): ResourcePattern[] => rs.map((r) => ({ ...r, operations }));
  return { ...m, resourceRules: set(m.resourceRules), excludeResourceRules: set(m.excludeResourceRules) };
}

/** An IR policy that only decides: its match and guards, no rules. */
export function decisionIr(unit: ExistingPolicy, match: MatchSpec, conditions: MpolPolicy['matchConditions'], request: JsonObject | undefined): Policy {
  const ir = lowerPolicy(unit.policy, { matchConstraints: unit.policy.matchConstraints, matchConditions: conditions, mutations: [] }, []);
  return { ...ir, match, lets: [...(request ? [requestLet(unit.policy, request)] : []), ...(ir.lets ?? [])], rules: [], semantics: { ...ir.semantics, failurePolicy: 'fail' } };
}

/** Whether the IR decision held: matched, every guard true, no error (an error is a no, as upstream). */
export function decided(ir: Policy, request: AdmissionRequest, provider: KyvernoDataProvider | undefined, runtime?: Runtime): boolean {
  const r = runIr(ir, request, provider, runtime);
  return r.allowed && !r.trace.some((t) => t.policy === ir.id && (t.outcome === 'not-matched' || t.outcome === 'skipped' || t.outcome === 'error'));
}

/** A CEL selector result as target objects: a list's `items`, or the object itself (processor.go). */
export function selectorObjects(value: JsonValue): JsonObject[] | string {
  if (!isJsonObject(value)) return 'output type of the target selector expression must be a map';
  if (Array.isArray(value.items)) {
    const out: JsonObject[] = [];
    for (const item of value.items) {
      if (!isJsonObject(item)) return `item is not a valid Kubernetes object: ${JSON.stringify(item)}`;
      out.push(item);
    }
    return out;
  }
  return [value];
}

export function variableExprs(policy: MpolPolicy) {
  return policy.variables.map((v) => ({ name: v.name, expr: { text: v.text, origin: { ...v.doc.spanOf(v.path), dialect: DIALECT } } }));
}

/** Kyverno's CEL resource library over a fixed set of objects (the CLI's fake cluster). */
export function objectsProvider(objects: readonly JsonObject[]): KyvernoDataProvider {
  const list = (apiVersion: string, resource: string, namespace: string): JsonObject[] => {
    const { group } = apiVersionParts(apiVersion);
    return objects.filter((o) => o.apiVersion === apiVersion && resourceFor(group, str(o.kind)) === resource && (namespace === '' || str(metadata(o).namespace) === namespace));
  };
  return {
    listResources: (apiVersion, resource, namespace) => list(apiVersion, resource, namespace),
    getResource: (apiVersion, resource, namespace, name) => list(apiVersion, resource, namespace).find((o) => str(metadata(o).name) === name && str(metadata(o).namespace) === namespace),
  };
}

function apiVersionParts(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
