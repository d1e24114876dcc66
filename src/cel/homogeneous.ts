/**
 * cel-go's HomogeneousAggregateLiterals check, which kube-apiserver's base environment and Kyverno's CEL
 * compiler both enable (k8s.io/apiserver/pkg/cel/environment/base.go; kyverno pkg/cel/compiler): the members
 * of a list literal, and the keys and the values of a map literal, must share one type; `dyn(x)` unifies with
 * anything. Our engine has no full type checker, so the check uses the static types it knows
 * (mutation.ts staticResultType: literals, aggregates, comparisons, ...) and passes what it cannot type:
 * every violation reported is one kube-apiserver reports too, as a compile error of the policy.
 */
import type { Expr } from './ast.js';
import { parseCel } from '../../grammars/cel.js';
import { staticResultType } from './mutation.js';

export interface Heterogeneous {
  message: string;
  start: number;
  end: number;
}

/** The identifiers that name CEL types: values of type `type`. */
const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type']);

function known(e: Expr): string | undefined {
  if (e.kind === 'ident' && TYPE_NAMES.has(e.name)) return 'type';
  const t = staticResultType(e);
  if (t === undefined || t === 'dyn') return undefined;
  return t.startsWith('list') ? 'list' : t;
}

/**
 * cel-go joins the members' types left to right: a dyn member makes the join dyn, which every later member
 * is assignable to. A member this check cannot type may be dyn, so only the members before it are compared.
 */
function check(members: readonly Expr[]): Heterogeneous | undefined {
  let first: string | undefined;
  for (const m of members) {
    const t = known(m);
    if (t === undefined) return undefined;
    if (first === undefined) first = t;
    else if (t !== first) return { message: `type mismatch in an aggregate literal: expected type '${first}' but found '${t}' (kube-apiserver compiles with HomogeneousAggregateLiterals; wrap mixed members in dyn())`, start: m.start, end: m.end };
  }
  return undefined;
}

/**
 * Calls `each` with the members the check compares, for every list and map literal of `e` (outer ones
 * first): a list's elements, a map's keys, a map's values (optional entries left out), until it returns true.
 */
function eachAggregate(e: Expr, each: (members: readonly Expr[]) => boolean | void): void {
  let stop = false;
  const visit = (x: Expr): void => {
    if (stop) return;
    switch (x.kind) {
      case 'literal':
      case 'ident':
        return;
      case 'select':
        return visit(x.operand);
      case 'index':
        visit(x.operand);
        return visit(x.index);
      case 'call':
        if (x.target) visit(x.target);
        return x.args.forEach(visit);
      case 'list':
        stop = each(x.elements.filter((_, i) => !x.optional[i])) === true;
        return x.elements.forEach(visit);
      case 'map':
        stop = each(x.entries.map((en) => en.key)) === true || each(x.entries.filter((en) => !en.optional).map((en) => en.value)) === true;
        return x.entries.forEach((en) => {
          visit(en.key);
          visit(en.value);
        });
      case 'struct':
        return x.fields.forEach((f) => visit(f.value));
      case 'comprehension':
        visit(x.range);
        return x.args.forEach(visit);
    }
  };
  visit(e);
}

/** The first list or map literal of `e` whose members have different static types. */
export function heterogeneousLiteral(e: Expr): Heterogeneous | undefined {
  let found: Heterogeneous | undefined;
  eachAggregate(e, (members) => (found = check(members)) !== undefined);
  return found;
}

/** The members to wrap in dyn(), of every list and map literal of `e` whose members may differ in type. */
function mixedMembers(e: Expr): Expr[] {
  const out: Expr[] = [];
  const isDyn = (m: Expr): boolean => m.kind === 'call' && m.fn === 'dyn' && m.target === undefined;
  // The members of the most common known type stay as they are; the others are wrapped, those this module
  // cannot type included (a field of a typed object, `c.name`, has the schema's type in kube-apiserver).
  // After a dyn member cel-go's join is dyn, which accepts every member.
  eachAggregate(e, (members) => {
    if (members.length < 2) return;
    const types = members.map(known);
    const counts = new Map<string, number>();
    for (const t of types) if (t !== undefined) counts.set(t, (counts.get(t) ?? 0) + 1);
    if (counts.size === 1 && types.every((t) => t !== undefined)) return;
    const base = counts.size === 0 ? undefined : [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    members.forEach((m, i) => {
      if ((base === undefined || types[i] !== base) && !isDyn(m)) out.push(m);
    });
  });
  return out;
}

/**
 * `source` with every member of a mixed-type aggregate literal wrapped in dyn(), so that it compiles with
 * HomogeneousAggregateLiterals (what generators write: `{"name": "sidecar", "ports": [...]}`); the same
 * value. Unparseable text is returned as it is (its compilation reports it).
 */
export function homogenize(source: string): string {
  const r = parseCel(source, { twoVarComprehensions: true });
  if (!r.ok) return source;
  const members = mixedMembers(r.expr);
  if (members.length === 0) return source;
  // Offsets are in UTF-16 code units of `source` (the lexer's); wrap from the end so earlier offsets hold.
  const edits = members.flatMap((m) => [
    { at: m.end, text: ')' },
    { at: m.start, text: 'dyn(' },
  ]);
  edits.sort((a, b) => b.at - a.at || (a.text === ')' ? -1 : 1));
  let out = source;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  return out;
}
