/**
 * Lazy bindings no op of their block reads, left out of the generated block (issue 17). A MAP policy's
 * `variables` become lazy lets at the head of every mutation's rule (each mutation sees them evaluated
 * against the object as the mutations before it left it), so most rules bind variables their one
 * expression never names: each binding still cost two objects per rule and request. A lazy binding is
 * evaluated only when read, and its errors surface only there (LetOp.lazy), so one nothing reads does
 * nothing: leaving it out changes no result.
 *
 * The reads are found in the CEL text of the ops after the binding (and of the bindings kept, which may
 * read each other): every `variables.<name>`, in any position. Anything else that could read a binding
 * (a `variables` used whole, another language, a nested block, a value this module does not know) keeps
 * every binding of the block.
 */
import { variableSelections } from '../cel/ast.js';
import type { LetOp, Op, Value } from '../ir/nodes.js';
import { celSyntax } from './cel-syntax.js';

/** Every name any variable read could mean. */
const ALL: unique symbol = Symbol('every variable');
type Reads = Set<string> | typeof ALL;

/** `ops` without the lazy lets nothing after them reads; `ops` itself when every one is read (or reads are unknown). */
export function withoutUnreadLets(ops: readonly Op[]): readonly Op[] {
  if (!ops.some(isLazyLet)) return ops;
  const keep = new Array<boolean>(ops.length).fill(true);
  // Walking back, `read` holds the names the ops after the current one read.
  const read = new Set<string>();
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    if (isLazyLet(op) && !read.has(op.name)) {
      keep[i] = false;
      continue;
    }
    const reads = opReads(op);
    if (reads === ALL) return ops;
    // A let's own name is visible to the ops after it only: an earlier binding of the name is shadowed there.
    if (op.kind === 'let') read.delete(op.name);
    for (const name of reads) read.add(name);
  }
  return keep.every(Boolean) ? ops : ops.filter((_, i) => keep[i]);
}

function isLazyLet(op: Op): op is LetOp {
  return op.kind === 'let' && op.lazy === true;
}

/** The variable names an op may read, or ALL when that cannot be told. */
function opReads(op: Op): Reads {
  switch (op.kind) {
    case 'let':
    case 'set':
    case 'merge':
      return valueReads(op.value);
    case 'remove':
      return new Set();
    case 'jsonPatch': {
      const names = new Set<string>();
      for (const step of op.steps) {
        if (step.value === undefined) continue;
        const r = valueReads(step.value);
        if (r === ALL) return ALL;
        for (const n of r) names.add(n);
      }
      if (op.stepsFrom === undefined) return names;
      const r = valueReads(op.stepsFrom);
      if (r === ALL) return ALL;
      for (const n of r) names.add(n);
      return names;
    }
    default:
      return ALL;
  }
}

function valueReads(v: Value): Reads {
  if (v.kind === 'literal') return new Set();
  if (v.kind !== 'cel') return ALL;
  const syntax = celSyntax(v.expr);
  if (syntax === undefined) return ALL;
  const names = new Set<string>();
  return variableSelections(syntax, names) ? names : ALL;
}
