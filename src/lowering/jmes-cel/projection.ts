/**
 * Projections (`l[*].f`, `l[?c].f`, `m.*.f`) and flatten (`l[]`), as go-jmespath evaluates them: over a list
 * (a map for `*`), null otherwise, nulls dropped from the results. A typed operand needs no type test: an
 * optional path to a list is one where present, a nullable list where not null; items of a known type are
 * projected with `map(x, has(x.f), x.f)`; a list whose items are not lists is its own flattening.
 */
import type { JmesNode } from '../../jmespath/ast.js';
import type { Mode } from './access.js';
import type { Cx } from './context.js';
import { bind, cond, NULL, onlyIf, op, tfrag, tyOf, typeIs, withTy, type Frag } from './frag.js';
import { cannot, yet } from './refuse.js';
import { valueCur, type Cur } from './scope.js';
import { presentValue, truthy } from './truthy.js';
import { mayBeNull, nonNull, T, type Ty } from './types.js';

/** How the projections compile their operands (expr.ts), passed in so that this file does not import it. */
export interface NodeCompiler {
  value(node: JmesNode, cur: Cur, mode: Mode, cx: Cx): Frag;
  /** The operand of a flatten, filter or value projection, which must not fail (the fork swallows its errors). */
  swallowing(node: JmesNode, cur: Cur, cx: Cx, construct: string): Frag;
  /** Nodes that yield null, without failing, on a null current node. */
  nullSafe(node: JmesNode): boolean;
}

/**
 * How a value is a list (or a map): the CEL test (true when known) and the value as one. An optional path
 * is one where present (its plain path then), a nullable list where not null.
 */
function asKind(v: Frag, kind: 'list' | 'map'): { test: string | true; value: Frag } | undefined {
  const o = v.optional;
  const t = o ? o.ty : tyOf(v);
  const base = o ? presentValue(v) : v;
  if (t.k === kind) return { test: o ? o.present : true, value: base };
  // type() rather than `!= null`: kube-apiserver's type checker refuses comparing a list or map with null.
  const isKind = `type(${base.cel}) == ${kind}`;
  if (t.k === 'nullable' && t.of.k === kind) return { test: o ? `${o.present} && ${isKind}` : isKind, value: withTy(base, t.of) };
  if (t.k === 'dyn') return { test: kind === 'list' ? typeIs.list(v) : typeIs.map(v), value: v };
  return undefined;
}

/** The same value where `f` is not null, failing where `f` is null (see Frag.orFail), when `make` has one. */
function withOrFail(f: Frag, v: Frag, kind: 'list' | 'map', make: (x: Frag) => Frag): Frag {
  const alt = v.orFail;
  if (!alt || f.orFail) return f;
  const t = tyOf(alt);
  if (nonNull(t).k !== kind) return f;
  return { ...f, orFail: make(withTy(alt, nonNull(t))) };
}

/** A list whose items are known not to be lists (flatten leaves it as it is). */
function flatAlready(list: Frag): boolean {
  const item = itemOf(list);
  return item.k !== 'dyn' && item.k !== 'list' && !(item.k === 'nullable' && item.of.k === 'list');
}

/** A value known to be null or a list (an optional path to a list, a nullable list). */
function nullOrList(v: Frag): boolean {
  const t = v.optional ? v.optional.ty : tyOf(v);
  return nonNull(t).k === 'list' && (v.optional !== undefined || t.k === 'nullable' || t.k === 'list');
}

function itemOf(list: Frag): Ty {
  const t = tyOf(list);
  return t.k === 'list' ? t.of : T.dyn;
}

/**
 * The projection's right side over each item, nulls dropped: `map(x, r)` when r is never null,
 * `map(x, present, value)` when r is an optional path, else map() then filter().
 */
function projectItems(list: Frag, right: JmesNode, cx: Cx, c: NodeCompiler): Frag {
  const item = itemOf(list);
  const x = cx.names.fresh('x');
  const y = cx.names.fresh('y');
  const dropNulls = (l: string, t: Ty, err: boolean): Frag => tfrag(`${l}.filter(${y}, type(${y}) != null_type)`, T.list(nonNull(t)), { atom: true, err });
  if (right.type === 'Identity' || right.type === 'Current') return mayBeNull(item) ? dropNulls(list.cel, item, false) : list;
  const r = c.value(right, valueCur(tfrag(x, item, { simple: true, atom: true })), 'lenient', cx);
  const o = r.optional;
  if (o && !mayBeNull(o.ty)) return tfrag(`${list.cel}.map(${x}, ${o.present}, ${o.strict})`, T.list(o.ty), { atom: true });
  if (!mayBeNull(tyOf(r))) return tfrag(`${list.cel}.map(${x}, ${r.cel})`, T.list(tyOf(r)), { atom: true, err: r.err });
  return dropNulls(`${list.cel}.map(${x}, ${r.cel})`, tyOf(r), r.err);
}

