/**
 * Lowering of one MutatingPolicy (or one autogen variant of it) into an IR policy:
 *   id        the policy name (`<namespace>:<name>` for a NamespacedMutatingPolicy)
 *   semantics ordered (Kyverno registers one webhook per policy; the API server calls them in order and
 *             reinvokes `IfNeeded` ones), failurePolicy
 *   match     matchConstraints, Kubernetes reading (`globs: exact`); a namespaced policy only sees its namespace
 *   lets      the variables, lazy and shared by matchConditions and every mutation (compiler/policy.go
 *             appendVariables binds them once per evaluation, before the match conditions)
 *   guards    the exemptions of matching PolicyExceptions, then matchConditions
 *   rules     one rule holding every mutation in order: any error abandons the whole policy
 *             (policy.go evaluate returns on the first patcher error; failurePolicy then decides)
 */
import type { Origin } from '../../diagnostics/span.js';
import type { MatchClause, MatchSpec } from '../../ir/match.js';
import type { CelGuard, CelValue, Guard, LetOp, Op, Policy } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { clauses } from '../map/lower.js';
import type { Expression, MatchResources, Mutation, Named } from '../map/model.js';
import { DIALECT, type MpolException, type MpolPolicy } from './model.js';

/** Admission never runs a mutation for DELETE (the webhook is registered for CREATE, UPDATE and CONNECT). */
const ADMISSION_OPERATIONS = ['CREATE', 'UPDATE', 'CONNECT'];

function originAt(x: { doc: MpolPolicy['doc'] }, path: YamlPath): Origin {
  return { ...x.doc.spanOf(path), dialect: DIALECT };
}

function celValue(x: Expression): CelValue {
  const origin = originAt(x, x.path);
  return { kind: 'cel', expr: { text: x.text, origin }, origin };
}

function celGuard(x: Expression & { name?: string }): CelGuard {
  const origin = originAt(x, x.path);
  return x.name === undefined ? { kind: 'cel', expr: { text: x.text, origin }, origin } : { kind: 'cel', expr: { text: x.text, origin }, name: x.name, origin };
}

export function policyId(policy: MpolPolicy): string {
  return policy.namespace !== undefined ? `${policy.namespace}:${policy.name}` : policy.name;
}

function matchSpec(policy: MpolPolicy, constraints: MatchResources): MatchSpec {
  const c = clauses(constraints);
  const all: MatchClause[] = [{ operations: ADMISSION_OPERATIONS, ...c.match }];
  if (policy.namespace !== undefined) all.push({ namespaces: [policy.namespace], scope: 'Namespaced' });
  const spec: MatchSpec = { globs: 'exact', all, origin: originAt(policy, ['spec', 'matchConstraints']) };
  if (c.exclude) spec.exclude = { any: [c.exclude] };
  return spec;
}

/**
 * PolicyExceptions that name the policy exempt a request when all their matchConditions hold
 * (compiler/policy.go evaluate: a full exemption skips the policy; an error fails it).
 */
function exemptionGuard(exceptions: readonly MpolException[], origin: Origin): Guard | undefined {
  const exempting = exceptions.filter((e) => !e.partial);
  if (exempting.length === 0) return undefined;
  const any: Guard[] = exempting.map((e) => {
    const conds = e.matchConditions.map((c) => celGuard(c));
    const eo = originAt(e, []);
    return conds.length === 1 ? conds[0]! : { kind: 'and', args: conds, origin: eo };
  });
  return { kind: 'not', arg: any.length === 1 ? any[0]! : { kind: 'or', args: any, origin }, origin };
}

export interface Variant {
  /** Distinguishes autogen variants in rule names. */
  suffix?: string;
  matchConstraints: MatchResources;
  matchConditions: Named[];
  mutations: Mutation[];
}

export function lowerPolicy(policy: MpolPolicy, variant: Variant, exceptions: readonly MpolException[]): Policy {
  const origin = originAt(policy, []);
  const lets: LetOp[] = policy.variables.map((v) => ({ kind: 'let', name: v.name, value: celValue(v), lazy: true, origin: originAt(v, v.path.slice(0, -1)) }));
  const guards: Guard[] = [];
  const exempt = exemptionGuard(exceptions, origin);
  if (exempt) guards.push(exempt);
  for (const c of variant.matchConditions) guards.push(celGuard(c));
  const body: Op[] = variant.mutations.map((m) => {
    const o = originAt(policy, m.path);
    const value = celValue(m.expression);
    return m.patchType === 'ApplyConfiguration'
      ? { kind: 'merge', path: { root: 'object', segments: [] }, value, strategy: 'ssa', origin: o }
      : { kind: 'jsonPatch', steps: [], stepsFrom: value, profile: 'evanphx-v4', origin: o };
  });
  return {
    id: policyId(policy),
    match: matchSpec(policy, variant.matchConstraints),
    ...(lets.length > 0 ? { lets } : {}),
    guards,
    rules: body.length > 0 ? [{ name: variant.suffix ? `mutations (${variant.suffix})` : 'mutations', guards: [], body, origin: originAt(policy, ['spec', 'mutations']) }] : [],
    semantics: {
      order: 'ordered',
      reinvocation: policy.reinvocationPolicy === 'IfNeeded' ? 'ifNeeded' : 'never',
      failurePolicy: policy.failurePolicy === 'Ignore' ? 'ignore' : 'fail',
    },
    origin,
  };
}
