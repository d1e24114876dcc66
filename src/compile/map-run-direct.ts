/**
 * The CEL of a run of MAP mutations evaluated against one activation for the whole run (issue 17). Rule by
 * rule, the interpreter builds each expression a scope view, the engine an activation and a `variables` view
 * of the scope, and each mutation binds the policy's variables again as lazy lets (scope.ts LazyScope), read
 * through the reuse plan (variable-reuse.ts): together about as much as the expressions themselves. Here the
 * engine makes one activation per run (DirectEngine), the object is set in it before each mutation, and the
 * variables are the run's own slots, computed at first read and kept as the lazy lets and the reuse plan keep
 * them:
 * - a value computed for a mutation holds for the rest of that mutation (the lazy binding's cache);
 * - a variable the reuse plan shares holds for a later mutation when the plan says so (VariableReusePlan.holds),
 *   otherwise it is computed again;
 * - a failed evaluation is not kept: the next read evaluates again, and the failure is the reading
 *   expression's ("composited variable ... fails to evaluate", as engines/cel.ts readVariable words it).
 *
 * A mutation is taken when its expression and every variable it reads have a direct form (plain
 * `variables.<name>` selections, engines/cel.ts) and each variable reads only those bound before it; the
 * others run their lets and expression as before (map-rule-runs.ts). test/compile/map-rule-runs.test.ts
 * compares runs with the closure interpreter.
 */
import { DirectFailure, type DirectActivation, type DirectExpr, type DirectReads, type DirectVariables, type ExpressionEngine, type ExprOutcome } from '../interpreter/engines.js';
import { directExpr, expressionEnvironment, exprScope } from '../interpreter/expressions.js';
import { EvalFailure } from '../interpreter/failure.js';
import type { Scope } from '../interpreter/scope.js';
import type { EvalState } from '../interpreter/state.js';
import { noValueFailure } from '../interpreter/values.js';
import type { JsonValue } from '../ir/json.js';
import type { LetOp, Value } from '../ir/nodes.js';
import type { ExpressionEnvironment, Runtime } from '../runtime/runtime.js';
import { sharedLetOf, type SharedLet } from './variable-reuse.js';

type CelValue = Extract<Value, { kind: 'cel' }>;

/** A mutation as a direct run reads it: the CEL value of its op and the lazy lets that value reads, in order. */
export interface DirectRuleSource {
  readonly value: CelValue;
  readonly lets: readonly LetOp[];
}

/** A variable bound by one mutation. */
interface DirectBinding {
  readonly expr: DirectExpr;
  readonly value: CelValue;
  /** The run's slot of its value: the reuse plan's variable when shared, else a slot of this binding's own. */
  readonly slot: number;
  /** What the slot records for a value computed here: the plan's rule index when shared, else the run's. */
  readonly rule: number;
  readonly shared: SharedLet | undefined;
}

/** A mutation a direct run takes: its op's expression and, per name of the run, its binding. */
interface DirectRule {
  readonly expr: DirectExpr;
  readonly value: CelValue;
  readonly bindings: readonly (DirectBinding | undefined)[];
}

/** What the run's mutations need of one engine. */
class DirectRunPlan {
  constructor(
    readonly engine: ExpressionEngine,
    /** Every variable name bound in the run (the `names` of its activations). */
    readonly names: readonly string[],
    readonly reads: DirectReads,
    /** Per mutation of the run, or undefined where it is left to its lets and op. */
    readonly rules: readonly (DirectRule | undefined)[],
    readonly slotCount: number,
  ) {}
}

interface PendingBinding {
  readonly name: string;
  readonly expr: DirectExpr;
  readonly value: CelValue;
  readonly shared: SharedLet | undefined;
}

/** The plan of `sources` (per mutation of the run) in `engine`, or undefined when it takes none. */
function makePlan(engine: ExpressionEngine, sources: readonly (DirectRuleSource | undefined)[]): DirectRunPlan | undefined {
  const names: string[] = [];
  const reads = { params: false, request: false, namespace: false };
  const rules = sources.map((source) => {
    const taken = source === undefined ? undefined : directRule(engine, source);
    if (taken === undefined) return undefined;
    for (const e of [taken.expr, ...taken.lets.map((b) => b.expr)]) {
      reads.params ||= e.reads.params;
      reads.request ||= e.reads.request;
      reads.namespace ||= e.reads.namespace;
    }
    for (const b of taken.lets) if (!names.includes(b.name)) names.push(b.name);
    return taken;
  });
  if (rules.every((r) => r === undefined)) return undefined;
  // One reuse plan per policy: its variables are the first slots, each other binding gets one of its own.
  const plan = rules.flatMap((r) => r?.lets ?? []).find((b) => b.shared !== undefined)?.shared?.plan;
  let slotCount = plan?.variableCount ?? 0;
  const made = rules.map((r, ruleIndex): DirectRule | undefined => {
    if (r === undefined) return undefined;
    const bindings = new Array<DirectBinding | undefined>(names.length).fill(undefined);
    for (const b of r.lets) {
      const shared = b.shared !== undefined && b.shared.plan === plan ? b.shared : undefined;
      const slot = shared !== undefined ? shared.variable : slotCount++;
      bindings[names.indexOf(b.name)] = { expr: b.expr, value: b.value, slot, rule: shared !== undefined ? shared.rule : ruleIndex, shared };
    }
    return { expr: r.expr, value: r.value, bindings };
  });
  return new DirectRunPlan(engine, names, reads, made, slotCount);
}

