/**
 * Preconditions (`preconditions: {any, all}` or the legacy list): parsed into one opaque `jmes` guard and
 * evaluated as pkg/engine/utils CheckPreconditions does: every key and value of every condition is
 * substituted first (SubstituteAllInPreconditions; an unresolvable variable is an error, so the rule errors),
 * then `any` holds when some condition holds (an explicit empty `any` is false), `all` when every one does,
 * and the block when both do.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { Guard, Origin } from '../../ir/nodes.js';
import { canonicalOperator, evaluateOperator } from './operators.js';
import { opaqueExpression } from './opaque.js';
import { substituteTree, type Substituted, type SubstitutionEnv } from './variables.js';
import type { Reader } from './reader.js';
import { compileTree } from './template.js';

/** The guard for a preconditions block, or undefined when there is none. */
export function preconditionsGuard(r: Reader, at: (string | number)[], diagnostics: Diagnostic[]): Guard | undefined {
  const block = r.get(at);
  if (block === undefined || block === null) return undefined;
  const lists: [string, JsonValue][] = Array.isArray(block)
    ? [['', block]]
    : isJsonObject(block)
      ? (['any', 'all'] as const).filter((k) => block[k] !== undefined && block[k] !== null).map((k) => [k, block[k]!] as [string, JsonValue])
      : [];
  if (!Array.isArray(block) && !isJsonObject(block)) {
    diagnostics.push(r.error('TM2002', 'preconditions must be a list or a map with any/all', at));
    return undefined;
  }
  for (const [k, list] of lists) {
    const base = k === '' ? at : [...at, k];
    if (!Array.isArray(list)) {
      diagnostics.push(r.error('TM2002', `preconditions.${k} must be a list`, base));
      continue;
    }
    list.forEach((c, i) => {
      const op = isJsonObject(c) ? c.operator : undefined;
      if (typeof op !== 'string' || canonicalOperator(op) === undefined) {
        diagnostics.push(r.error('TM2002', `unknown precondition operator ${JSON.stringify(op ?? null)}`, [...base, i]));
      }
    });
  }
  if (isJsonObject(block) && lists.length === 0) return undefined;
  const origin: Origin = r.origin(at);
  return { kind: 'jmes', expr: { text: opaqueExpression('conditions', block), origin }, origin };
}

function conditionHolds(c: JsonValue): boolean {
  if (!isJsonObject(c)) return false;
  const op = typeof c.operator === 'string' ? c.operator : '';
  return evaluateOperator(op, c.key ?? null, c.value ?? null);
}

/** Evaluates a preconditions block (the JSON the opaque guard carries). */
export function evaluateConditions(block: JsonValue, env: SubstitutionEnv): Substituted<boolean> {
  return conditionsOutcome(substituteTree(block, env));
}

/** `evaluateConditions` for one block, its variables located once (template.ts). */
export function compileConditions(block: JsonValue): (env: SubstitutionEnv) => Substituted<boolean> {
  const substitute = compileTree(block);
  return (env) => conditionsOutcome(substitute(env));
}

function conditionsOutcome(substituted: Substituted<JsonValue>): Substituted<boolean> {
  if (!substituted.ok) return { ok: false, message: `failed to substitute variables in preconditions: ${substituted.message}` };
  const b = substituted.value;
  if (Array.isArray(b)) return { ok: true, value: b.every(conditionHolds) };
  if (!isJsonObject(b)) return { ok: true, value: true };
  let any = true;
  if (Array.isArray(b.any)) any = b.any.some(conditionHolds);
  let all = true;
  if (Array.isArray(b.all)) all = b.all.every(conditionHolds);
  return { ok: true, value: any && all };
}
