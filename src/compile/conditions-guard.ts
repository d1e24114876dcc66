/**
 * Kyverno preconditions as guards of generated code (issue 17): a preconditions block whose variables all read
 * `request.object` or `request.operation` is evaluated against the object and the operation themselves
 * (engines/jmes.ts directConditions), without the expression scope, the substitution environment and the
 * engine look-up the general guard goes through for every evaluation. The general guard decides whenever that
 * would not be the same evaluation: another engine in the runtime, a DELETE (its queries read
 * `request.oldObject`), a variable named `request` in scope, a context entry not loaded yet (a query that
 * mentions it loads it), a block mentioning `images`.
 */
import { directConditions, JMES_ENGINE } from '../engines/jmes.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import type { Guard } from '../ir/nodes.js';
import { expressionEnvironment } from '../interpreter/expressions.js';
import { EvalFailure } from '../interpreter/failure.js';
import type { GuardFn } from '../interpreter/guards.js';

/** The guard `g` evaluated directly where it can be, `general` elsewhere; undefined when it never can. */
export function conditionsGuard(g: Guard, general: GuardFn): GuardFn | undefined {
  if (g.kind !== 'jmes') return undefined;
  const opaque = readOpaque(g.expr.text);
  if (opaque?.kind !== 'conditions') return undefined;
  const direct = directConditions(opaque.json, g.expr.origin);
  if (direct === undefined) return undefined;
  const environment = expressionEnvironment('jmes', g.expr);
  return (st, scope) => {
    // A context entry not loaded yet may be loaded by a query mentioning it (dialects/kyverno/deferred-loading.ts).
    if (st.runtime.expressions[environment] !== JMES_ENGINE || st.request.operation === 'DELETE' || scope.lookup('request') !== undefined || scope.hasPendingLazy()) return general(st, scope);
    const r = direct(st.object, st.request.operation);
    if (!r.ok) throw new EvalFailure(r.diagnostic);
    return r.value as boolean;
  };
}
