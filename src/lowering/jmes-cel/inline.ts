/**
 * Two rewrites of emitted CEL that only make it read better, done on its syntax tree (the CEL parser of
 * grammars/cel.ts) so that string literals and field names are never touched:
 * - inlineInto: a value bound with `[v].map(x, body)[0]` (so that it is evaluated, and its error raised,
 *   before the body runs, as JMESPath does) can stand in place of `x` when the body evaluates `x` on every
 *   path: not only in a ternary branch, an operand of `&&`/`||` (CEL absorbs errors there), the argument
 *   of an optional's `orValue()` or a comprehension body. The value is then evaluated where it is read: once, or repeatedly when it is pure;
 * - prettyNames: the compiler's fresh names (`_x3`) renamed to short ones (`x`) that occur nowhere else in
 *   the expression, so that no name of the caller's is shadowed or captured.
 */
import { parseCel } from '../../../grammars/cel.js';
import type { Expr } from '../../cel/ast.js';
import { OP } from '../../cel/ast.js';

const LAZY_OPERANDS = new Set<string>([OP.and, OP.or]);

interface Uses {
  /** Spans of the identifier, in source order, and whether it stands alone there (a call's argument, a list item). */
  spans: { start: number; end: number; alone: boolean }[];
}

function isOperator(fn: string): boolean {
  return fn.startsWith('_') || fn.startsWith('!') || fn.startsWith('-') || fn.startsWith('@');
}

/**
 * Records the uses of `name` in `e` and tells whether evaluating `e` surely evaluates `name` so that its
 * error becomes e's: through strict operands, a ternary's condition (or both branches), every operand of
 * `&&` / `||` (CEL absorbs an error there when another operand decides), a comprehension's range.
 */
function walk(e: Expr, name: string, uses: Uses, declared: Map<string, number>, alone = false): boolean {
  const go = (x: Expr, aloneHere = false): boolean => walk(x, name, uses, declared, aloneHere);
  switch (e.kind) {
    case 'literal':
      return false;
    case 'ident':
      if (e.name !== name) return false;
      uses.spans.push({ start: e.start, end: e.end, alone });
      return true;
    case 'select':
      return go(e.operand);
    case 'index': {
      const a = go(e.operand);
      return go(e.index, true) || a;
    }
    case 'call': {
      const t = e.target ? go(e.target) : false;
      const args = e.args.map((a) => go(a, !isOperator(e.fn)));
      if (e.fn === OP.cond) return t || args[0]! || (args[1]! && args[2]!);
      if (LAZY_OPERANDS.has(e.fn)) return t || args.every(Boolean);
      // cel-go evaluates the argument of opt.or(x) / opt.orValue(x) only when the optional is empty.
      if (e.target !== undefined && (e.fn === 'or' || e.fn === 'orValue')) return t;
      return t || args.some(Boolean);
    }
    case 'list':
      return e.elements.map((x) => go(x, true)).some(Boolean);
    case 'map':
      return e.entries.map((x) => [go(x.key, true), go(x.value, true)].some(Boolean)).some(Boolean);
    case 'struct':
      return e.fields.map((x) => go(x.value, true)).some(Boolean);
    case 'comprehension': {
      for (const v of [e.iterVar, e.iterVar2]) if (v !== undefined) declared.set(v, (declared.get(v) ?? 0) + 1);
      const r = go(e.range);
      e.args.forEach((a) => go(a, true));
      return r;
    }
  }
}

function parse(cel: string): Expr | undefined {
  const r = parseCel(cel, { twoVarComprehensions: true });
  return r.ok ? r.expr : undefined;
}

/**
 * `body` with `name` replaced by `text` (parenthesised unless `atom` or alone in its place), when the body
 * evaluates `name` on every path (at least once) and either reads it once or `pure` allows repeating it;
 * undefined otherwise.
 */
export function inlineInto(body: string, name: string, text: string, atom: boolean, pure: boolean): string | undefined {
  const ast = parse(body);
  if (!ast) return undefined;
  const uses: Uses = { spans: [] };
  const declared = new Map<string, number>();
  const eager = walk(ast, name, uses, declared, true);
  if (!eager || declared.has(name) || (!pure && uses.spans.length !== 1)) return undefined;
  let out = body;
  for (const u of [...uses.spans].reverse()) out = out.slice(0, u.start) + (atom || u.alone ? text : `(${text})`) + out.slice(u.end);
  return out;
}

