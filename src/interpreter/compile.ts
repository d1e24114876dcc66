import { mapRuleRuns } from '../compile/map-rule-runs.js';
import { smpRuleRuns } from '../compile/smp-rule-runs.js';
import { stableRuleMatchSlots } from '../compile/stable-match.js';
import { planVariableReuse, type VariableReusePlan } from '../compile/variable-reuse.js';
import type { Guard, LetOp, Op, Policy, Rule } from '../ir/nodes.js';
import { compileMatch, type CompiledMatch, type MatchOutcome } from '../k8s/match.js';
import { compileGuard, describeGuard, type GuardFn } from './guards.js';
import { compileBlock } from './ops/block.js';
import { compileOp, type OpFn } from './ops/index.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';

export interface CompiledGuard {
  guard: Guard;
  fn: GuardFn;
}

export interface CompiledRule {
  rule: Rule;
  match: CompiledMatch | undefined;
  guards: CompiledGuard[];
  /** One closure per op, for traced runs (the trace names each op). */
  ops: { kind: string; fn: OpFn; origin: Rule['origin'] }[];
  /** The body with literal sets fused (ops/fused-sets.ts), for untraced runs. */
  body: OpFn;
}

/**
 * Runs the rules from `from` on as one step (src/compile/smp-rule-runs.ts) and returns the index of the first
 * rule it did not run (`from` when none), which the rule loop then runs the ordinary way. `kept` is the loop's
 * match outcomes per slot (run-policy.ts ruleMatch). `admitted`: the loop has tested rule `from`'s match and
 * guards, and they passed. `scope` is the policy's, which rule guards are evaluated in. An EvalFailure it
 * throws is the failure of the rule `st.ruleName` names, with what the rules before it wrote in `st.object`.
 */
export type RuleRunner = (st: EvalState, from: number, kept: (MatchOutcome | undefined)[] | undefined, admitted: boolean, scope: Scope) => number;

export interface CompiledPolicy {
  policy: Policy;
  match: CompiledMatch;
  /** The policy's own bindings (`Policy.lets`), run before its guards; undefined when it has none. */
  lets: OpFn | undefined;
  guards: CompiledGuard[];
  rules: CompiledRule[];
  /**
   * Per rule, the slot its match outcome is kept in for one run of the policy, or -1 (src/compile/stable-match.ts
   * stableRuleMatchSlots); undefined when no rule has a slot.
   */
  ruleMatchSlots: readonly number[] | undefined;
  /** How many slots `ruleMatchSlots` uses. */
  ruleMatchSlotCount: number;
  /**
   * Per rule, the runner of the run of rules it belongs to, for runs without rule snapshots; undefined when
   * the policy has none (always for the closure interpreter, the reference).
   */
  ruleRuns: readonly (RuleRunner | undefined)[] | undefined;
}

/**
 * How ops, blocks and guards become functions: the closure interpreter (CLOSURES, the reference) or code
 * generated per policy (src/compile). Both give functions of the same contract, run by the same semantics.
 */
export interface OpCompiler {
  readonly name: string;
  op(op: Op): OpFn;
  block(ops: readonly Op[]): OpFn;
  guard(g: Guard): GuardFn;
}

export const CLOSURES: OpCompiler = Object.freeze({ name: 'closures', op: compileOp, block: compileBlock, guard: compileGuard });

/** Compiled policies per compiler and policy object. */
const caches = new WeakMap<OpCompiler, WeakMap<Policy, CompiledPolicy>>();

function guardsOf(guards: readonly Guard[], c: OpCompiler): CompiledGuard[] {
  return guards.map((guard) => ({ guard, fn: c.guard(guard) }));
}

/** The bindings in order, returning the scope they make (a block's scope does not leak; this one must). */
function compileLets(lets: readonly LetOp[], c: OpCompiler): OpFn {
  const fns = lets.map((l) => c.op(l));
  return (st, scope) => {
    let s = scope;
    for (const fn of fns) s = fn(st, s);
    return s;
  };
}

/** The policy's bindings, after a new run of the policy's shared variables begins. */
function startingRun(reuse: VariableReusePlan, lets: OpFn | undefined): OpFn {
  return (st, scope) => {
    reuse.start(st);
    return lets === undefined ? scope : lets(st, scope);
  };
}

/** Compiles a policy once per compiler; later calls with the same policy object reuse the result. */
export function compilePolicy(policy: Policy, c: OpCompiler = CLOSURES): CompiledPolicy {
  let cache = caches.get(c);
  if (!cache) caches.set(c, (cache = new WeakMap()));
  const hit = cache.get(policy);
  if (hit) return hit;
  // Generated runs test a rule match its policy cannot change once per run; the closure interpreter, the
  // reference, tests every rule's match.
  const slots = c === CLOSURES ? [] : stableRuleMatchSlots(policy);
  const slotCount = slots.reduce((n, s) => Math.max(n, s + 1), 0);
  // Generated runs evaluate a variable once for the rules that leave its inputs alone (planned before the
  // rules are compiled: their lets take the plan); the closure interpreter evaluates it per rule.
  const reuse = c === CLOSURES ? undefined : planVariableReuse(policy);
  const lets = policy.lets && policy.lets.length > 0 ? compileLets(policy.lets, c) : undefined;
  const compiled: CompiledPolicy = {
    policy,
    ruleMatchSlots: slotCount > 0 ? slots : undefined,
    ruleMatchSlotCount: slotCount,
    match: compileMatch(policy.match),
    lets: reuse === undefined ? lets : startingRun(reuse, lets),
    guards: guardsOf(policy.guards, c),
    rules: policy.rules.map((rule) => ({
      rule,
      match: rule.match ? compileMatch(rule.match) : undefined,
      guards: guardsOf(rule.guards, c),
      ops: rule.body.map((op) => ({ kind: op.kind, fn: c.op(op), origin: op.origin })),
      body: c.block(rule.body),
    })),
    ruleRuns: undefined,
  };
  if (c !== CLOSURES) compiled.ruleRuns = smpRuleRuns(compiled.rules, slots) ?? mapRuleRuns(compiled.rules, c);
  cache.set(policy, compiled);
  return compiled;
}

export { describeGuard };
