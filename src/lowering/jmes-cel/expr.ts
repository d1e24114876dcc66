/**
 * JMESPath AST → CEL, node by node, following Kyverno's go-jmespath fork as src/jmespath/compile.ts
 * reproduces it. Each node is compiled against the current node (`Cur`) in one of two modes (access.ts):
 * `strict` where a missing key must fail as in Kyverno, `lenient` under the constructs that swallow
 * NotFound into null. A lenient region compiles every sub-expression leniently: a NotFound that would have
 * travelled up to the swallowing construct becomes null at its origin instead, and every construct that
 * propagates NotFound maps null to null (sub-expressions, projections' left sides), so the result is the same.
 */
import type { JmesNode } from '../../jmespath/ast.js';
import { chain, unlessNull, type Mode, type Step } from './access.js';
import type { Cx } from './context.js';
import { bind, cond, frag, tfrag, tyOf, type Frag } from './frag.js';
import { compileCall } from './functions.js';
import { homogeneous, literal } from './literal.js';
import { cannot, yet } from './refuse.js';
import { asValue, fieldOf, isStatic, valueCur, type Cur } from './scope.js';
import { slice } from './slice.js';
import { truthy } from './truthy.js';
import { negate } from './inline.js';
import { comparison, orExpression } from './logic.js';
import { filterProjection, flatten, projection, valueProjection, type NodeCompiler } from './projection.js';
import { join, T } from './types.js';
import { celString } from './frag.js';

/** `a.b[0].c` as steps, when the node is nothing but fields and indexes. */
function steps(node: JmesNode): Step[] | undefined {
  switch (node.type) {
    case 'Field':
      return [{ kind: 'field', name: node.name }];
    case 'Index':
      return [{ kind: 'index', index: node.value }];
    case 'Current':
    case 'Identity':
      return [];
    case 'Subexpression':
    case 'IndexExpression': {
      const l = steps(node.children[0]);
      const r = l && steps(node.children[1]);
      return l && r ? [...l, ...r] : undefined;
    }
    default:
      return undefined;
  }
}

/** Nodes that yield null, without failing, when their current node is null. */
export function nullSafe(node: JmesNode): boolean {
  switch (node.type) {
    case 'Field':
    case 'Index':
    case 'Slice':
    case 'Identity':
    case 'Current':
    case 'MultiSelectList':
    case 'MultiSelectHash':
    case 'Flatten':
    case 'ValueProjection':
      return true;
    case 'Subexpression':
    case 'IndexExpression':
    case 'Projection':
    case 'FilterProjection':
      return nullSafe(node.children[0]);
    default:
      return false;
  }
}

export function compileCur(node: JmesNode, cur: Cur, mode: Mode, cx: Cx): Cur {
  switch (node.type) {
    case 'Identity':
    case 'Current':
      return cur;
    case 'Field':
      return fieldOf(cur, node.name, mode, cx);
    case 'Subexpression':
    case 'IndexExpression': {
      const path = steps(node);
      if (path) return applySteps(cur, path, mode, cx);
      const left = compileCur(node.children[0], cur, mode, cx);
      const right = node.children[1];
      if (isStatic(left)) return compileCur(right, left, mode, cx);
      const l = asValue(left, cx);
      return valueCur(
        bind(l, cx.names, (v) => {
          const r = value(right, valueCur(v), mode, cx);
          return nullSafe(right) ? r : unlessNull(v, r);
        }),
      );
    }
    case 'Pipe': {
      // interpreter.go ASTPipe: a NotFound in either stage becomes null and evaluation continues.
      const left = compileCur(node.children[0], cur, 'lenient', cx);
      if (isStatic(left)) return compileCur(node.children[1], left, 'lenient', cx);
      return valueCur(bind(asValue(left, cx), cx.names, (v) => value(node.children[1], valueCur(v), 'lenient', cx)));
    }
    default:
      return valueCur(compileValue(node, cur, mode, cx));
  }
}

function applySteps(cur: Cur, path: Step[], mode: Mode, cx: Cx): Cur {
  let c = cur;
  let i = 0;
  for (; i < path.length; i++) {
    const s = path[i]!;
    if (s.kind !== 'field' || !isStatic(c)) break;
    c = fieldOf(c, s.name, mode, cx);
  }
  if (i === path.length) return c;
  return valueCur(chain(asValue(c, cx), path.slice(i), mode, cx));
}

export function value(node: JmesNode, cur: Cur, mode: Mode, cx: Cx): Frag {
  return asValue(compileCur(node, cur, mode, cx), cx);
}

/**
 * The operand of a flatten, filter or value projection, whose errors the fork turns into null: a function
 * call there yields null on a signature mismatch (soft), and anything else must not fail at all.
 */
