/**
 * The syntax tree of an IR CEL expression, parsed once for the compile-time analyses that read it
 * (unread-lets.ts, variable-reuse.ts, apply-template.ts: a MAP mutation's text is read by all three), or
 * undefined when it does not parse: the expression engine reports that when the expression is evaluated.
 */
import type { Expr } from '../cel/ast.js';
import { parse } from '../cel/program.js';
import type { ExprSource } from '../ir/nodes.js';

const syntaxes = new WeakMap<ExprSource, Expr | null>();

export function celSyntax(expr: ExprSource): Expr | undefined {
  let syntax = syntaxes.get(expr);
  if (syntax === undefined) {
    const r = parse(expr.text);
    syntaxes.set(expr, (syntax = r.ok ? r.value : null));
  }
  return syntax ?? undefined;
}
