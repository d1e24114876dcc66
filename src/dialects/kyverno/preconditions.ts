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
import { canonicalOperator, compileOperator, evaluateOperator } from './operators.js';
import { opaqueExpression } from './opaque.js';
import { substituteTree, treeHasVariables, type QueryPreparer, type Substituted, type SubstitutionEnv } from './variables.js';
import type { Reader } from './reader.js';
import { compileString, compileTree } from './template.js';

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

export type CompiledConditions = (env: SubstitutionEnv) => Substituted<boolean>;

/**
 * `evaluateConditions` for one block, its variables located once (template.ts) and their queries compiled
 * once by `prepare`. A block whose variables all sit in conditions' `key`s and `value`s (nearly every one)
 * is not rebuilt per evaluation: see compileConditionPlan.
 */
export function compileConditions(block: JsonValue, prepare?: QueryPreparer, slotOf?: SlotCompiler): CompiledConditions {
  return compileConditionPlan(block, prepare, slotOf) ?? compileGeneralConditions(block, prepare);
}

/**
 * A caller's own evaluation of a `key` or `value` string holding variables (engines/jmes.ts directConditions),
 * giving what compileString's would; undefined: compileString's.
 */
export type SlotCompiler = (text: string, pointer: string) => ((env: SubstitutionEnv) => Substituted) | undefined;

/** The reference evaluation: the whole block substituted, then its conditions tested. */
export function compileGeneralConditions(block: JsonValue, prepare?: QueryPreparer): CompiledConditions {
  const substitute = compileTree(block, prepare);
  return (env) => conditionsOutcome(substitute(env));
}

const HOLDS: Substituted<boolean> = Object.freeze({ ok: true, value: true });
const FAILS: Substituted<boolean> = Object.freeze({ ok: true, value: false });

function substitutionFailed(message: string): Substituted<boolean> {
  return { ok: false, message: `failed to substitute variables in preconditions: ${message}` };
}

/** One operand of a condition: a constant, or the substituted value of the block's variable `slot`. */
type Operand = { constant: JsonValue } | { slot: number };

interface PlannedCondition {
  key: Operand;
  value: Operand;
  /** The operator's canonical name; undefined when Kyverno has none (the condition is false). */
  operator: string | undefined;
  /** The operator applied to the constant value (compileOperator), when the value has no variables. */
  test: ((key: unknown) => boolean) | undefined;
}

/**
 * The block as conditionsOutcome reads it once substituted: the lists it tests (`every` for the legacy list
 * and `all`, `some` for `any`) and, in the order substituteTree visits them (depth first, map keys in order),
 * the key/value operands holding variables. Undefined when a variable sits anywhere else (an operator, a
 * message, a map key, a stray field): the general evaluation then keeps the exact order of failures.
 */
export function compileConditionPlan(block: JsonValue, prepare: QueryPreparer | undefined, slotOf?: SlotCompiler): CompiledConditions | undefined {
  const slots: ((env: SubstitutionEnv) => Substituted<unknown>)[] = [];
  const planList = (list: JsonValue[], at: string): PlannedCondition[] | undefined => {
    const out: PlannedCondition[] = [];
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      if (!isJsonObject(c)) {
        if (treeHasVariables(c)) return undefined;
        out.push({ key: { constant: null }, value: { constant: null }, operator: undefined, test: undefined });
        continue;
      }
      const planned: PlannedCondition = { key: { constant: c.key ?? null }, value: { constant: c.value ?? null }, operator: undefined, test: undefined };
      for (const k of Object.keys(c)) {
        if (k.includes('{{')) return undefined;
        const v = c[k]!;
        if (!treeHasVariables(v)) continue;
        if (k !== 'key' && k !== 'value') return undefined;
        const pointer = `${at}/${i}/${k}`;
        slots.push(typeof v === 'string' ? (slotOf?.(v, pointer) ?? compileString(v, pointer, prepare)) : compileTree(v, prepare, pointer));
        planned[k] = { slot: slots.length - 1 };
      }
      planned.operator = typeof c.operator === 'string' ? canonicalOperator(c.operator) : undefined;
      if (planned.operator !== undefined && 'constant' in planned.value) planned.test = compileOperator(planned.operator, planned.value.constant);
      out.push(planned);
    }
    return out;
  };
  let all: PlannedCondition[] | undefined;
  let any: PlannedCondition[] | undefined;
  if (Array.isArray(block)) {
    all = planList(block, '');
    if (all === undefined) return undefined;
  } else if (isJsonObject(block)) {
    for (const k of Object.keys(block)) {
      if (k.includes('{{')) return undefined;
      const v = block[k]!;
      if ((k === 'any' || k === 'all') && Array.isArray(v)) {
        const planned = planList(v, `/${k}`);
        if (planned === undefined) return undefined;
        if (k === 'any') any = planned;
        else all = planned;
      } else if (treeHasVariables(v)) return undefined;
    }
  } else return undefined;
  return (env) => {
    const values: unknown[] = new Array(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const r = slots[i]!(env);
      if (!r.ok) return substitutionFailed(r.message);
      values[i] = r.value;
    }
    let ok = true;
    if (any !== undefined) ok = someHolds(any, values);
    if (ok && all !== undefined) ok = everyHolds(all, values);
    return ok ? HOLDS : FAILS;
  };
}

function plannedHolds(c: PlannedCondition, values: readonly unknown[]): boolean {
  if (c.operator === undefined) return false;
  const key = 'slot' in c.key ? (values[c.key.slot] ?? null) : c.key.constant;
  if (c.test !== undefined) return c.test(key);
  const value = 'slot' in c.value ? (values[c.value.slot] ?? null) : c.value.constant;
  return evaluateOperator(c.operator, key, value);
}

function someHolds(conditions: readonly PlannedCondition[], values: readonly unknown[]): boolean {
  for (let i = 0; i < conditions.length; i++) if (plannedHolds(conditions[i]!, values)) return true;
  return false;
}

function everyHolds(conditions: readonly PlannedCondition[], values: readonly unknown[]): boolean {
  for (let i = 0; i < conditions.length; i++) if (!plannedHolds(conditions[i]!, values)) return false;
  return true;
}

function conditionsOutcome(substituted: Substituted<JsonValue>): Substituted<boolean> {
  if (!substituted.ok) return substitutionFailed(substituted.message);
  const b = substituted.value;
  if (Array.isArray(b)) return { ok: true, value: b.every(conditionHolds) };
  if (!isJsonObject(b)) return { ok: true, value: true };
  let any = true;
  if (Array.isArray(b.any)) any = b.any.some(conditionHolds);
  let all = true;
  if (Array.isArray(b.all)) all = b.all.every(conditionHolds);
  return { ok: true, value: any && all };
}