/** Identifiers CEL reserves (cel-spec lexis): never usable as a variable name. */
const RESERVED = new Set(['as', 'break', 'const', 'continue', 'else', 'false', 'for', 'function', 'if', 'import', 'in', 'let', 'loop', 'package', 'namespace', 'null', 'return', 'true', 'var', 'void', 'while']);

const FRESH = /^_([a-z]+)\d+$/;

function idents(e: Expr, out: Map<string, number>): void {
  const add = (n: string): void => void out.set(n, (out.get(n) ?? 0) + 1);
  switch (e.kind) {
    case 'ident':
      add(e.name);
      return;
    case 'literal':
      return;
    case 'select':
      return idents(e.operand, out);
    case 'index':
      idents(e.operand, out);
      return idents(e.index, out);
    case 'call':
      if (e.target) idents(e.target, out);
      return e.args.forEach((a) => idents(a, out));
    case 'list':
      return e.elements.forEach((x) => idents(x, out));
    case 'map':
      return e.entries.forEach((x) => (idents(x.key, out), idents(x.value, out)));
    case 'struct':
      return e.fields.forEach((x) => idents(x.value, out));
    case 'comprehension':
      add(e.iterVar);
      if (e.iterVar2 !== undefined) add(e.iterVar2);
      idents(e.range, out);
      return e.args.forEach((a) => idents(a, out));
  }
}

/** The compiler's fresh names renamed to the shortest unused name of their hint (`_x3` → `x`). */
export function prettyNames(cel: string): string {
  const ast = parse(cel);
  if (!ast) return cel;
  const counts = new Map<string, number>();
  idents(ast, counts);
  const taken = new Set([...counts.keys()].filter((n) => !FRESH.test(n)));
  let out = cel;
  // In order of first appearance, so names read in the order a reader meets them.
  const fresh = [...counts.keys()].filter((n) => FRESH.test(n)).sort((a, b) => cel.search(new RegExp(`(?<![\\w.?$])${a}(?!\\w)`)) - cel.search(new RegExp(`(?<![\\w.?$])${b}(?!\\w)`)));
  for (const name of fresh) {
    const count = counts.get(name)!;
    const m = FRESH.exec(name);
    if (!m) continue;
    // Every textual occurrence must be one the tree knows (not inside a string literal or a field name).
    const re = new RegExp(`(?<![\\w.?$])${name}(?!\\w)`, 'g');
    if ((out.match(re) ?? []).length !== count) {
      taken.add(name);
      continue;
    }
    let candidate = m[1]!;
    for (let n = 2; taken.has(candidate) || RESERVED.has(candidate); n++) candidate = `${m[1]}${n}`;
    taken.add(candidate);
    out = out.replace(re, candidate);
  }
  return out;
}

/** An operand's text, parenthesised unless it is atomic (a name, a select, an index, a call, a literal). */
function operandText(cel: string, e: Expr): string {
  const text = cel.slice(e.start, e.end);
  const operator = e.kind === 'call' && !e.target && (e.fn.startsWith('_') || e.fn.startsWith('!') || e.fn.startsWith('-') || e.fn.startsWith('@')) && e.fn !== OP.index;
  return operator ? `(${text})` : text;
}

/**
 * `!(cel)`, written as `a != b` for `a == b` (and back), or without the `!` of a negation. Spans do not cover
 * parentheses, so a rewrite is made only where the operands' spans are seen to cover the whole text.
 */
export function negate(cel: string): string {
  const ast = parse(cel);
  if (ast?.kind === 'call' && ast.args.length === 2 && (ast.fn === OP.eq || ast.fn === OP.ne)) {
    const [a, b] = ast.args as [Expr, Expr];
    const gap = cel.slice(a.end, b.start);
    if (a.start === 0 && b.end === cel.length && (gap === ' == ' || gap === ' != ')) {
      return `${operandText(cel, a)} ${ast.fn === OP.eq ? '!=' : '=='} ${operandText(cel, b)}`;
    }
  }
  if (ast?.kind === 'call' && ast.fn === OP.not && ast.args.length === 1) {
    const a = ast.args[0]!;
    if (cel.startsWith('!(') && a.start === 2 && a.end === cel.length - 1) return operandText(cel, a);
    if (cel.startsWith('!') && a.start === 1 && a.end === cel.length && a.kind !== 'call') return cel.slice(1);
  }
  return `!(${cel})`;
}
