import type { Guard, Policy } from '../ir/nodes.js';
import { transformPolicies } from '../ir/visit.js';

const constant = (value: boolean, origin: Guard['origin']): Guard => ({ kind: 'const', value, origin });

function isConst(g: Guard, value: boolean): boolean {
  return g.kind === 'const' && g.value === value;
}

/**
 * Folds one `and`, `or` or `not` whose arguments are already folded (the transform runs bottom-up); the
 * result keeps the origin of the node it replaces.
 */
export function foldGuard(g: Guard): Guard {
  switch (g.kind) {
    case 'and':
    case 'or': {
      const absorbing = g.kind === 'or';
      const args = g.args.filter((a) => !isConst(a, !absorbing));
      if (args.some((a) => isConst(a, absorbing))) return constant(absorbing, g.origin);
      if (args.length === 0) return constant(!absorbing, g.origin);
      if (args.length === 1) return args[0]!;
      return args.length === g.args.length ? g : { ...g, args };
    }
    case 'not':
      if (g.arg.kind === 'const') return constant(!g.arg.value, g.origin);
      if (g.arg.kind === 'not') return g.arg.arg;
      return g;
    default:
      return g;
  }
}

/** Pass: fold constant guards everywhere (policy and rule guards, `when` conditions). */
export function foldConstantGuards(policies: readonly Policy[]): Policy[] {
  return transformPolicies(policies, { guard: foldGuard });
}
