import type { Guard, LetOp, Policy, Rule } from '../ir/nodes.js';
import { compileMatch, type CompiledMatch } from '../k8s/match.js';
import { compileGuard, describeGuard, type GuardFn } from './guards.js';
import { compileBlock } from './ops/block.js';
import { compileOp, type OpFn } from './ops/index.js';

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

export interface CompiledPolicy {
  policy: Policy;
  match: CompiledMatch;
  /** The policy's own bindings (`Policy.lets`), run before its guards; undefined when it has none. */
  lets: OpFn | undefined;
  guards: CompiledGuard[];
  rules: CompiledRule[];
}

const cache = new WeakMap<Policy, CompiledPolicy>();

function guardsOf(guards: readonly Guard[]): CompiledGuard[] {
  return guards.map((guard) => ({ guard, fn: compileGuard(guard) }));
}

/** The bindings in order, returning the scope they make (a block's scope does not leak; this one must). */
function compileLets(lets: readonly LetOp[]): OpFn {
  const fns = lets.map((l) => compileOp(l));
  return (st, scope) => {
    let s = scope;
    for (const fn of fns) s = fn(st, s);
    return s;
  };
}

/** Compiles a policy to closures once; later calls with the same policy object reuse the result. */
export function compilePolicy(policy: Policy): CompiledPolicy {
  const hit = cache.get(policy);
  if (hit) return hit;
  const compiled: CompiledPolicy = {
    policy,
    match: compileMatch(policy.match),
    lets: policy.lets && policy.lets.length > 0 ? compileLets(policy.lets) : undefined,
    guards: guardsOf(policy.guards),
    rules: policy.rules.map((rule) => ({
      rule,
      match: rule.match ? compileMatch(rule.match) : undefined,
      guards: guardsOf(rule.guards),
      ops: rule.body.map((op) => ({ kind: op.kind, fn: compileOp(op), origin: op.origin })),
      body: compileBlock(rule.body),
    })),
  };
  cache.set(policy, compiled);
  return compiled;
}

export { describeGuard };
