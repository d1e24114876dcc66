/**
 * Conditions as Kyverno evaluates them: JMESPath booleans built only from forms that never raise an error on
 * any document (comparisons and function arguments swallow a missing key, `&&` and `||` short-circuit), kept
 * as a small tree so that constant and redundant parts simplify away before they are written.
 *
 * An atom may carry its negation (`x != y` for `x == y`), the atoms it implies (`x == 'a'` implies that `x`
 * is there), and `risky` when it raises an error unless the conditions written before it in a conjunction
 * hold (an arithmetic function of a value that may be missing): such a conjunction is written as one
 * expression, in order, so JMESPath's short-circuit protects it.
 */
import { jmesLiteral } from '../../dialects/kyverno/emit-text.js';

export type Cond =
  | { k: 'const'; v: boolean }
  /** A JMESPath expression that is always `true` or `false`. */
  | { k: 'atom'; j: string; neg?: string; implies?: Cond[]; risky?: boolean }
  | { k: 'and' | 'or'; args: Cond[] }
  | { k: 'not'; arg: Cond };

export const TRUE: Cond = { k: 'const', v: true };
export const FALSE: Cond = { k: 'const', v: false };

export function atom(j: string, extra: { neg?: string; implies?: Cond[]; risky?: boolean } = {}): Cond {
  const out: Cond = { k: 'atom', j };
  if (extra.neg !== undefined) out.neg = extra.neg;
  if (extra.implies?.length) out.implies = extra.implies;
  if (extra.risky) out.risky = true;
  return out;
}

/** `a == b`, negated as `a != b`; `implies` what equality with a non-null literal needs. */
export function equals(a: string, b: string, extra: { implies?: Cond[]; risky?: boolean } = {}): Cond {
  return atom(`${a} == ${b}`, { neg: `${a} != ${b}`, ...extra });
}

export function isTrue(c: Cond): boolean {
  return c.k === 'const' && c.v;
}

export function isFalse(c: Cond): boolean {
  return c.k === 'const' && !c.v;
}

function key(c: Cond): string {
  switch (c.k) {
    case 'const':
      return String(c.v);
    case 'atom':
      return `a:${c.j}`;
    case 'not':
      return `!${key(c.arg)}`;
    default:
      return `${c.k}(${c.args.map(key).join(',')})`;
  }
}

export function same(a: Cond, b: Cond): boolean {
  return key(a) === key(b);
}

/** The value `c` takes when `lit` (an atom or its negation) is known to be `value`, as far as cheaply seen. */
function assume(c: Cond, lit: Cond, value: boolean): Cond {
  if (same(c, lit)) return { k: 'const', v: value };
  // An atom written as the negation of the literal (`x != y` for `x == y`).
  if (c.k === 'atom' && lit.k === 'atom' && c.neg !== undefined && c.neg === lit.j) return { k: 'const', v: !value };
  if (c.k === 'not') {
    const inner = assume(c.arg, lit, value);
    return inner === c.arg ? c : not(inner);
  }
  if (c.k === 'and' || c.k === 'or') {
    const args = c.args.map((a) => assume(a, lit, value));
    return args.every((a, i) => a === c.args[i]) ? c : c.k === 'and' ? and(...args) : or(...args);
  }
  return c;
}

function literalOf(c: Cond): { atom: Cond; value: boolean } | undefined {
  if (c.k === 'atom') return { atom: c, value: true };
  if (c.k === 'not' && c.arg.k === 'atom') return { atom: c.arg, value: false };
  return undefined;
}

function junction(kind: 'and' | 'or', cs: Cond[]): Cond {
  const absorbing = kind === 'or';
  let args: Cond[] = [];
  for (const c of cs) {
    if (c.k === 'const') {
      if (c.v === absorbing) return c;
      continue;
    }
    for (const x of c.k === kind ? c.args : [c]) if (!args.some((a) => same(a, x))) args.push(x);
  }
  // x with its negation; literals decided by a sibling literal (unit propagation; never into an earlier
  // argument holding a risky atom, whose guard may be the literal).
  for (let i = 0; i < args.length; i++) {
    const lit = literalOf(args[i]!);
    if (!lit) continue;
    // In a conjunction the literal holds for the others; in a disjunction the others matter only where it fails.
    const value = kind === 'and' ? lit.value : !lit.value;
    let changed = false;
    const next = args.map((a, j) => {
      // An earlier argument only when it holds nothing risky (its simplified form is evaluated before the literal).
      if (j === i || (j < i && risky(a))) return a;
      const r = assume(a, lit.atom, value);
      if (r !== a) changed = true;
      return r;
    });
    if (changed) return junction(kind, next);
  }
  // Absorption: a in and(a, ...) makes or(a, and(a, b)) just a, and dually.
  const other = kind === 'and' ? 'or' : 'and';
  args = args.filter((a) => !(a.k === other && a.args.some((x) => args.some((y) => y !== a && same(x, y)))));
  // Implied atoms: `x == 'a'` makes `x is there` redundant in a conjunction (and the equality redundant in a disjunction).
  if (kind === 'and' && !args.some(risky)) args = args.filter((a) => !args.some((b) => b !== a && b.k === 'atom' && b.implies?.some((x) => same(x, a))));
  else args = args.filter((a) => !(a.k === 'atom' && a.implies?.some((x) => args.some((b) => b !== a && same(b, x)))));
  if (args.length === 0) return { k: 'const', v: !absorbing };
  return args.length === 1 ? args[0]! : { k: kind, args };
}

export function and(...cs: Cond[]): Cond {
  return junction('and', cs);
}

export function or(...cs: Cond[]): Cond {
  return junction('or', cs);
}

export function not(c: Cond): Cond {
  if (c.k === 'const') return { k: 'const', v: !c.v };
  if (c.k === 'not') return c.arg;
  if (c.k === 'atom' && c.neg !== undefined) {
    const out: Cond = { k: 'atom', j: c.neg, neg: c.j };
    if (c.risky) out.risky = true;
    return out;
  }
  return { k: 'not', arg: c };
}

/** Whether writing the condition needs the order of its conjuncts (a risky atom after its guard). */
export function risky(c: Cond): boolean {
  if (c.k === 'atom') return c.risky === true;
  if (c.k === 'not') return risky(c.arg);
  if (c.k === 'and' || c.k === 'or') return c.args.some(risky);
  return false;
}

const SIMPLE = /^[A-Za-z0-9_.`'"\-]+$/;

function wrap(j: string): string {
  return SIMPLE.test(j) ? j : `(${j})`;
}

/** The JMESPath text of a condition. */
export function render(c: Cond): string {
  switch (c.k) {
    case 'const':
      return jmesLiteral(c.v);
    case 'atom':
      return c.j;
    case 'and':
      return c.args.map((a) => (a.k === 'or' ? `(${render(a)})` : render(a))).join(' && ');
    case 'or':
      return c.args.map((a) => (a.k === 'and' ? `(${render(a)})` : render(a))).join(' || ');
    case 'not':
      return `!${wrap(render(c.arg))}`;
  }
}

/**
 * The conjuncts of a condition (a precondition `all` list says them one per entry), or the condition whole
 * when an entry on its own could raise (Kyverno substitutes every entry before it evaluates any).
 */
export function conjuncts(c: Cond): Cond[] {
  if (isTrue(c)) return [];
  if (c.k !== 'and' || risky(c)) return [c];
  return c.args;
}
