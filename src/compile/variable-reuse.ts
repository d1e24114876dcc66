/**
 * A MAP variable evaluated once for the mutations that leave its inputs alone (issue 17). kube-apiserver
 * evaluates a policy's variables lazily per mutation (dispatcher.go: one composition context per patcher
 * call), against the object as the mutations before it left it; the IR says so with the same lazy lets at the
 * head of every mutation's rule. A variable read by several mutations (`tier` in three of the benchmark's
 * ten) was evaluated again by each, although the mutations between them wrote nowhere it reads.
 *
 * The plan, per policy: for each rule, the places its ops may write (cel-places.ts), and for each variable
 * (a lazy let the rules repeat: the same name, expression and referenced variables), the places it reads,
 * those of the variables it reads included. At run time a value computed at rule `j` is used again at rule
 * `i` when no rule from `j` to `i - 1` may write where the variable reads: the value was computed against
 * the object at rule `j` before its writes (or after some: its writes are counted too), so it is the value
 * the evaluation at `i` would give. Values live for one run of the policy (a reinvocation, another policy in
 * between, starts again); a failed evaluation is not kept, and the next read evaluates again, as a lazy
 * binding does. Policies with nothing to share get no plan, and runtimes with a defaulter (which may write
 * anywhere after each mutation) share nothing.
 */
import { variableSelections, type Expr } from '../cel/ast.js';
import type { LetOp, Op, Policy, Rule } from '../ir/nodes.js';
import type { JsonValue } from '../ir/json.js';
import type { Scope } from '../interpreter/scope.js';
import { evalMemo, type EvalState } from '../interpreter/state.js';
import type { ValueFn } from '../interpreter/values.js';
import { applyConfigurationWrites, EVERYWHERE, jsonPatchWrites, objectReads, placesOverlap, type Places } from './cel-places.js';
import { celSyntax } from './cel-syntax.js';

/** A run of the policy began and no variable was read yet. */
const NO_VALUES_YET: unique symbol = Symbol('no variable values yet');

/** What one policy's rules share: per rule and variable, the last rule before it that may write the variable's inputs. */
export class VariableReusePlan {
  constructor(
    /** dirtyBefore[rule][variable]: the last rule before `rule` whose writes may change the variable, or -1. */
    private readonly dirtyBefore: readonly (readonly number[])[],
    readonly variableCount: number,
  ) {}

  /**
   * Whether a value computed at an earlier rule `computedAt` holds at rule `rule`. Never within one rule: a
   * rule binding the same variable twice may write between the two (its own binding keeps its value).
   */
  holds(variable: number, computedAt: number, rule: number): boolean {
    return computedAt < rule && computedAt > this.dirtyBefore[rule]![variable]!;
  }

  /**
   * Starts a run of the policy: no value is known. The values are made at the first read: a run of mutations
   * evaluated against one activation (map-run-direct.ts) keeps its own and never reads them.
   */
  start(st: EvalState): void {
    evalMemo(st).set(this, NO_VALUES_YET);
  }

  values(st: EvalState): VariableValues | undefined {
    const memo = evalMemo(st);
    const values = memo.get(this) as VariableValues | typeof NO_VALUES_YET | undefined;
    if (values !== NO_VALUES_YET) return values;
    const made = new VariableValues(this.variableCount);
    memo.set(this, made);
    return made;
  }
}

/** One run's values, per variable: the rule it was computed at (-1: none) and the value. */
class VariableValues {
  readonly computedAt: number[];
  readonly value: JsonValue[];
  constructor(count: number) {
    // Sized and set by hand, made per run: Array(n).fill is a call that costs more than these few entries,
    // and pushing into [] reserves 17 slots.
    this.computedAt = new Array<number>(count);
    this.value = new Array<JsonValue>(count);
    for (let i = 0; i < count; i++) {
      this.computedAt[i] = -1;
      this.value[i] = null;
    }
  }
}

/** The plan's part in one lazy let: which variable it binds, in which rule. */
export interface SharedLet {
  readonly plan: VariableReusePlan;
  readonly variable: number;
  readonly rule: number;
}

/** The lazy lets of planned policies, by IR node (registered when their policy is compiled, before its rules). */
const sharedLets = new WeakMap<LetOp, SharedLet | null>();

/**
 * The plan of `policy`, with its lets registered for compileSharedLet, or undefined when no variable is bound
 * by two rules or more.
 */
export function planVariableReuse(policy: Policy): VariableReusePlan | undefined {
  const known = plans.get(policy);
  if (known !== undefined) return known ?? undefined;
  const plan = makePlan(policy);
  plans.set(policy, plan ?? null);
  return plan;
}

const plans = new WeakMap<Policy, VariableReusePlan | null>();

