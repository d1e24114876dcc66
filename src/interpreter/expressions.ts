import type { JsonValue } from '../ir/json.js';
import type { ExprSource } from '../ir/nodes.js';
import { expressionEngine, type CompiledExpr, type ExprScope } from './engines.js';
import { EvalFailure, evalFailure } from './failure.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';

const compiled = new WeakMap<ExprSource, CompiledExpr>();

/** Compiles an opaque expression once (cached per IR node) with the registered engine for its language. */
export function compileExpr(language: 'cel' | 'jmes', expr: ExprSource): CompiledExpr {
  const hit = compiled.get(expr);
  if (hit) return hit;
  const engine = expressionEngine(language);
  let fn: CompiledExpr;
  if (!engine) {
    const failure = evalFailure('TM3005', `no ${language === 'cel' ? 'CEL' : 'JMESPath'} engine is available to evaluate: ${expr.text}`, expr.origin);
    fn = () => ({ ok: false, diagnostic: failure.diagnostic });
  } else {
    const r = engine.compile(expr);
    if (r.ok) fn = r.fn;
    else {
      const first = r.diagnostics[0]!;
      fn = () => ({ ok: false, diagnostic: first });
    }
  }
  compiled.set(expr, fn);
  return fn;
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
  private allVars: Record<string, JsonValue> | undefined;

  constructor(
    st: EvalState,
    private readonly scope: Scope,
  ) {
    this.object = st.object;
    this.request = st.request;
    this.oldObject = st.request.oldObject ?? null;
    this.params = st.request.params ?? null;
    this.namespaceObject = st.request.namespaceObject ?? null;
  }

  get vars(): Record<string, JsonValue> {
    return (this.allVars ??= this.scope.values());
  }

  lookup(name: string): { readonly value: JsonValue } | undefined {
    return this.scope.lookup(name);
  }
}

export function exprScope(st: EvalState, scope: Scope): ExprScope {
  return new StateExprScope(st, scope);
}

/** Evaluates an opaque expression; an engine error becomes an EvalFailure at the rule boundary. */
export function evalExpr(language: 'cel' | 'jmes', expr: ExprSource, st: EvalState, scope: Scope): JsonValue | undefined {
  const r = compileExpr(language, expr)(exprScope(st, scope));
  if (!r.ok) throw new EvalFailure(r.diagnostic);
  return r.value;
}
