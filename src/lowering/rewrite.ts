/**
 * Copy-on-write traversal shared by the raisings: every op of every rule (inside `when` and `forEach`
 * bodies too) is offered to a rewriter, which returns the ops that replace it or undefined to keep it.
 * Policies, rules and blocks nothing touched are returned as they are, so a raising that finds nothing to
 * raise costs no copies.
 */
import type { Guard, Op, Policy, Rule } from '../ir/nodes.js';

export type OpRewriter = (op: Op) => Op[] | undefined;

export function rewriteOps(ops: readonly Op[], rewrite: OpRewriter): Op[] | undefined {
  let out: Op[] | undefined;
  ops.forEach((op, i) => {
    const replaced = rewriteOne(op, rewrite);
    if (replaced === undefined) {
      out?.push(op);
      return;
    }
    out ??= ops.slice(0, i);
    out.push(...replaced);
  });
  return out;
}

function rewriteOne(op: Op, rewrite: OpRewriter): Op[] | undefined {
  let current = op;
  if (op.kind === 'when') {
    const then = rewriteOps(op.then, rewrite);
    const otherwise = op.else ? rewriteOps(op.else, rewrite) : undefined;
    if (then || otherwise) current = { ...op, then: then ?? op.then, ...(op.else ? { else: otherwise ?? op.else } : {}) };
  } else if (op.kind === 'forEach') {
    const body = rewriteOps(op.body, rewrite);
    if (body) current = { ...op, body };
  }
  return rewrite(current) ?? (current === op ? undefined : [current]);
}

/** Applies `rewrite` to the ops of every rule. */
export function rewritePolicies(policies: Policy[], rewrite: OpRewriter): Policy[] {
  return rewriteRules(policies, () => rewrite);
}

/** Applies the rewriter `rewriterOf` gives for each rule (it may depend on the policy and rule) to its ops. */
export function rewriteRules(policies: Policy[], rewriterOf: (p: Policy, r: Rule) => OpRewriter): Policy[] {
  let changed = false;
  const out = policies.map((p) => {
    let rulesChanged = false;
    const rules = p.rules.map((r): Rule => {
      const body = rewriteOps(r.body, rewriterOf(p, r));
      if (!body) return r;
      rulesChanged = true;
      return { ...r, body };
    });
    if (!rulesChanged) return p;
    changed = true;
    return { ...p, rules };
  });
  return changed ? out : policies;
}

/** Applies `rewrite` to the guard list of every policy and rule; it returns the replacement or undefined. */
export function rewriteGuards(policies: Policy[], rewrite: (g: Guard) => Guard | undefined): Policy[] {
  const list = (guards: readonly Guard[]): Guard[] | undefined => {
    let out: Guard[] | undefined;
    guards.forEach((g, i) => {
      const r = rewrite(g);
      if (r === undefined) out?.push(g);
      else {
        out ??= guards.slice(0, i);
        out.push(r);
      }
    });
    return out;
  };
  let changed = false;
  const out = policies.map((p) => {
    const guards = list(p.guards);
    let rulesChanged = false;
    const rules = p.rules.map((r) => {
      const g = list(r.guards);
      if (!g) return r;
      rulesChanged = true;
      return { ...r, guards: g };
    });
    if (!guards && !rulesChanged) return p;
    changed = true;
    return { ...p, ...(guards ? { guards } : {}), rules };
  });
  return changed ? out : policies;
}