export function projection(node: Extract<JmesNode, { type: 'Projection' }>, cur: Cur, cx: Cx, c: NodeCompiler): Frag {
  const [leftNode, rightNode] = node.children;
  // interpreter.go ASTProjection: `s[a:b]` on a string is the sliced string itself.
  const allowString = leftNode.type === 'IndexExpression' && leftNode.children[1].type === 'Slice';
  const l = c.value(leftNode, cur, 'lenient', cx);
  return bind(l, cx.names, (v) => {
    const list = asKind(v, 'list');
    const other = allowString ? (v.t === 'string' ? v : v.t === 'dyn' ? cond(typeIs.string(v), v, NULL) : NULL) : NULL;
    if (!list) return other;
    // `[*]` over null or a list of items never null: the value itself.
    const identity = rightNode.type === 'Identity' || rightNode.type === 'Current';
    if (identity && !allowString && nullOrList(v) && !mayBeNull(itemOf(list.value))) return v;
    const items = projectItems(list.value, rightNode, cx, c);
    const out = list.test === true ? items : other === NULL ? onlyIf(list.test, items) : cond(list.test, items, other);
    return allowString ? out : withOrFail(out, v, 'list', (x) => projectItems(x, rightNode, cx, c));
  });
}

export function valueProjection(node: Extract<JmesNode, { type: 'ValueProjection' }>, cur: Cur, cx: Cx, c: NodeCompiler): Frag {
  const [leftNode, rightNode] = node.children;
  // interpreter.go ASTValueProjection collects len(map) nils before the values and projects them too:
  // exact only when the right side maps null to null.
  if (!c.nullSafe(rightNode)) yet('a value projection (`*`) whose right side may turn null into a value: Kyverno projects len(map) extra nulls through it');
  cx.notes.add('`*` and values() list map values in an unspecified order in Kyverno (Go map iteration is random); the CEL lists them in the map\'s iteration order');
  const l = c.swallowing(leftNode, cur, cx, 'A value projection (`*`)');
  return bind(l, cx.names, (v) => {
    const map = asKind(v, 'map');
    if (!map) return NULL;
    const m = map.value;
    const mt = tyOf(m);
    // The values of a map<string, T>: T (a map with known fields may hold anything).
    const valueTy = mt.k === 'map' && Object.keys(mt.fields).length === 0 ? mt.rest : T.dyn;
    const k = cx.names.fresh('k');
    const x = cx.names.fresh('x');
    const xv = tfrag(x, valueTy, { simple: true, atom: true });
    const r = rightNode.type === 'Identity' ? xv : c.value(rightNode, valueCur(xv), 'lenient', cx);
    const listed = `${op(m)}.transformList(${k}, ${x}, ${r.cel})`;
    const y = cx.names.fresh('y');
    const items = mayBeNull(tyOf(r))
      ? tfrag(`${listed}.filter(${y}, type(${y}) != null_type)`, T.list(nonNull(tyOf(r))), { atom: true, err: r.err })
      : tfrag(listed, T.list(tyOf(r)), { atom: true, err: r.err });
    return onlyIf(map.test, items);
  });
}

export function filterProjection(node: Extract<JmesNode, { type: 'FilterProjection' }>, cur: Cur, cx: Cx, c: NodeCompiler): Frag {
  const [leftNode, rightNode, condNode] = node.children;
  const l = c.swallowing(leftNode, cur, cx, 'A filter projection (`[?...]`)');
  return bind(l, cx.names, (v) => {
    const list = asKind(v, 'list');
    if (!list) return NULL;
    const x = cx.names.fresh('x');
    const item = itemOf(list.value);
    const test = truthy(c.value(condNode, valueCur(tfrag(x, item, { simple: true, atom: true })), 'lenient', cx), cx);
    const keep = (l: Frag): Frag => {
      const kept = tfrag(`${op(l)}.filter(${x}, ${test.cel})`, T.list(item), { atom: true, err: test.err });
      const items = projectItems(kept, rightNode, cx, c);
      return { ...items, err: items.err || kept.err || l.err };
    };
    return withOrFail(onlyIf(list.test, keep(list.value)), v, 'list', keep);
  });
}

/** `l[]`: lists in the list spliced in, other items kept; null for a non-list. */
export function flatten(node: Extract<JmesNode, { type: 'Flatten' }>, cur: Cur, cx: Cx, c: NodeCompiler): Frag {
  const l = c.swallowing(node.children[0], cur, cx, 'Flatten (`[]`)');
  return bind(l, cx.names, (v) => {
    const list = asKind(v, 'list');
    if (!list) return NULL;
    // A list whose items are known not to be lists is its own flattening; null or such a list, itself.
    if (flatAlready(list.value) && nullOrList(v)) return v;
    const flat = (x: Frag): Frag => {
      if (flatAlready(x)) return x;
      const item = itemOf(x);
      if (!cx.caps.listsExt) cannot(`flatten (\`[]\`) needs ext.Lists flatten(), which Kubernetes CEL has from 1.34 (target 1.${cx.caps.minor})`);
      const inner = item.k === 'list' ? item.of : item.k === 'nullable' && item.of.k === 'list' ? T.nullable(item.of.of) : T.dyn;
      return tfrag(`${op(x)}.flatten()`, T.list(inner), { atom: true });
    };
    return withOrFail(onlyIf(list.test, flat(list.value)), v, 'list', flat);
  });
}
