/**
 * Kyverno's deferred loading (src/dialects/kyverno/deferred-loading.ts) in CEL. Before a query runs, Kyverno
 * loads every context entry its text mentions, and fails the query where a load fails; the CEL reads a
 * variable only where the value is used. A query that mentions an entry it may not read (in the right side of
 * `||` or `&&`, in a projection, a filter or an `&expr`, in a string literal) reads it first here, so that the
 * CEL fails where Kyverno's load fails. The entries a query is sure to read need nothing more.
 */
import type { JmesNode } from '../../jmespath/ast.js';
import { mentions } from '../../dialects/kyverno/deferred-loading.js';
import type { Cx } from './context.js';
import { cond, fail, type Frag } from './frag.js';

/** A query that mentions `images` without surely reading them: the one load the CEL does not make. */
export const IMAGES_MENTIONED =
  "a query mentions `images` where it may not read them: Kyverno extracts them for it (its deferred loading matches the query's text) and fails the query where the extraction fails, where the CEL reads them only where the query does";

/** `f`, the CEL of the query `text` (parsed as `ast`), after reading the context entries Kyverno would load for it. */
export function withDeferredLoads(text: string, ast: JmesNode, f: Frag, cx: Cx): Frag {
  // An apiCall's jmesPath runs on the response alone (apicall.go), not through the context's Query.
  if (cx.scope.document !== undefined) return f;
  const entries = cx.scope.deferred?.() ?? [];
  const imagesMentioned = mentions(text, 'images') && cx.scope.root('images') !== undefined;
  if (entries.length === 0 && !imagesMentioned) return f;
  const sure = surelyRead(ast);
  if (imagesMentioned && !sure.has('images')) cx.notes.add(IMAGES_MENTIONED);
  const reads: string[] = [];
  for (const name of entries) {
    if (sure.has(name) || !mentions(text, name)) continue;
    const b = cx.scope.root(name);
    if (b !== undefined && 'cel' in b && b.cel !== undefined) reads.push(`dyn(${b.cel})`);
  }
  if (reads.length === 0) return f;
  // A list literal evaluates every item: its size is known, and an item that fails fails it.
  return cond(`size([${reads.join(', ')}]) == ${reads.length}`, f, fail('unreachable'), true);
}

/**
 * The root fields a JMESPath evaluation of `ast` against Kyverno's context reads whatever the data: the left
 * side of every operator, every argument of a function, every item of a multi-select (the context is never
 * null), both sides of a comparison; not what runs on a value the query computed (the right of a
 * subexpression, pipe or projection) nor what runs only on some values (the right of `||` and `&&`).
 */
export function surelyRead(ast: JmesNode): Set<string> {
  const out = new Set<string>();
  const visit = (n: JmesNode): void => {
    switch (n.type) {
      case 'Field':
        out.add(n.name);
        return;
      case 'Subexpression':
      case 'IndexExpression':
      case 'Projection':
      case 'ValueProjection':
      case 'FilterProjection':
      case 'Pipe':
      case 'OrExpression':
      case 'AndExpression':
      case 'Flatten':
      case 'NotExpression':
        visit(n.children[0]);
        return;
      case 'Comparator':
        visit(n.children[0]);
        visit(n.children[1]);
        return;
      case 'MultiSelectList':
        n.children.forEach(visit);
        return;
      case 'MultiSelectHash':
        n.children.forEach((c) => visit(c.value));
        return;
      case 'Function':
        for (const c of n.children) if (c.type !== 'ExpressionReference') visit(c);
        return;
      default:
        return;
    }
  };
  visit(ast);
  return out;
}
