/**
 * Lowering of one invocation (policy × binding × param) into an IR policy:
 *   id        "<policy>/<binding>" (+ "/<param namespace>/<param name>" per selected param)
 *   semantics ordered, reinvocation from reinvocationPolicy, failurePolicy
 *   match     policy.matchConstraints AND binding.matchResources, Kubernetes reading (`globs: exact`)
 *   lets      `let $params` (when the policy has a paramKind): matchConditions and mutations read it
 *   guards    matchConditions (CEL)
 *   rules     one per mutation, in order: the variables as lazy lets, then `merge ssa object = cel` (ApplyConfiguration) or `jsonPatch evanphx-v4` with
 *             the steps computed by the CEL expression (JSONPatch).
 * A rule is the unit of failurePolicy `Ignore` (dispatcher.go goes on with the next mutation).
 */
import type { Origin } from '../../diagnostics/span.js';
import { PARAMS_VAR } from '../../engines/cel.js';
import type { MatchClause, MatchSpec } from '../../ir/match.js';
import type { CelGuard, CelValue, Guard, LetOp, Op, Policy, Rule } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { MAP_OPERATIONS } from './match-resources.js';
import type { Expression, MapBinding, MapPolicy, MatchResources } from './model.js';
import type { ParamVariant } from './params.js';

export const DIALECT = 'map';

function originAt(x: { doc: MapPolicy['doc'] }, path: YamlPath): Origin {
  return { ...x.doc.spanOf(path), dialect: DIALECT };
}

function celValue(x: Expression): CelValue {
  const origin = originAt(x, x.path);
  return { kind: 'cel', expr: { text: x.text, origin }, origin };
}

function celGuard(text: string, origin: Origin, name?: string): CelGuard {
  return name === undefined ? { kind: 'cel', expr: { text, origin }, origin } : { kind: 'cel', expr: { text, origin }, name, origin };
}

/** MatchResources as one clause (resource rules, selectors) and the exclusion clause of its excludeResourceRules (shared with kyverno-mpol). */
export function clauses(m: MatchResources): { match: MatchClause; exclude?: MatchClause } {
  const match: MatchClause = {};
  if (m.resourceRules.length > 0) match.resources = m.resourceRules;
  if (m.namespaceSelector) match.namespaceSelector = m.namespaceSelector;
  if (m.objectSelector) match.labelSelector = m.objectSelector;
  return m.excludeResourceRules.length > 0 ? { match, exclude: { resources: m.excludeResourceRules } } : { match };
}

function matchSpec(policy: MapPolicy, binding: MapBinding, variant: ParamVariant): MatchSpec {
  const p = clauses(policy.matchConstraints);
  // DELETE never reaches MAP (dispatcher: only CREATE, UPDATE and CONNECT are mutated).
  const all: MatchClause[] = [{ operations: MAP_OPERATIONS.filter((o) => o !== '*'), ...p.match }];
  const exclude: MatchClause[] = p.exclude ? [p.exclude] : [];
  if (binding.matchResources) {
    const b = clauses(binding.matchResources);
    all.push(b.match);
    if (b.exclude) exclude.push(b.exclude);
  }
  if (variant.clause) all.push(variant.clause);
  const spec: MatchSpec = { globs: 'exact', all, origin: originAt(policy, ['spec', 'matchConstraints']) };
  if (exclude.length > 0) spec.exclude = { any: exclude };
  return spec;
}

/**
 * A configuration error (paramKind not found, no params with Deny, ...) raised when the invocation matches,
 * worded as the dispatcher words it. generic/policy_dispatcher.go raises it once the policy and binding
 * match, before the invocation's matchConditions are evaluated, so the invocation has no guards: a false
 * matchCondition does not hide the error.
 */
function configErrorRule(message: string, origin: Origin): Rule {
  return { name: 'configuration', guards: [], body: [{ kind: 'fail', message, origin }], origin };
}

function mutationRule(policy: MapPolicy, index: number, variant: ParamVariant): Rule {
  const m = policy.mutations[index]!;
  const origin = originAt(policy, m.path);
  const body: Op[] = [];
  for (const v of policy.variables) {
    const vo = originAt(v, v.path.slice(0, -1));
    body.push({ kind: 'let', name: v.name, value: celValue(v), lazy: true, origin: vo });
  }
  const value = celValue(m.expression);
  if (m.patchType === 'ApplyConfiguration') {
    body.push({ kind: 'merge', path: { root: 'object', segments: [] }, value, strategy: 'ssa', origin });
  } else {
    body.push({ kind: 'jsonPatch', steps: [], stepsFrom: value, profile: 'evanphx-v4', origin });
  }
  return { name: `mutations[${index}]`, guards: [], body, origin };
}

/** Where a configuration error points: the policy's paramKind, or the binding's paramRef. */
function errorOrigin(policy: MapPolicy, binding: MapBinding, variant: ParamVariant): Origin {
  if (variant.errorAt === 'paramKind') return originAt(policy, ['spec', 'paramKind']);
  return originAt(binding, binding.paramRef ? ['spec', 'paramRef'] : ['spec']);
}

export function lowerInvocation(policy: MapPolicy, binding: MapBinding, variant: ParamVariant): Policy {
  const origin = originAt(policy, []);
  const id = `${policy.name}/${binding.name}${variant.idSuffix ? `/${variant.idSuffix}` : ''}`;
  const guards: Guard[] = [];
  if (!variant.error) for (const c of policy.matchConditions) guards.push(celGuard(c.text, originAt(c, c.path), c.name));
  // The invocation's param object: matchConditions read `params` as the mutations do.
  const paramsOrigin = originAt(policy, ['spec', 'paramKind']);
  const lets: LetOp[] = variant.params === undefined ? [] : [{ kind: 'let', name: PARAMS_VAR, value: { kind: 'literal', json: variant.params, origin: paramsOrigin }, origin: paramsOrigin }];
  return {
    id,
    match: matchSpec(policy, binding, variant),
    ...(lets.length > 0 ? { lets } : {}),
    guards,
    rules: variant.error ? [configErrorRule(variant.error, errorOrigin(policy, binding, variant))] : policy.mutations.map((_, i) => mutationRule(policy, i, variant)),
    semantics: {
      order: 'ordered',
      reinvocation: policy.reinvocationPolicy === 'IfNeeded' ? 'ifNeeded' : 'never',
      failurePolicy: policy.failurePolicy === 'Ignore' ? 'ignore' : 'fail',
    },
    origin,
  };
}
