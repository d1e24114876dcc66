/**
 * Raising: CEL conditions (MAP matchConditions, CEL guards of `when` ops) over paths and literals become
 * structured guards (exists / notExists / eq / neq / in / and / or / not), where cel-guard.ts proves the CEL
 * can never error. A conjunction at the top of a policy's or rule's guard list is split into its parts (the
 * list is itself a conjunction). Anything else stays CEL.
 */
import type { Guard, Policy } from '../ir/nodes.js';
import { transformPolicy, walkGuards } from '../ir/visit.js';
import { celToGuard, type Facts } from './cel-guard.js';
import { kindFacts } from './kind-facts.js';
import { matchedKindSchemas } from './raise-apply-configuration.js';

function hasCel(p: Policy): boolean {
  let found = false;
  walkGuards(p, (g) => void (found ||= g.kind === 'cel'));
  return found;
}

function raiseGuard(g: Guard, facts: Facts): Guard {
  if (g.kind !== 'cel') return g;
  return celToGuard(g.expr.text, g.origin, facts) ?? g;
}

/** A guard list with top-level conjunctions split and `true` dropped. */
function splitConjunctions(guards: readonly Guard[]): Guard[] | undefined {
  if (!guards.some((g) => g.kind === 'and' || (g.kind === 'const' && g.value))) return undefined;
  return guards.flatMap((g) => (g.kind === 'and' ? g.args : g.kind === 'const' && g.value ? [] : [g]));
}

export function raiseCelGuards(policies: Policy[]): Policy[] {
  const raised = policies.map((p) => {
    if (!hasCel(p)) return p;
    const facts = kindFacts(matchedKindSchemas(p));
    return transformPolicy(p, { guard: (g) => raiseGuard(g, facts) });
  });
  return raised.map((p) => {
    const guards = splitConjunctions(p.guards);
    let changed = guards !== undefined;
    const rules = p.rules.map((r) => {
      const rg = splitConjunctions(r.guards);
      if (!rg) return r;
      changed = true;
      return { ...r, guards: rg };
    });
    return changed ? { ...p, guards: guards ?? p.guards, rules } : p;
  });
}
