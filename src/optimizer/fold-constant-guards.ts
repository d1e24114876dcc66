import type { Guard, Op, Policy, Rule } from '../ir/nodes.js';

const TRUE = (origin: Guard['origin']): Guard => ({ kind: 'const', value: true, origin });
const FALSE = (origin: Guard['origin']): Guard => ({ kind: 'const', value: false, origin });

function isConst(g: Guard, value: boolean): boolean {
  return g.kind === 'const' && g.value === value;
}

/** Folds `and`, `or` and `not` over constant arguments; keeps the origin of the node it replaces. */
export function foldGuard(g: Guard): Guard {
  switch (g.kind) {
    case 'and':
    case 'or': {
      const absorbing = g.kind === 'or';
      const args = g.args.map(foldGuard).filter((a) => !isConst(a, !absorbing));
      if (args.some((a) => isConst(a, absorbing))) return absorbing ? TRUE(g.origin) : FALSE(g.origin);
      if (args.length === 0) return absorbing ? FALSE(g.origin) : TRUE(g.origin);
      if (args.length === 1) return args[0]!;
      return args.length === g.args.length && args.every((a, i) => a === g.args[i]) ? g : { ...g, args };
    }
    case 'not': {
      const arg = foldGuard(g.arg);
      if (arg.kind === 'const') return { kind: 'const', value: !arg.value, origin: g.origin };
      if (arg.kind === 'not') return arg.arg;
      return arg === g.arg ? g : { ...g, arg };
    }
    default:
      return g;
  }
}

function foldOps(ops: readonly Op[]): Op[] {
  return ops.map(foldOp);
}

function foldOp(op: Op): Op {
  switch (op.kind) {
    case 'when': {
      const folded: Op = { ...op, guard: foldGuard(op.guard), then: foldOps(op.then) };
      if (op.else) folded.else = foldOps(op.else);
      return folded;
    }
    case 'forEach':
      return { ...op, body: foldOps(op.body) };
    default:
      return op;
  }
}

function foldRule(rule: Rule): Rule {
  return { ...rule, guards: rule.guards.map(foldGuard), body: foldOps(rule.body) };
}

/** Pass: fold constant guards everywhere (policy and rule guards, `when` conditions). */
export function foldConstantGuards(policies: readonly Policy[]): Policy[] {
  return policies.map((p) => ({ ...p, guards: p.guards.map(foldGuard), rules: p.rules.map(foldRule) }));
}
