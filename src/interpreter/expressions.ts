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

export function exprScope(st: EvalState, scope: Scope): ExprScope {
  return {
    object: st.object,
    oldObject: st.request.oldObject ?? null,
    request: st.request,
    params: st.request.params ?? null,
    namespaceObject: st.request.namespaceObject ?? null,
    vars: scope.values(),
  };
}

/** Evaluates an opaque expression; an engine error becomes an EvalFailure at the rule boundary. */
export function evalExpr(language: 'cel' | 'jmes', expr: ExprSource, st: EvalState, scope: Scope): JsonValue | undefined {
  const r = compileExpr(language, expr)(exprScope(st, scope));
  if (!r.ok) throw new EvalFailure(r.diagnostic);
  return r.value;
}
