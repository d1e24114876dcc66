/**
 * Reads the IR text form written by print.ts: lines grouped by 2-space indentation into policies, rules and
 * blocks; each line's content parsed by grammars/ir-text.ts. Blank lines and lines starting with `#` are ignored.
 *
 * Origins: a line ending in `  @line:col` restores that origin (file = this text's file, dialect `ir`);
 * otherwise every node on a line gets the span of that line. Syntax errors are TM2006 at line:col.
 */
import { LineSyntaxError, parseLine, type Statement } from '../../grammars/ir-text.js';
import { readMatchSpec } from '../dialects/ir/match.js';
import { Reader } from '../dialects/ir/reader.js';
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../diagnostics/diagnostic.js';
import type { Origin, Span } from '../diagnostics/span.js';
import { matchAll, type MatchSpec } from './match.js';
import type { Guard, JsonPatchStep, LetOp, Op, Policy, Rule, Semantics } from './nodes.js';

const ORIGIN_SUFFIX = /\s+@(\d+):(\d+)$/;
const DIALECT = 'ir';

interface Line {
  number: number;
  depth: number;
  /** Column (1-based) where the content starts. */
  col: number;
  content: string;
  /** The origin restored from an `@line:col` suffix. */
  annotated?: Origin;
  stmt: Statement;
  children: Line[];
}

class TextError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

export function parseIrText(file: string, text: string): Result<Policy[]> {
  try {
    const roots = buildTree(file, text);
    return ok(roots.map((l) => readPolicy(file, l)));
  } catch (e) {
    if (e instanceof TextError) return fail(e.diagnostic);
    throw e;
  }
}

function syntaxError(span: Span, message: string): TextError {
  return new TextError(diagnostic('TM2006', { phase: 'parse', dialect: DIALECT, span, message }));
}

function lineSpan(file: string, line: number, col: number, length: number): Span {
  return { file, line, col, endLine: line, endCol: col + Math.max(1, length) - 1 };
}

// ---------------------------------------------------------------------------------------------- lines to tree

function buildTree(file: string, text: string): Line[] {
  const roots: Line[] = [];
  const stack: Line[] = [];
  const rawLines = text.split('\n');
  for (let i = 0; i < rawLines.length; i++) {
    const raw = rawLines[i]!.replace(/\r$/, '');
    const trimmed = raw.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const number = i + 1;
    const indent = raw.length - trimmed.length;
    if (raw.slice(0, indent).includes('\t')) throw syntaxError(lineSpan(file, number, 1, indent), 'indent with spaces, not tabs');
    if (indent % 2 !== 0) throw syntaxError(lineSpan(file, number, 1, indent), 'indentation must be a multiple of 2 spaces');
    let content = trimmed.trimEnd();
    let annotated: Origin | undefined;
    const m = ORIGIN_SUFFIX.exec(content);
    if (m) {
      const line = Number(m[1]);
      const col = Number(m[2]);
      annotated = { file, line, col, endLine: line, endCol: col, dialect: DIALECT };
      content = content.slice(0, m.index);
    }
    const col = indent + 1;
    const origin = annotated ?? { ...lineSpan(file, number, col, content.length), dialect: DIALECT };
    let stmt: Statement;
    try {
      stmt = parseLine(content, {
        origin,
        // Paths point into this text only when origins are this text's lines.
        pathOrigin: annotated
          ? undefined
          : (start, end) => ({ ...lineSpan(file, number, col + start, end - start), dialect: DIALECT }),
      });
    } catch (e) {
      if (!(e instanceof LineSyntaxError)) throw e;
      throw syntaxError(lineSpan(file, number, col + e.start, e.end - e.start), e.message);
    }
    const node: Line = { number, depth: indent / 2, col, content, stmt, children: [] };
    if (annotated) node.annotated = annotated;
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= node.depth) stack.pop();
    const parent = stack[stack.length - 1];
    const expectedDepth = parent ? parent.depth + 1 : 0;
    if (node.depth !== expectedDepth) {
      throw syntaxError(lineSpan(file, number, 1, indent), `unexpected indentation (expected ${expectedDepth * 2} spaces)`);
    }
    (parent ? parent.children : roots).push(node);
    stack.push(node);
  }
  return roots;
}

// ---------------------------------------------------------------------------------------------- tree to IR

function at(file: string, l: Line): Span {
  return lineSpan(file, l.number, l.col, l.content.length);
}

function unexpected(file: string, l: Line, where: string): TextError {
  return syntaxError(at(file, l), `unexpected "${l.content.split(' ')[0]}" line ${where}`);
}

function noChildren(file: string, l: Line): void {
  const c = l.children[0];
  if (c) throw syntaxError(at(file, c), `unexpected indented line under "${l.content.split(' ')[0]}"`);
}

