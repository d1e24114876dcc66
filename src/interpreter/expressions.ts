import type { JsonValue } from '../ir/json.js';
import type { ExprSource } from '../ir/nodes.js';
import type { ExpressionEnvironment, Runtime } from '../runtime/runtime.js';
import type { CompiledExpr, DirectExpr, ExprScope, ExpressionEngine } from './engines.js';
import { EvalFailure, evalFailure } from './failure.js';
import type { Scope } from './scope.js';
import { evalMemo, type EvalState } from './state.js';

/**
 * The environment an expression of `language` is compiled in. The IR does not record it yet (issue 12, item
 * 3): a MutatingPolicy's CEL is compiled in Kyverno's environment (mpol/compiler/compiler.go), every other CEL
 * in kube-apiserver's, and JMESPath is Kyverno's.
 */
export function expressionEnvironment(language: 'cel' | 'jmes', expr: ExprSource): ExpressionEnvironment {
  if (language === 'jmes') return 'jmespath-kyverno';
  return expr.origin.dialect === 'kyverno-mpol' ? 'cel-kyverno' : 'cel-kubernetes';
}

/** An expression compiled by one engine: its program, and its direct form where the engine offers one. */
interface Compiled {
  readonly fn: CompiledExpr;
  readonly direct: DirectExpr | undefined;
}

/** Compiled expressions, per engine (runtimes that share an engine share its programs) and per IR node. */
const compiledByEngine = new WeakMap<ExpressionEngine, WeakMap<ExprSource, Compiled>>();

function compiledWith(engine: ExpressionEngine, expr: ExprSource): Compiled {
  let compiled = compiledByEngine.get(engine);
  if (!compiled) compiledByEngine.set(engine, (compiled = new WeakMap()));
  const hit = compiled.get(expr);
  if (hit) return hit;
  const r = engine.compile(expr);
  let made: Compiled;
  if (r.ok) made = { fn: r.fn, direct: r.direct };
  else {
    const first = r.diagnostics[0]!;
    made = { fn: () => ({ ok: false, diagnostic: first }), direct: undefined };
  }
  compiled.set(expr, made);
  return made;
}

function compileWith(engine: ExpressionEngine, expr: ExprSource): CompiledExpr {
  return compiledWith(engine, expr).fn;
}

/** `expr` compiled by `engine` for evaluations against a kept activation (DirectExpr), where the engine offers that. */
export function directExpr(engine: ExpressionEngine, expr: ExprSource): DirectExpr | undefined {
  return compiledWith(engine, expr).direct;
}

/** Compiles an opaque expression once per engine with the runtime's engine for its environment. */
export function compileExpr(language: 'cel' | 'jmes', expr: ExprSource, runtime: Runtime): CompiledExpr {
  const engine = runtime.expressions[expressionEnvironment(language, expr)];
  if (engine) return compileWith(engine, expr);
  const failure = evalFailure('TM3005', `no ${language === 'cel' ? 'CEL' : 'JMESPath'} engine is available to evaluate: ${expr.text}`, expr.origin);
  return () => ({ ok: false, diagnostic: failure.diagnostic });
}

/**
 * An expression's view of the state. `vars` is built on first read: an engine that looks variables up by
 * name (the CEL engine) never pays for a record of every binding in scope.
 */
class StateExprScope implements ExprScope {
  readonly object: JsonValue | null;
  readonly oldObject: JsonValue | null;
  readonly request: EvalState['request'];
  readonly params: JsonValue | null;
  readonly namespaceObject: JsonValue | null;
  readonly runtime: Runtime;
  private allVars: Record<string, JsonValue> | undefined;

  constructor(
    private readonly st: EvalState,
    private readonly scope: Scope,
  ) {
    this.object = st.object;
    this.request = st.request;
    this.oldObject = st.request.oldObject ?? null;
    this.params = st.request.params ?? null;
    this.namespaceObject = st.request.namespaceObject ?? null;
    this.runtime = st.runtime;
  }

  get memo(): EvalState['memo'] {
    return evalMemo(this.st);
  }

  get imagesSource(): JsonValue | null {
    return this.st.imagesSource;
  }

  get vars(): Record<string, JsonValue> {
    return (this.allVars ??= this.scope.values());
  }

  lookup(name: string): { readonly value: JsonValue } | undefined {
    return this.scope.lookup(name);
  }

  loadLazy(wanted: (name: string) => boolean): void {
    this.scope.loadLazy(wanted);
  }
}

export function exprScope(st: EvalState, scope: Scope): ExprScope {
  return new StateExprScope(st, scope);
}

/** An opaque expression evaluated against the state; an engine error becomes an EvalFailure at the rule boundary. */
export type ExprEvaluator = (st: EvalState, scope: Scope) => JsonValue | undefined;

/**
 * One IR expression's compiled form for the runtime of each evaluation. It finds the engine in the runtime and
 * keeps the program of the last engine it met: consecutive evaluations almost always run with the same engine.
 * A class, so that its callers' code calls the engine's program directly (closures around closures would put a
 * call that V8 sees with every expression's target between them).
 */
export class ExprProgram {
  private readonly environment: ExpressionEnvironment;
  private lastEngine: ExpressionEngine | undefined;
  private lastFn: CompiledExpr | undefined;

  constructor(
    private readonly language: 'cel' | 'jmes',
    private readonly expr: ExprSource,
  ) {
    this.environment = expressionEnvironment(language, expr);
  }

  /** The compiled expression to run with `runtime`. */
  fnFor(runtime: Runtime): CompiledExpr {
    const engine = runtime.expressions[this.environment];
    const fn = this.lastFn;
    if (engine === this.lastEngine && fn !== undefined) return fn;
    const compiled = engine ? compileWith(engine, this.expr) : compileExpr(this.language, this.expr, runtime);
    this.lastEngine = engine;
    this.lastFn = compiled;
    return compiled;
  }

  /** The expression's value in the state; an engine error becomes an EvalFailure at the rule boundary. */
  evaluate(st: EvalState, scope: Scope): JsonValue | undefined {
    const r = this.fnFor(st.runtime)(exprScope(st, scope));
    if (!r.ok) throw new EvalFailure(r.diagnostic);
    return r.value;
  }
}

/** The evaluator of one IR expression (ExprProgram.evaluate as a function). */
export function exprEvaluator(language: 'cel' | 'jmes', expr: ExprSource): ExprEvaluator {
  const program = new ExprProgram(language, expr);
  return (st, scope) => program.evaluate(st, scope);
}

/** Evaluates an opaque expression once (uncached lookups); prefer exprEvaluator in compiled code. */
export function evalExpr(language: 'cel' | 'jmes', expr: ExprSource, st: EvalState, scope: Scope): JsonValue | undefined {
  const r = compileExpr(language, expr, st.runtime)(exprScope(st, scope));
  if (!r.ok) throw new EvalFailure(r.diagnostic);
  return r.value;
}
