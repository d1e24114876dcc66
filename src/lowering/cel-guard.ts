/**
 * Simple CEL conditions read as structured IR guards, exactly or not at all.
 *
 * CEL and the IR disagree on missing fields: CEL's `object.a.b` is an error ("no such key") when `a` or `b`
 * is missing, and an error in a matchCondition follows failurePolicy (matchconditions/matcher.go), whereas an
 * IR comparison on a missing path is simply false. So a comparison or `in` test is raised only where its
 * operand is proven present: by a `has()` / `"k" in` test on the left of `&&` (true) or `||` (false) — CEL's
 * commutative `&&`/`||` absorb an error on the other side exactly when the proving side decides the result,
 * so the raised guard has the CEL value wherever CEL has one and CEL never errors. `object` and
 * `object.metadata` are always present: MAP mutates only CREATE/UPDATE objects, and every typed object
 * carries ObjectMeta (apimachinery's unstructured conversion of a typed object, map.md §4.1).
 * Values are assumed to follow the kind's schema (a map where the schema says map), as the apiserver's typed
 * decode guarantees.
 */
import type { Expr } from '../cel/ast.js';
import { OP } from '../cel/ast.js';
import { parse } from '../cel/index.js';
import type { JsonScalar } from '../ir/json.js';
import type { Guard, Origin } from '../ir/nodes.js';
import type { Path, Segment } from '../ir/path.js';

/** Paths proven present, as `pathKey` strings. */
export type Facts = ReadonlySet<string>;

export function keyOf(root: string, fields: readonly string[]): string {
  return [root, ...fields.map((f) => JSON.stringify(f))].join('.');
}

/** The paths present in every object a MAP mutates. */
export const ALWAYS: Facts = new Set([keyOf('object', []), keyOf('object', ['metadata'])]);

/** A chain of plain field selections and string-literal indexes on `object`: `object.metadata.labels["k"]`. */
export function objectFields(e: Expr): string[] | undefined {
  if (e.kind === 'ident') return e.name === 'object' && !e.leadingDot ? [] : undefined;
  if (e.kind === 'select' && !e.testOnly && !e.optional) {
    const base = objectFields(e.operand);
    return base === undefined ? undefined : [...base, e.field];
  }
  if (e.kind === 'index' && !e.optional && e.index.kind === 'literal' && e.index.lit.type === 'string') {
    const base = objectFields(e.operand);
    return base === undefined ? undefined : [...base, e.index.lit.value];
  }
  return undefined;
}

/**
 * A chain like `object.metadata.?labels["k"]` with at least one optional step: its fields and how many come
 * before the first optional one. Once a step is optional the rest of the chain is (cel-go's attribute
 * qualifiers stay optional), so a missing field anywhere after it yields `optional.none()`, never an error.
 */
function optionalChain(e: Expr): { fields: string[]; plain: number } | undefined {
  const steps: { field: string; optional: boolean }[] = [];
  let cur: Expr = e;
  for (;;) {
    if (cur.kind === 'select' && !cur.testOnly) {
      steps.unshift({ field: cur.field, optional: cur.optional });
      cur = cur.operand;
    } else if (cur.kind === 'index' && cur.index.kind === 'literal' && cur.index.lit.type === 'string') {
      steps.unshift({ field: cur.index.lit.value, optional: cur.optional });
      cur = cur.operand;
    } else break;
  }
  if (cur.kind !== 'ident' || cur.name !== 'object' || cur.leadingDot) return undefined;
  const plain = steps.findIndex((s) => s.optional);
  return plain < 0 ? undefined : { fields: steps.map((s) => s.field), plain };
}

