/**
 * The text form of IR paths (grammar in `grammars/ir-path.ts`). `printPath` and `parsePath` are inverses:
 * `printPath(parsePath(printPath(p)))` is `printPath(p)` for every path.
 */
import { BARE_NAME, parsePathSyntax, PathSyntaxError } from '../../grammars/ir-path.js';
import { diagnostic, fail, ok, type Result } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import type { JsonScalar } from './json.js';
import type { Path, Segment } from './path.js';

export { PATH_ROOTS } from '../../grammars/ir-path.js';

/** A field or key name: bare when it is an identifier-like word, otherwise a JSON string. */
export function printName(name: string): string {
  return BARE_NAME.test(name) ? name : JSON.stringify(name);
}

function printScalar(value: JsonScalar): string {
  return JSON.stringify(value);
}

export function printSegment(s: Segment): string {
  switch (s.kind) {
    case 'field':
      return `.${printName(s.name)}${printTest(s.test)}`;
    case 'index':
      return `[${s.index}]${printTest(s.test)}`;
    case 'append':
      return '[-]';
    case 'each':
      return '[*]';
    case 'keyed':
      return `[${printName(s.key)}${s.create ? ': ' : ' == '}${printScalar(s.value)}]${printTest(s.test)}`;
    case 'keyedGlob':
      return `[${printName(s.key)}: *]${printTest(s.test)}`;
  }
}

function printTest(test: 'exist' | 'notExist' | undefined): string {
  return test === undefined ? '' : test === 'exist' ? '!exists' : '!absent';
}

export function printPath(p: Path): string {
  let out: string = p.root;
  for (const s of p.segments) out += printSegment(s);
  return out;
}

/** Maps an offset in the path text to a span in its source (for paths embedded in YAML or IR text). */
export type Locate = (offset: number) => Span;

const standalone: Locate = (offset) => ({ file: '<path>', line: 1, col: offset + 1, endLine: 1, endCol: offset + 1 });

/** Span of the half-open range [start, end) of the path text. */
export function locateRange(locate: Locate, start: number, end: number): Span {
  const a = locate(start);
  const b = end - 1 > start ? locate(end - 1) : a;
  return { file: a.file, line: a.line, col: a.col, endLine: b.endLine, endCol: b.endCol };
}

/**
 * Parses path text. The result has no `origin`: the caller knows the dialect and sets it.
 * Syntax errors are TM2006 diagnostics placed with `locate` (by default, columns of the text itself).
 */
export function parsePath(text: string, locate: Locate = standalone): Result<Path> {
  try {
    const parsed = parsePathSyntax(text);
    return ok({ root: parsed.root, segments: parsed.segments });
  } catch (e) {
    if (!(e instanceof PathSyntaxError)) throw e;
    const start = Math.min(e.start, Math.max(0, text.length - 1));
    return fail(
      diagnostic('TM2006', {
        phase: 'parse',
        // The span shows the path; a very long one is not repeated whole in the message.
        message: `invalid path ${JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text)}: ${e.message}`,
        span: locateRange(locate, start, Math.max(start + 1, Math.min(e.end, text.length))),
      }),
    );
  }
}
