/**
 * MAP variables are lowered to lazy `let`s at the head of every mutation's rule. Once a raising has turned the
 * rule's CEL into structured ops, nothing can read them any more (only CEL reads `variables`), and a lazy
 * variable that is never read is never evaluated, so they go: a target that cannot host CEL has no use for them.
 */
import type { Policy, Rule } from '../ir/nodes.js';
import { walk } from '../ir/visit.js';

function mentionsCel(p: Policy): boolean {
  let found = false;
  walk(p, {
    guard: (g) => void (found ||= g.kind === 'cel'),
    value: (v) => void (found ||= v.kind === 'cel'),
  });
  return found;
}

export function dropUnusedLazyLets(policy: Policy, rule: Rule): Rule {
  const lets = rule.body.filter((op) => op.kind === 'let' && op.lazy);
  if (lets.length === 0) return rule;
  const rest = rule.body.filter((op) => !(op.kind === 'let' && op.lazy));
  const probe: Policy = { ...policy, rules: [{ ...rule, body: rest }] };
  return mentionsCel(probe) ? rule : { ...rule, body: rest };
}
