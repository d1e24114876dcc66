import type { Guard, Op, Policy, Rule } from '../ir/nodes.js';
import { transformOps } from '../ir/visit.js';

function isConst(g: Guard, value: boolean): boolean {
  return g.kind === 'const' && g.value === value;
}

/** A block can be spliced into its parent only when it binds no variable the parent's later ops could see. */
function splicable(ops: readonly Op[]): boolean {
  return ops.every((o) => o.kind !== 'let');
}

/** One op, its nested blocks already pruned (the transform runs bottom-up). */
function prune(op: Op): Op | readonly Op[] | null {
  if (op.kind === 'forEach') return op.body.length === 0 ? null : op;
  if (op.kind !== 'when') return op;
  const otherwise = op.else && op.else.length > 0 ? op.else : undefined;
  if (isConst(op.guard, true)) return splicable(op.then) ? op.then : op;
  if (isConst(op.guard, false)) {
    if (!otherwise) return null;
    if (splicable(otherwise)) return otherwise;
    return { kind: 'when', guard: { ...op.guard, value: true } as Guard, then: otherwise, origin: op.origin };
  }
  if (op.then.length === 0 && !otherwise) return null;
  if (op.else && !otherwise) {
    const kept: Op = { ...op };
    delete (kept as { else?: Op[] }).else;
    return kept;
  }
  return op;
}

function dropRule(rule: Rule): Rule | undefined {
  if (rule.guards.some((g) => isConst(g, false))) return undefined;
  const body = transformOps(rule.body, { op: prune });
  if (body.length === 0) return undefined;
  return { ...rule, guards: rule.guards.filter((g) => !isConst(g, true)), body };
}

/**
 * Pass: drop what can never run: branches under constant guards, rules whose guards are constantly false,
 * empty loops and conditionals. Policies themselves stay, so traces and translations still name them.
 *
 * A policy whose own guards are constantly false is disabled, and is kept as it is (its constant-false guard
 * moved first): the interpreter never runs its rules nor evaluates its other guards (the first false guard
 * skips the policy), but they are what the policy is. Gatekeeper disables the mutators of a schema conflict
 * and keeps them installed, so its generator re-emits them, whole (their match.source is a guard), for the
 * conflict, and so the disabling, to hold in the output.
 */
export function dropUnreachable(policies: readonly Policy[]): Policy[] {
  return policies.map((p) => {
    const never = p.guards.find((g) => isConst(g, false));
    if (never) return { ...p, guards: [never, ...p.guards.filter((g) => g !== never && !isConst(g, true))] };
    return {
      ...p,
      guards: p.guards.filter((g) => !isConst(g, true)),
      rules: p.rules.map(dropRule).filter((r): r is Rule => r !== undefined),
    };
  });
}