/** A mutation's expression and lets in their direct forms, or undefined when one is missing or reads out of order. */
function directRule(engine: ExpressionEngine, source: DirectRuleSource): { expr: DirectExpr; value: CelValue; lets: PendingBinding[] } | undefined {
  const bound = new Set<string>();
  const lets: PendingBinding[] = [];
  for (const op of source.lets) {
    if (op.value.kind !== 'cel' || bound.has(op.name)) return undefined;
    const expr = directExpr(engine, op.value.expr);
    if (expr === undefined || !expr.variables.every((n) => bound.has(n))) return undefined;
    bound.add(op.name);
    lets.push({ name: op.name, expr, value: op.value, shared: sharedLetOf(op) });
  }
  const expr = directExpr(engine, source.value.expr);
  if (expr === undefined || !expr.variables.every((n) => bound.has(n))) return undefined;
  return { expr, value: source.value, lets };
}

/** The direct plans of one run's mutations, made per engine (the last one kept: runs almost always meet one). */
export class DirectRunPlans {
  private readonly environment: ExpressionEnvironment | undefined;
  private readonly sources: readonly (DirectRuleSource | undefined)[];
  private lastEngine: ExpressionEngine | undefined;
  private lastPlan: DirectRunPlan | undefined;

  constructor(sources: readonly (DirectRuleSource | undefined)[]) {
    const first = sources.find((s) => s !== undefined);
    const environment = first === undefined ? undefined : expressionEnvironment('cel', first.value.expr);
    this.environment = environment;
    // One engine evaluates the run: a mutation of another environment is left to its op.
    this.sources = sources.map((s) => (s !== undefined && expressionEnvironment('cel', s.value.expr) === environment ? s : undefined));
  }

  /** The plan for `runtime`'s engine, or undefined when it offers no direct evaluation or takes no mutation. */
  planFor(runtime: Runtime): DirectRunPlan | undefined {
    if (this.environment === undefined) return undefined;
    const engine = runtime.expressions[this.environment];
    if (engine !== this.lastEngine) {
      this.lastEngine = engine;
      this.lastPlan = engine?.direct === undefined ? undefined : makePlan(engine, this.sources);
    }
    return this.lastPlan;
  }
}

/** One evaluation's run: its activation and variable slots. */
export class DirectRun implements DirectVariables {
  private rule: DirectRule | undefined;
  private readonly outcomes: (ExprOutcome | undefined)[];
  /** Per slot, the rule (DirectBinding.rule) its outcome was computed at, or -1. */
  private readonly at: number[];
  private readonly act: DirectActivation;

  constructor(
    private readonly plan: DirectRunPlan,
    st: EvalState,
    scope: Scope,
  ) {
    const n = plan.slotCount;
    this.outcomes = new Array<ExprOutcome | undefined>(n);
    this.at = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      this.outcomes[i] = undefined;
      this.at[i] = -1;
    }
    this.act = plan.engine.direct!.activation(exprScope(st, scope), plan.names, this, plan.reads);
  }

  /** Whether the run's mutation `r` is taken here. */
  takes(r: number): boolean {
    return this.plan.rules[r] !== undefined;
  }

  /** The value of mutation `r`'s op (taken) over `object`, or its EvalFailure, as its lets and expression would give. */
  evaluate(r: number, object: JsonValue | null): JsonValue {
    const rule = this.plan.rules[r]!;
    this.rule = rule;
    this.act.setObject(object);
    const value = rule.expr.value(this.act);
    this.rule = undefined;
    if (value instanceof DirectFailure) throw new EvalFailure(value.outcome.diagnostic);
    if (value === undefined) throw noValueFailure(rule.value);
    return value;
  }

  variable(i: number): ExprOutcome {
    const b = this.rule?.bindings[i];
    // The plan takes only expressions reading names their mutation binds.
    if (b === undefined) throw new Error(`transmute: variable ${this.plan.names[i]} read outside the mutations binding it`);
    const slot = b.slot;
    const at = this.at[slot]!;
    if (at === b.rule || (at >= 0 && b.shared !== undefined && b.shared.plan.holds(b.shared.variable, at, b.rule))) return this.outcomes[slot]!;
    const out = b.expr.evaluate(this.act);
    if (!out.ok) return out;
    if (out.value === undefined) return { ok: false, diagnostic: noValueFailure(b.value).diagnostic };
    this.outcomes[slot] = out;
    this.at[slot] = b.rule;
    return out;
  }
}