function makePlan(policy: Policy): VariableReusePlan | undefined {
  const keys = new Map<string, number>();
  const variableReads: Places[] = [];
  const ruleLets: { op: LetOp; variable: number }[][] = [];
  const uses: number[] = [];
  for (const rule of policy.rules) {
    const lets: { op: LetOp; variable: number }[] = [];
    const byName = new Map<string, VariableInputs>();
    for (const op of rule.body) {
      if (op.kind !== 'let' || op.lazy !== true || op.value.kind !== 'cel') continue;
      const ast = celSyntax(op.value.expr);
      const own = ast === undefined ? EVERYWHERE_INPUTS : variableInputs(ast, byName);
      const key = `${op.name}\u0000${op.value.expr.text}\u0000${own.key}`;
      let variable = keys.get(key);
      if (variable === undefined) {
        keys.set(key, (variable = variableReads.length));
        variableReads.push(own.reads);
        uses.push(0);
      }
      uses[variable]!++;
      byName.set(op.name, { key, reads: own.reads });
      lets.push({ op, variable });
    }
    ruleLets.push(lets);
  }
  if (!uses.some((n) => n >= 2)) return undefined;
  const ruleWrites = policy.rules.map(writesOf);
  const dirtyBefore: number[][] = [];
  let last = new Array<number>(variableReads.length).fill(-1);
  for (let i = 0; i < policy.rules.length; i++) {
    dirtyBefore.push(last);
    last = last.map((before, v) => (placesOverlap(ruleWrites[i]!, variableReads[v]!) ? i : before));
  }
  const plan = new VariableReusePlan(dirtyBefore, variableReads.length);
  ruleLets.forEach((lets, rule) => {
    for (const { op, variable } of lets) sharedLets.set(op, sharedLets.has(op) ? null : { plan, variable, rule });
  });
  return plan;
}

/** The inputs of a variable's expression: its object reads and, through `variables.<name>`, those of the lets before it. */
function variableInputs(ast: Expr, earlier: ReadonlyMap<string, VariableInputs>): VariableInputs {
  const reads = objectReads(ast);
  if (reads === EVERYWHERE) return EVERYWHERE_INPUTS;
  const names = new Set<string>();
  if (!variableSelections(ast, names)) return EVERYWHERE_INPUTS;
  const all = [...reads];
  const keys: string[] = [];
  for (const name of [...names].sort()) {
    const bound = earlier.get(name);
    if (bound === undefined || bound.reads === EVERYWHERE) return EVERYWHERE_INPUTS;
    all.push(...bound.reads);
    keys.push(bound.key);
  }
  return { key: keys.join('\u0001'), reads: all };
}

interface VariableInputs {
  /** What identifies the variables it reads (their own keys). */
  readonly key: string;
  readonly reads: Places;
}

const EVERYWHERE_INPUTS: VariableInputs = { key: '*', reads: EVERYWHERE };

/** Where a rule's ops may write: lets write nothing; MAP's two mutation ops what cel-places.ts finds; anything else (other dialects' ops too), everywhere. */
function writesOf(rule: Rule): Places {
  const out: (readonly string[])[] = [];
  for (const op of rule.body) {
    const w = opWrites(op);
    if (w === EVERYWHERE) return EVERYWHERE;
    out.push(...w);
  }
  return out;
}

function opWrites(op: Op): Places {
  if (op.kind === 'let') return [];
  // kube-apiserver's patchers change nothing but what the patch names (the defaulter aside: see SharedBinding).
  // A MutatingPolicy's webhook result is pruned of undeclared fields anywhere after each patch: not planned.
  if (op.origin.dialect !== 'map') return EVERYWHERE;
  if (op.kind === 'merge' && op.strategy === 'ssa' && op.path.root === 'object' && op.path.segments.length === 0 && op.value.kind === 'cel') {
    const ast = celSyntax(op.value.expr);
    return ast === undefined ? EVERYWHERE : applyConfigurationWrites(ast);
  }
  if (op.kind === 'jsonPatch' && op.steps.length === 0 && op.stepsFrom?.kind === 'cel') {
    const ast = celSyntax(op.stepsFrom.expr);
    return ast === undefined ? EVERYWHERE : jsonPatchWrites(ast);
  }
  return EVERYWHERE;
}

/**
 * The value of a shared variable's lazy let (computed at first read, kept by the let's scope node): the
 * run's value of its variable when that holds; otherwise computed, and left for the rules after.
 */
function sharedValue(shared: SharedLet, compute: ValueFn, st: EvalState, scope: Scope): JsonValue {
  const { plan, variable, rule } = shared;
  // A runtime's defaulter re-defaults the object after every mutation (dispatcher.go), which may write
  // anywhere (an offline input is not defaulted before admission): no value holds past a mutation then.
  const values = st.runtime.defaulter === undefined ? plan.values(st) : undefined;
  if (values !== undefined) {
    const at = values.computedAt[variable]!;
    if (at >= 0 && plan.holds(variable, at, rule)) return values.value[variable]!;
  }
  const v = compute(st, scope);
  if (values !== undefined) {
    values.computedAt[variable] = rule;
    values.value[variable] = v;
  }
  return v;
}

/** The plan's part in `op`, a lazy let, or undefined when no plan shares it. */
export function sharedLetOf(op: LetOp): SharedLet | undefined {
  return sharedLets.get(op) ?? undefined;
}

/** The op of a lazy let a plan shares, or undefined (the ordinary let then). */
export function compileSharedLet(op: LetOp, value: ValueFn): ((st: EvalState, scope: Scope) => Scope) | undefined {
  const shared = sharedLets.get(op);
  if (shared === undefined || shared === null) return undefined;
  const compute = (st: EvalState, scope: Scope): JsonValue => sharedValue(shared, value, st, scope);
  return (st, scope) => scope.withLazy(op.name, compute, st);
}