function readPolicy(file: string, l: Line): Policy {
  if (l.stmt.kind !== 'policy') throw unexpected(file, l, 'at the top level (expected "policy NAME")');
  const annotatedMode = l.annotated !== undefined;
  let semantics: Semantics | undefined;
  let match: MatchSpec | undefined;
  const guards: Guard[] = [];
  const lets: LetOp[] = [];
  const rules: Rule[] = [];
  for (const c of l.children) {
    switch (c.stmt.kind) {
      case 'semantics':
        if (semantics) throw syntaxError(at(file, c), 'a policy has one "semantics" line');
        noChildren(file, c);
        semantics = c.stmt.semantics;
        break;
      case 'match':
        if (match) throw syntaxError(at(file, c), 'a policy has one "match" line');
        noChildren(file, c);
        match = readMatch(file, c, annotatedMode);
        break;
      case 'guard':
        noChildren(file, c);
        guards.push(c.stmt.guard);
        break;
      case 'rule':
        rules.push(readRule(file, c, annotatedMode));
        break;
      case 'op':
        // The policy's own bindings come before its guards and rules.
        if (c.stmt.op.kind === 'let' && guards.length === 0 && rules.length === 0) {
          noChildren(file, c);
          lets.push(c.stmt.op);
          break;
        }
        throw unexpected(file, c, 'in a policy (expected semantics, match, let, guard or rule)');
      default:
        throw unexpected(file, c, 'in a policy (expected semantics, match, let, guard or rule)');
    }
  }
  return {
    id: l.stmt.name,
    match: match ?? matchAll(),
    ...(lets.length > 0 ? { lets } : {}),
    guards,
    rules,
    semantics: semantics ?? { order: 'sequential' },
    origin: originOf(file, l),
  };
}

function originOf(file: string, l: Line): Origin {
  return l.annotated ?? { ...at(file, l), dialect: DIALECT };
}

function readMatch(file: string, l: Line, annotatedMode: boolean): MatchSpec {
  if (l.stmt.kind !== 'match') throw unexpected(file, l, '');
  const span = at(file, l);
  const r = new Reader({ spanOf: () => span, keySpanOf: () => span, spanInString: () => span }, DIALECT);
  const spec = readMatchSpec(r, l.stmt.json, []);
  const first = r.diagnostics[0];
  if (!spec || first) throw syntaxError(span, `invalid match: ${first?.message ?? 'not a match spec'}`);
  delete spec.origin;
  if (l.annotated) spec.origin = l.annotated;
  else if (!annotatedMode) spec.origin = originOf(file, l);
  return spec;
}

function readRule(file: string, l: Line, annotatedMode: boolean): Rule {
  if (l.stmt.kind !== 'rule') throw unexpected(file, l, '');
  let match: MatchSpec | undefined;
  const guards: Guard[] = [];
  let i = 0;
  for (; i < l.children.length; i++) {
    const c = l.children[i]!;
    if (c.stmt.kind === 'match') {
      if (match) throw syntaxError(at(file, c), 'a rule has one "match" line');
      noChildren(file, c);
      match = readMatch(file, c, annotatedMode);
    } else if (c.stmt.kind === 'guard') {
      noChildren(file, c);
      guards.push(c.stmt.guard);
    } else {
      break;
    }
  }
  const body = readOps(file, l.children.slice(i));
  const origin = originOf(file, l);
  return match ? { name: l.stmt.name, match, guards, body, origin } : { name: l.stmt.name, guards, body, origin };
}

function readOps(file: string, lines: readonly Line[]): Op[] {
  const ops: Op[] = [];
  for (const c of lines) {
    if (c.stmt.kind === 'else') {
      const prev = ops[ops.length - 1];
      if (!prev || prev.kind !== 'when' || prev.else) throw syntaxError(at(file, c), '"else" must follow a "when" block');
      ops[ops.length - 1] = { kind: 'when', guard: prev.guard, then: prev.then, else: readOps(file, c.children), origin: prev.origin };
      continue;
    }
    if (c.stmt.kind !== 'op') {
      const hint = c.stmt.kind === 'guard' || c.stmt.kind === 'match' ? ' (rule guards and match come before its operations)' : '';
      throw unexpected(file, c, `in a block of operations${hint}`);
    }
    ops.push(readOp(file, c, c.stmt.op));
  }
  return ops;
}

function readOp(file: string, l: Line, op: Op): Op {
  switch (op.kind) {
    case 'when':
      return { ...op, then: readOps(file, l.children) };
    case 'forEach':
      return { ...op, body: readOps(file, l.children) };
    case 'jsonPatch': {
      const steps: JsonPatchStep[] = l.children.map((c) => {
        if (c.stmt.kind !== 'step') throw unexpected(file, c, 'in a jsonPatch block (expected add, remove, replace, move, copy or test)');
        noChildren(file, c);
        return c.stmt.step;
      });
      return { ...op, steps };
    }
    default:
      noChildren(file, l);
      return op;
  }
}
