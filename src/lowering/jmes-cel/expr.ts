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
import { bind, bindAll, cond, dyn, frag, NULL, op, typeIs, type Frag } from './frag.js';
import { compileCall } from './functions.js';
import { homogeneous, literal } from './literal.js';
import { cannot, yet } from './refuse.js';
import { asValue, fieldOf, isStatic, valueCur, type Cur } from './scope.js';
import { slice } from './slice.js';
import { truthy } from './truthy.js';
import { celString } from './frag.js';

/** `a.b[0].c` as steps, when the node is nothing but fields and indexes. */
function steps(node: JmesNode): Step[] | undefined {
  switch (node.type) {
    case 'Field':
      return [{ kind: 'field', name: node.name }];
    case 'Index':
      return [{ kind: 'index', index: node.value }];
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
function nullSafe(node: JmesNode): boolean {
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

/** The fork's flatten, filter and value projections turn *every* error of their left side into null. */
function errorFree(f: Frag, construct: string): Frag {
  if (f.err) cannot(`${construct} turns any error of its operand into null in Kyverno (go-jmespath returns nil, nil), and CEL cannot catch errors; the operand here may fail`);
  return f;
}

function compileValue(node: JmesNode, cur: Cur, mode: Mode, cx: Cx): Frag {
  switch (node.type) {
    case 'Literal':
      return literal(node.value);
    case 'Index':
      return chain(asValue(cur, cx), [{ kind: 'index', index: node.value }], mode, cx);
    case 'Slice':
      return slice(asValue(cur, cx), node.children, cx);
    case 'Projection':
      return projection(node, cur, cx);
    case 'Flatten': {
      if (!cx.caps.listsExt) cannot(`flatten (\`[]\`) needs ext.Lists flatten(), which Kubernetes CEL has from 1.34 (target 1.${cx.caps.minor})`);
      const l = swallowingOperand(node.children[0], cur, cx, 'Flatten (`[]`)');
      return bind(l, cx.names, (v) => (v.t === 'list' ? frag(`${v.cel}.flatten()`, 'list', { atom: true }) : cond(typeIs.list(v), frag(`${v.cel}.flatten()`, 'list', { atom: true }), NULL)));
    }
    case 'ValueProjection':
      return valueProjection(node, cur, cx);
    case 'FilterProjection':
      return filterProjection(node, cur, cx);
    case 'OrExpression': {
      const a = value(node.children[0], cur, 'lenient', cx);
      const b = value(node.children[1], cur, 'lenient', cx);
      return bind(a, cx.names, (x) => cond(truthy(x, cx).cel, x, b));
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
      return frag(`!${t.atom ? t.cel : `(${t.cel})`}`, 'bool', { err: t.err, atom: true });
    }
    case 'Comparator':
      return comparator(node, cur, cx);
    case 'MultiSelectList':
      return multiselect(cur, cx, (c) => {
        const items = node.children.map((n) => value(n, c, 'lenient', cx));
        return frag(`[${homogeneous(items).join(', ')}]`, 'list', { atom: true, err: items.some((f) => f.err) });
      });
    case 'MultiSelectHash':
      return multiselect(cur, cx, (c) => {
        const vals = node.children.map((p) => value(p.value, c, 'lenient', cx));
        const texts = homogeneous(vals);
        const body = node.children.map((p, i) => `${celString(p.name)}: ${texts[i]}`).join(', ');
        return frag(`{${body}}`, 'map', { atom: true, err: vals.some((f) => f.err) });
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

function comparator(node: Extract<JmesNode, { type: 'Comparator' }>, cur: Cur, cx: Cx): Frag {
  const l = value(node.children[0], cur, 'lenient', cx);
  const r = value(node.children[1], cur, 'lenient', cx);
  if (node.name === 'EQ' || node.name === 'NE') {
    // CEL == is JSON deep equality here: heterogeneous values are unequal, 1 == 1.0, lists and maps deep.
    const opText = node.name === 'EQ' ? '==' : '!=';
    const same = l.t === r.t && l.t !== 'dyn' && l.t !== 'null' && l.t !== 'list' && l.t !== 'map';
    return frag(`${same ? op(l) : dyn(l)} ${opText} ${same ? op(r) : dyn(r)}`, 'bool', { err: l.err || r.err });
  }
  const opText = { LT: '<', LTE: '<=', GT: '>', GTE: '>=' }[node.name];
  // go-jmespath orders numbers only; anything else compares to null. Both sides are evaluated first.
  return bindAll([l, r], cx.names, ([a, b]) => {
    const numeric = (f: Frag): boolean | undefined => (f.t === 'int' || f.t === 'double' ? true : f.t === 'dyn' ? undefined : false);
    const na = numeric(a!);
    const nb = numeric(b!);
    if (na === false || nb === false) return NULL;
    const cmp = frag(`${a!.atom ? a!.cel : `(${a!.cel})`} ${opText} ${b!.atom ? b!.cel : `(${b!.cel})`}`, 'bool');
    const tests = [na ? '' : typeIs.number(a!), nb ? '' : typeIs.number(b!)].filter((t) => t !== '');
    return tests.length === 0 ? cmp : cond(tests.join(' && '), cmp, NULL);
  });
}

function projectItems(list: Frag, right: JmesNode, cx: Cx): Frag {
  const x = cx.names.fresh('x');
  const y = cx.names.fresh('y');
  if (right.type === 'Identity' || right.type === 'Current') return frag(`${list.cel}.filter(${y}, type(${y}) != null_type)`, 'list', { atom: true });
  const r = value(right, valueCur(frag(x, 'dyn', { simple: true, atom: true })), 'lenient', cx);
  return frag(`${list.cel}.map(${x}, ${r.cel}).filter(${y}, type(${y}) != null_type)`, 'list', { atom: true, err: r.err });
}

function projection(node: Extract<JmesNode, { type: 'Projection' }>, cur: Cur, cx: Cx): Frag {
  const [leftNode, rightNode] = node.children;
  // interpreter.go ASTProjection: `s[a:b]` on a string is the sliced string itself.
  const allowString = leftNode.type === 'IndexExpression' && leftNode.children[1].type === 'Slice';
  const l = value(leftNode, cur, 'lenient', cx);
  return bind(l, cx.names, (v) => {
    if (v.t === 'list') return projectItems(v, rightNode, cx);
    const other = allowString ? (v.t === 'string' ? v : v.t === 'dyn' ? cond(typeIs.string(v), v, NULL) : NULL) : NULL;
    if (v.t !== 'dyn') return other;
    return cond(typeIs.list(v), projectItems(v, rightNode, cx), other);
  });
}

function valueProjection(node: Extract<JmesNode, { type: 'ValueProjection' }>, cur: Cur, cx: Cx): Frag {
  const [leftNode, rightNode] = node.children;
  // interpreter.go ASTValueProjection collects len(map) nils before the values and projects them too:
  // exact only when the right side maps null to null.
  if (!nullSafe(rightNode)) yet('a value projection (`*`) whose right side may turn null into a value: Kyverno projects len(map) extra nulls through it');
  cx.notes.add('`*` and values() list map values in an unspecified order in Kyverno (Go map iteration is random); the CEL lists them in the map\'s iteration order');
  const l = swallowingOperand(leftNode, cur, cx, 'A value projection (`*`)');
  return bind(l, cx.names, (v) => {
    const k = cx.names.fresh('k');
    const x = cx.names.fresh('x');
    const y = cx.names.fresh('y');
    const r = rightNode.type === 'Identity' ? frag(x, 'dyn', { simple: true, atom: true }) : value(rightNode, valueCur(frag(x, 'dyn', { simple: true, atom: true })), 'lenient', cx);
    const items = frag(`${v.cel}.transformList(${k}, ${x}, ${r.cel}).filter(${y}, type(${y}) != null_type)`, 'list', { atom: true, err: r.err });
    if (v.t === 'map') return items;
    if (v.t !== 'dyn') return NULL;
    return cond(typeIs.map(v), items, NULL);
  });
}

function filterProjection(node: Extract<JmesNode, { type: 'FilterProjection' }>, cur: Cur, cx: Cx): Frag {
  const [leftNode, rightNode, condNode] = node.children;
  const l = swallowingOperand(leftNode, cur, cx, 'A filter projection (`[?...]`)');
  return bind(l, cx.names, (v) => {
    const x = cx.names.fresh('x');
    const c = truthy(value(condNode, valueCur(frag(x, 'dyn', { simple: true, atom: true })), 'lenient', cx), cx);
    const kept = frag(`${v.cel}.filter(${x}, ${c.cel})`, 'list', { atom: true, err: c.err });
    const items = projectItems(kept, rightNode, cx);
    const out = { ...items, err: items.err || kept.err };
    if (v.t === 'list') return out;
    if (v.t !== 'dyn') return NULL;
    return cond(typeIs.list(v), out, NULL);
  });
}
