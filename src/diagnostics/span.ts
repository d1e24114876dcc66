/** A place in a source file. Lines and columns are 1-based; `end*` is inclusive of the last character. */
export interface Span {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** Where an IR node came from: the dialect that produced it and the span of the construct in its source. */
export interface Origin extends Span {
  dialect: string;
}

/** The span of an origin, without its dialect (a diagnostic's `span`). */
export function spanOfOrigin(origin: Origin): Span;
export function spanOfOrigin(origin: Origin | undefined): Span | undefined;
export function spanOfOrigin(origin: Origin | undefined): Span | undefined {
  if (!origin) return undefined;
  const { file, line, col, endLine, endCol } = origin;
  return { file, line, col, endLine, endCol };
}

export function formatSpan(span: Pick<Span, 'file' | 'line' | 'col'>): string {
  return `${span.file}:${span.line}:${span.col}`;
}

/** Translates character offsets of a text into line/column positions in O(log lines). */
export class LineIndex {
  private readonly starts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
    this.starts = starts;
  }

  position(offset: number): { line: number; col: number } {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: clamped - this.starts[lo]! + 1 };
  }

  offset(line: number, col: number): number {
    const start = this.starts[line - 1] ?? this.text.length;
    return Math.min(start + col - 1, this.text.length);
  }

  lineText(line: number): string {
    const start = this.starts[line - 1];
    if (start === undefined) return '';
    const next = this.starts[line];
    const end = next === undefined ? this.text.length : next - 1;
    return this.text.slice(start, end).replace(/\r$/, '');
  }

  /** A span from a half-open offset range [start, end). */
  span(file: string, start: number, end: number): Span {
    const a = this.position(start);
    const b = this.position(Math.max(start, end - 1));
    return { file, line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }
}
