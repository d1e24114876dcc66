/** The entry points' shared frame: target capabilities, a fresh context, refusals as results. */
import { parseJmes } from '../../jmespath/parse.js';
import type { JmesNode } from '../../jmespath/ast.js';
import { newCx, type Cx, type JmesCelScope } from './context.js';
import { value } from './expr.js';
import { withDeferredLoads } from './deferred.js';
import { external, tyOf, type Frag } from './frag.js';
import { prettyNames } from './inline.js';
import { cannot, Refused } from './refuse.js';
import { ROOT, valueCur, type Cur } from './scope.js';
import { capsOf, type CelTarget } from './target.js';
import type { Ty } from './types.js';

export type Outcome = { ok: true; cel: string; notes: string[]; type: Ty; mayFail: boolean } | { ok: false; why: string; class: 'cannot' | 'yet' };

/** Runs `build` with a fresh context, turning refusals into results. */
export function run(scope: JmesCelScope, target: CelTarget, build: (cx: Cx) => Frag): Outcome {
  const caps = capsOf(target);
  if (typeof caps === 'string') return { ok: false, why: caps, class: 'cannot' };
  const cx = newCx(scope, caps);
  try {
    const f = build(cx);
    return { ok: true, cel: prettyNames(f.cel), notes: [...cx.notes], type: tyOf(f), mayFail: f.err };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, why: e.why, class: e.cls };
    throw e;
  }
}

/** The AST of a JMESPath expression; a syntax error (Kyverno fails on every evaluation) is refused. */
export function parseOrRefuse(expression: string): JmesNode {
  const p = parseJmes(expression);
  if (!p.ok) cannot(`JMESPath syntax error at column ${p.column} in ${JSON.stringify(expression)}: ${p.message} (Kyverno fails on every evaluation)`);
  return p.ast;
}

/** A JMESPath expression in a context that propagates NotFound (a `{{ }}` body, a foreach list). */
export function expressionFrag(expression: string, cx: Cx): Frag {
  const ast = parseOrRefuse(expression);
  return withDeferredLoads(expression, ast, value(ast, rootOf(cx), 'strict', cx), cx);
}

/** Where an expression starts: Kyverno's context, or the one document the scope queries (JmesCelScope.document). */
function rootOf(cx: Cx): Cur {
  const document = cx.scope.document;
  return document === undefined ? ROOT : valueCur(external(document.cel, document.type));
}

export function compileExpression(expression: string, scope: JmesCelScope, target: CelTarget): Outcome {
  return run(scope, target, (cx) => expressionFrag(expression, cx));
}
