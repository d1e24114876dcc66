import type { Guard, Op, Policy, Rule } from '../ir/nodes.js';

function isConst(g: Guard, value: boolean): boolean {
  return g.kind === 'const' && g.value === value;
}

/** A block can be spliced into its parent only when it binds no variable the parent's later ops could see. */
function splicable(ops: readonly Op[]): boolean {
  return ops.every((o) => o.kind !== 'let');
}

function dropOps(ops: readonly Op[]): Op[] {
  const out: Op[] = [];
  for (const op of ops) {
    if (op.kind === 'when') {
      const then = dropOps(op.then);
      const otherwise = op.else ? dropOps(op.else) : undefined;
      if (isConst(op.guard, true) && splicable(then)) {
        out.push(...then);
        continue;
      }
      if (isConst(op.guard, false)) {
        if (otherwise && splicable(otherwise)) out.push(...otherwise);
        else if (otherwise && otherwise.length > 0) out.push({ ...op, guard: { ...op.guard, value: true } as Guard, then: otherwise, else: undefined } as Op);
        continue;
      }
      if (then.length === 0 && (!otherwise || otherwise.length === 0)) continue;
      const kept: Op = { ...op, then };
      if (otherwise && otherwise.length > 0) kept.else = otherwise;
      else delete kept.else;
      out.push(kept);
      continue;
    }
    if (op.kind === 'forEach') {
      const body = dropOps(op.body);
      if (body.length === 0) continue;
      out.push({ ...op, body });
      continue;
    }
    out.push(op);
  }
  return out;
}

function dropRule(rule: Rule): Rule | undefined {
  if (rule.guards.some((g) => isConst(g, false))) return undefined;
  const body = dropOps(rule.body);
  if (body.length === 0) return undefined;
  return { ...rule, guards: rule.guards.filter((g) => !isConst(g, true)), body };
}

/**
 * Pass: drop what can never run: branches under constant guards, rules whose guards are constantly false,
 * empty loops and conditionals, and every rule of a policy whose own guards are constantly false.
 * Policies themselves stay, so traces and translations still name them.
 */
export function dropUnreachable(policies: readonly Policy[]): Policy[] {
  return policies.map((p) => {
    if (p.guards.some((g) => isConst(g, false))) return { ...p, guards: [p.guards.find((g) => isConst(g, false))!], rules: [] };
    return {
      ...p,
      guards: p.guards.filter((g) => !isConst(g, true)),
      rules: p.rules.map(dropRule).filter((r): r is Rule => r !== undefined),
    };
  });
}