function swallowingOperand(node: JmesNode, cur: Cur, cx: Cx, construct: string): Frag {
  const f = node.type === 'Function' ? compileCall(node, cur, cx, { value: (n, c) => value(n, c, 'lenient', cx) }, true) : value(node, cur, 'lenient', cx);
  return errorFree(f, construct);
}

/** What the projections (projection.ts) compile their operands with. */
const COMPILER: NodeCompiler = {
  value: (node, cur, mode, cx) => value(node, cur, mode, cx),
  swallowing: (node, cur, cx, construct) => swallowingOperand(node, cur, cx, construct),
  nullSafe,
};

/** The fork's flatten, filter and value projections turn *every* error of their left side into null. */
function errorFree(f: Frag, construct: string): Frag {
  if (f.err) cannot(`${construct} turns any error of its operand into null in Kyverno (go-jmespath returns nil, nil), and CEL cannot catch errors; the operand here may fail`);
  return f;
}

function compileValue(node: JmesNode, cur: Cur, mode: Mode, cx: Cx): Frag {
  switch (node.type) {
    case 'Literal':
      if (typeof node.value === 'string') {
        const spliced = cx.dynamicStrings?.get(node.value);
        if (spliced !== undefined) return spliced;
      }
      return literal(node.value);
    case 'Index':
      return chain(asValue(cur, cx), [{ kind: 'index', index: node.value }], mode, cx);
    case 'Slice':
      return slice(asValue(cur, cx), node.children, cx);
    case 'Projection':
      return projection(node, cur, cx, COMPILER);
    case 'Flatten':
      return flatten(node, cur, cx, COMPILER);
    case 'ValueProjection':
      return valueProjection(node, cur, cx, COMPILER);
    case 'FilterProjection':
      return filterProjection(node, cur, cx, COMPILER);
    case 'OrExpression': {
      // (a || b) || c is a || (b || c): the first truthy of a, b, c, evaluated in the same order.
      const [l, r] = node.children;
      if (l.type === 'OrExpression') return compileValue({ ...l, children: [l.children[0], { ...node, children: [l.children[1], r] }] }, cur, mode, cx);
      return orExpression(value(l, cur, 'lenient', cx), value(r, cur, 'lenient', cx), cx);
    }
    case 'AndExpression': {
      // interpreter.go ASTAndExpression: the left side swallows NotFound, the right side propagates it.
      const a = value(node.children[0], cur, 'lenient', cx);
      const b = value(node.children[1], cur, mode, cx);
      return bind(a, cx.names, (x) => cond(truthy(x, cx).cel, b, x));
    }
    case 'NotExpression': {
      const a = value(node.children[0], cur, 'lenient', cx);
      const t = truthy(a, cx);
      return frag(negate(t.cel), 'bool', { err: t.err });
    }
    case 'Comparator':
      return comparison(node.name, value(node.children[0], cur, 'lenient', cx), value(node.children[1], cur, 'lenient', cx), cx);
    case 'MultiSelectList':
      return multiselect(cur, cx, (c) => {
        const items = node.children.map((n) => value(n, c, 'lenient', cx));
        const list = (xs: Frag[]): Frag => tfrag(`[${homogeneous(xs).join(', ')}]`, T.list(xs.map(tyOf).reduce(join, xs.length === 0 ? T.dyn : tyOf(xs[0]!))), { atom: true, err: xs.some((f) => f.err) });
        // Where a function refuses a null item, items that fail where they would be null do as well.
        const strict = items.map((f) => f.orFail ?? f);
        return { ...list(items), itemsOrFail: list(strict) };
      });
    case 'MultiSelectHash':
      return multiselect(cur, cx, (c) => {
        const vals = node.children.map((p) => value(p.value, c, 'lenient', cx));
        const texts = homogeneous(vals);
        const body = node.children.map((p, i) => `${celString(p.name)}: ${texts[i]}`).join(', ');
        // Every key is there (a missing value is null), each holding its value's type.
        const names = node.children.map((p) => p.name);
        const ty = T.struct(Object.fromEntries(names.map((n, i) => [n, tyOf(vals[i]!)])), names);
        return tfrag(`{${body}}`, ty, { atom: true, err: vals.some((f) => f.err) });
      });
    case 'Function':
      return compileCall(node, cur, cx, { value: (n, c) => value(n, c, 'lenient', cx) });
    case 'ExpressionReference':
      return yet('an expression reference (`&expr`) outside the arguments of sort_by/min_by/max_by/map has no value');
    default:
      return asValue(compileCur(node, cur, mode, cx), cx);
  }
}

/** go-jmespath multiselects yield null when the current node is null. */
function multiselect(cur: Cur, cx: Cx, build: (c: Cur) => Frag): Frag {
  if (isStatic(cur)) return build(cur);
  return bind(asValue(cur, cx), cx.names, (v) => unlessNull(v, build(valueCur(v))));
}

