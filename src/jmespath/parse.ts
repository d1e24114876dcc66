/**
 * Parsing with the `jmespath` package, plus the corrections go-jmespath needs: a column for syntax
 * errors (jmespath.js reports none), rejection of the incomplete trees jmespath.js accepts silently
 * (`a.` parses with a missing child), and raw strings with every `\'` unescaped (jmespath.js
 * `_consumeRawStringLiteral` only replaces the first; go-jmespath lexer.go replaces all).
 */
import jmespath from 'jmespath';
import type { JmesNode } from './ast.js';

interface Token {
  type: string;
  value: unknown;
  start: number;
}

interface JmespathModule {
  compile(expr: string): unknown;
  tokenize(expr: string): Token[];
}

const lib = jmespath as unknown as JmespathModule;

export type ParseOutcome = { ok: true; ast: JmesNode } | { ok: false; message: string; column: number };

export function parseJmes(expr: string): ParseOutcome {
  let ast: unknown;
  try {
    ast = lib.compile(expr);
  } catch (e) {
    const column = errorColumn(expr);
    // jmespath.js trips over its own `undefined` token for a lone `=` or `!`: say what the input holds.
    const message = e instanceof TypeError ? `Syntax error: unexpected character ${JSON.stringify(expr.charAt(column - 1))}` : e instanceof Error ? e.message : String(e);
    return { ok: false, message, column };
  }
  const missing = findIncomplete(ast);
  if (missing !== undefined) return { ok: false, message: missing, column: expr.length + 1 };
  if (expr.includes("\\'")) fixRawStrings(expr, ast as JmesNode);
  return { ok: true, ast: ast as JmesNode };
}

/** The index of the first `=` or `!` at or after `from` (a lone one, which jmespath.js cannot lex). */
function strayOperator(expr: string, from: number): number {
  const m = /[=!]/.exec(expr.slice(from));
  return m ? from + m.index : from;
}

function isEofError(e: unknown): boolean {
  const message = e instanceof Error ? e.message : String(e);
  return message.includes('EOF') || message.includes("reading 'type'");
}

function tryCompile(expr: string): unknown {
  try {
    lib.compile(expr);
    return undefined;
  } catch (e) {
    return e;
  }
}

/**
 * jmespath.js errors carry no position. The failing token is the first one whose inclusion makes the
 * parse fail for a reason other than running out of input; the lexer's failing character is the end
 * of the shortest prefix that does not tokenize. Only runs on the error path.
 */
function errorColumn(expr: string): number {
  let tokens: Token[];
  try {
    // jmespath.js's lexer leaves `undefined` where it met a lone `=` (or `!`): the failing character.
    const raw = lib.tokenize(expr) as (Token | undefined)[];
    const hole = raw.indexOf(undefined);
    if (hole >= 0) return strayOperator(expr, hole === 0 ? 0 : raw[hole - 1]!.start + 1) + 1;
    tokens = raw as Token[];
  } catch {
    for (let k = 1; k <= expr.length; k++) {
      try {
        lib.tokenize(expr.slice(0, k));
      } catch {
        return k;
      }
    }
    return expr.length + 1;
  }
  for (let j = 1; j <= tokens.length; j++) {
    const end = j < tokens.length ? tokens[j]!.start : expr.length;
    const err = tryCompile(expr.slice(0, end));
    if (err !== undefined && !isEofError(err)) return tokens[j - 1]!.start + 1;
  }
  return expr.length + 1;
}

/** jmespath.js returns `undefined` children for `a.` or `a.1`; go-jmespath rejects them. */
function findIncomplete(node: unknown): string | undefined {
  if (node === undefined || node === null) return 'Expected identifier, lbracket, or lbrace';
  const n = node as { type: string; children?: unknown[]; value?: unknown };
  if (n.type === 'Slice' || n.type === 'Literal' || n.type === 'Field' || n.type === 'Index') return undefined;
  if (n.type === 'KeyValuePair') return findIncomplete(n.value);
  if (Array.isArray(n.children)) {
    for (const c of n.children) {
      const m = findIncomplete(c);
      if (m !== undefined) return m;
    }
  }
  return undefined;
}

function fixRawStrings(expr: string, ast: JmesNode): void {
  let tokens: Token[];
  try {
    tokens = lib.tokenize(expr);
  } catch {
    return;
  }
  const corrections = new Map<string, string>();
  for (const t of tokens) {
    if (t === undefined || t.type !== 'Literal' || expr[t.start] !== "'" || typeof t.value !== 'string') continue;
    const raw = rawStringSource(expr, t.start);
    const goValue = raw.replaceAll("\\'", "'");
    if (goValue !== t.value) corrections.set(t.value, goValue);
  }
  if (corrections.size > 0) rewriteLiterals(ast, corrections);
}

/** The characters between the quotes of the raw string starting at `start`, as jmespath.js scans them. */
function rawStringSource(expr: string, start: number): string {
  let i = start + 1;
  while (i < expr.length && expr[i] !== "'") {
    i += expr[i] === '\\' && (expr[i + 1] === '\\' || expr[i + 1] === "'") ? 2 : 1;
  }
  return expr.slice(start + 1, i);
}

function rewriteLiterals(node: unknown, corrections: Map<string, string>): void {
  if (node === null || typeof node !== 'object') return;
  const n = node as { type: string; value?: unknown; children?: unknown[] };
  if (n.type === 'Literal' && typeof n.value === 'string') {
    const fixed = corrections.get(n.value);
    if (fixed !== undefined) n.value = fixed;
    return;
  }
  if (n.type === 'KeyValuePair') rewriteLiterals(n.value, corrections);
  if (Array.isArray(n.children)) for (const c of n.children) rewriteLiterals(c, corrections);
}