/** A CEL scalar literal as JSON (ints within the safe range only; bytes are not JSON). */
export function scalarOf(e: Expr): { value: JsonScalar } | undefined {
  if (e.kind !== 'literal') return undefined;
  const l = e.lit;
  switch (l.type) {
    case 'string':
    case 'bool':
      return { value: l.value };
    case 'double':
      return Number.isFinite(l.value) ? { value: l.value } : undefined;
    case 'int': {
      const n = typeof l.value === 'bigint' ? Number(l.value) : l.value;
      return Number.isSafeInteger(n) ? { value: n } : undefined;
    }
    case 'null':
      return { value: null };
    default:
      return undefined;
  }
}

function objectPath(fields: readonly string[]): Path {
  return { root: 'object', segments: fields.map((name): Segment => ({ kind: 'field', name })) };
}

/** A guard with the presence facts that hold when it is true and when it is false. */
interface Raised {
  guard: Guard;
  whenTrue: string[];
  whenFalse: string[];
}

class GuardReader {
  constructor(private readonly origin: Origin) {}

  private known(facts: Facts, fields: readonly string[]): boolean {
    const k = keyOf('object', fields);
    return ALWAYS.has(k) || facts.has(k);
  }

  /**
   * `P.?f == optional.of(v)` (v a scalar literal, not null): the chain is there and equals v, i.e. `eq`, as
   * a missing chain is an absent optional, never equal to one holding v. `P.?f.orValue(d) == v`: `eq` when
   * d differs from v, else "missing or equal to v". Neither can fail once the part before the first `?` is
   * known present.
   */
  private optionalEquality(x: Expr, y: Expr, facts: Facts): Guard | undefined {
    const origin = this.origin;
    let chainExpr: Expr | undefined;
    let fallback: JsonScalar | undefined;
    let value: JsonScalar | undefined;
    if (y.kind === 'call' && y.fn === 'of' && y.target?.kind === 'ident' && y.target.name === 'optional' && y.args.length === 1) {
      const v = scalarOf(y.args[0]!);
      if (!v || v.value === null) return undefined;
      chainExpr = x;
      value = v.value;
    } else if (x.kind === 'call' && x.fn === 'orValue' && x.target !== undefined && x.args.length === 1) {
      const d = scalarOf(x.args[0]!);
      const v = scalarOf(y);
      if (!d || !v || d.value === null || v.value === null) return undefined;
      chainExpr = x.target;
      fallback = d.value;
      value = v.value;
    } else return undefined;
    const chain = optionalChain(chainExpr);
    if (!chain || !this.known(facts, chain.fields.slice(0, chain.plain))) return undefined;
    const path = objectPath(chain.fields);
    const eq: Guard = { kind: 'eq', path, value: { kind: 'literal', json: value, origin }, origin };
    // CEL compares numbers across int and double by value, as JSON equality does.
    if (fallback === undefined || fallback !== value) return eq;
    return { kind: 'or', args: [{ kind: 'notExists', path, origin }, eq], origin };
  }

  read(e: Expr, facts: Facts): Raised | undefined {
    const origin = this.origin;
    if (e.kind === 'literal' && e.lit.type === 'bool') return { guard: { kind: 'const', value: e.lit.value, origin }, whenTrue: [], whenFalse: [] };
    // has(P.f): P must be present; f is then known present (or absent).
    if (e.kind === 'select' && e.testOnly) {
      const parent = objectFields(e.operand);
      if (parent === undefined || !this.known(facts, parent)) return undefined;
      const fields = [...parent, e.field];
      return { guard: { kind: 'exists', path: objectPath(fields), origin }, whenTrue: [keyOf('object', fields)], whenFalse: [] };
    }
    // P.?f.hasValue(): present iff the whole chain is; only the steps before the first `.?` can error.
    if (e.kind === 'call' && e.fn === 'hasValue' && e.target !== undefined && e.args.length === 0) {
      const chain = optionalChain(e.target);
      if (!chain || !this.known(facts, chain.fields.slice(0, chain.plain))) return undefined;
      return { guard: { kind: 'exists', path: objectPath(chain.fields), origin }, whenTrue: [keyOf('object', chain.fields)], whenFalse: [] };
    }
    if (e.kind !== 'call' || e.target !== undefined) return undefined;
    const [a, b] = e.args;
    switch (e.fn) {
      case OP.not: {
        const inner = this.read(a!, facts);
        if (!inner) return undefined;
        const g = inner.guard;
        // Keep the IR's own negated forms where they exist.
        const guard: Guard = g.kind === 'exists' ? { kind: 'notExists', path: g.path, origin } : { kind: 'not', arg: g, origin };
        return { guard, whenTrue: inner.whenFalse, whenFalse: inner.whenTrue };
      }
      case OP.and:
      case OP.or: {
        const isAnd = e.fn === OP.and;
        const left = this.read(a!, facts);
        if (!left) return undefined;
        // The right side runs (decides the result) only when the left one did not decide it.
        const right = this.read(b!, new Set([...facts, ...(isAnd ? left.whenTrue : left.whenFalse)]));
        if (!right) return undefined;
        const kind = isAnd ? 'and' : 'or';
        const flat = [left.guard, right.guard].flatMap((g) => (g.kind === kind ? g.args : [g]));
        return {
          guard: { kind, args: flat, origin },
          whenTrue: isAnd ? [...left.whenTrue, ...right.whenTrue] : [],
          whenFalse: isAnd ? [] : [...left.whenFalse, ...right.whenFalse],
        };
      }
      case OP.in: {
        // "k" in P (a map): a key test; P in [literals]: membership.
        const key = scalarOf(a!);
        const map = objectFields(b!);
        if (key && typeof key.value === 'string' && map !== undefined) {
          if (!this.known(facts, map)) return undefined;
          const fields = [...map, key.value];
          return { guard: { kind: 'exists', path: objectPath(fields), origin }, whenTrue: [keyOf('object', fields)], whenFalse: [] };
        }
        const subject = objectFields(a!);
        if (subject === undefined || !this.known(facts, subject) || b!.kind !== 'list' || b!.optional.some(Boolean)) return undefined;
        const values = b!.elements.map(scalarOf);
        if (values.some((v) => v === undefined)) return undefined;
        return {
          guard: { kind: 'in', path: objectPath(subject), values: values.map((v) => ({ kind: 'literal', json: v!.value, origin })), origin },
          whenTrue: [],
          whenFalse: [],
        };
      }
      case OP.eq:
      case OP.ne: {
        const optional = this.optionalEquality(a!, b!, facts) ?? this.optionalEquality(b!, a!, facts);
        if (optional) {
          const guard: Guard = e.fn === OP.eq ? optional : { kind: 'not', arg: optional, origin };
          return { guard, whenTrue: [], whenFalse: [] };
        }
        let subject = objectFields(a!);
        let lit = scalarOf(b!);
        if (subject === undefined || !lit) {
          subject = objectFields(b!);
          lit = scalarOf(a!);
        }
        if (subject === undefined || !lit || !this.known(facts, subject)) return undefined;
        return {
          guard: { kind: e.fn === OP.eq ? 'eq' : 'neq', path: objectPath(subject), value: { kind: 'literal', json: lit.value, origin }, origin },
          whenTrue: [],
          whenFalse: [],
        };
      }
      default:
        return undefined;
    }
  }
}

/**
 * The guard a CEL condition means, when it can be stated exactly; undefined otherwise (the condition may
 * error, or uses more than paths, literals, `has`, `in`, `==`, `!=`, `!`, `&&`, `||`).
 */
export function celToGuard(text: string, origin: Origin, facts: Facts = ALWAYS): Guard | undefined {
  const parsed = parse(text);
  if (!parsed.ok) return undefined;
  return new GuardReader(origin).read(parsed.value, facts)?.guard;
}

/** Same as celToGuard for an already parsed expression. */
export function exprToGuard(e: Expr, origin: Origin, facts: Facts = ALWAYS): Guard | undefined {
  return new GuardReader(origin).read(e, facts)?.guard;
}
