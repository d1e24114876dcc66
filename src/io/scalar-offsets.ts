/**
 * Maps each UTF-16 index of a scalar's decoded string back to the source characters it came from, so an error at
 * offset 12 of an embedded CEL expression is reported at the right line and column of the YAML file.
 *
 * The decoding rules are re-implemented here from the YAML 1.2 spec (7.3 flow scalars, 8.1 block scalars) because
 * the `yaml` package gives the decoded value but not the correspondence. The result is only used when it decodes
 * to exactly the string the `yaml` package produced (the caller checks); otherwise the caller falls back to the span
 * of the whole scalar. Line folding: a folded line break (which becomes a space) and the newlines produced from
 * empty lines point at the source line break that produced them; an escape such as `\u00e9` maps to its whole
 * escape sequence; a block scalar's final newline added by clip chomping points at the last content character.
 */

export type ScalarStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

export interface ScalarOffsets {
  decoded: string;
  /** For decoded index i, the source range [start[i], end[i]) relative to the scalar's source slice. */
  start: number[];
  end: number[];
}

class Builder {
  text = '';
  readonly start: number[] = [];
  readonly end: number[] = [];

  push(ch: string, s: number, e: number): void {
    this.text += ch;
    for (let i = 0; i < ch.length; i++) {
      this.start.push(s);
      this.end.push(e);
    }
  }

  /** Copies source characters one to one. */
  copy(src: string, s: number, e: number): void {
    this.text += src.slice(s, e);
    for (let i = s; i < e; i++) {
      this.start.push(i);
      this.end.push(i + 1);
    }
  }

  result(): ScalarOffsets {
    return { decoded: this.text, start: this.start, end: this.end };
  }
}

const isWhite = (c: string | undefined): boolean => c === ' ' || c === '\t';

/** Decodes `src` (the scalar's source, quotes or block header included) as the `yaml` package would. */
export function decodeScalarWithOffsets(src: string, style: ScalarStyle, expected: string): ScalarOffsets | undefined {
  if (style === 'BLOCK_LITERAL' || style === 'BLOCK_FOLDED') return decodeBlock(src, style === 'BLOCK_FOLDED', expected);
  let r: ScalarOffsets | undefined;
  if (style === 'PLAIN') r = decodeFlow(src, 0, src.length, 'plain');
  else if (style === 'QUOTE_SINGLE') r = decodeFlow(src, 1, src.length - 1, 'single');
  else r = decodeFlow(src, 1, src.length - 1, 'double');
  return r && r.decoded === expected ? r : undefined;
}

interface Piece {
  text: string;
  s: number;
  e: number;
  /** Unescaped white space, which folding may trim. */
  white: boolean;
}

interface FlowLine {
  pieces: Piece[];
  /** Offset of the line break ending this line (absent for the last line). */
  breakAt: number;
  /** The line ends in an escaped line break (`\` before the break, double-quoted only). */
  escapedBreak: boolean;
}

/** Flow scalars: split into lines, decode escapes, trim, then fold (spec 7.3.1 to 7.3.3). */
function decodeFlow(src: string, from: number, to: number, kind: 'plain' | 'single' | 'double'): ScalarOffsets | undefined {
  const lines: FlowLine[] = [];
  let pieces: Piece[] = [];
  let i = from;
  while (i < to) {
    const c = src[i]!;
    if (c === '\n' || (c === '\r' && src[i + 1] === '\n')) {
      lines.push({ pieces, breakAt: i, escapedBreak: false });
      pieces = [];
      i += c === '\r' ? 2 : 1;
      continue;
    }
    if (kind === 'single' && c === "'" && src[i + 1] === "'") {
      pieces.push({ text: "'", s: i, e: i + 2, white: false });
      i += 2;
      continue;
    }
    if (kind === 'double' && c === '\\') {
      const next = src[i + 1];
      if (next === '\n' || (next === '\r' && src[i + 2] === '\n')) {
        lines.push({ pieces, breakAt: i + 1, escapedBreak: true });
        pieces = [];
        i += next === '\r' ? 3 : 2;
        continue;
      }
      const esc = decodeEscape(src, i);
      if (!esc) return undefined;
      pieces.push({ text: esc.text, s: i, e: esc.end, white: false });
      i = esc.end;
      continue;
    }
    pieces.push({ text: c, s: i, e: i + 1, white: isWhite(c) });
    i++;
  }
  lines.push({ pieces, breakAt: -1, escapedBreak: false });

  const out = new Builder();
  let pendingEmpty: number[] = [];
  let pendingBreak = -1;
  let joinEscaped = false;
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li]!;
    const first = li === 0;
    const last = li === lines.length - 1;
    let a = 0;
    let b = line.pieces.length;
    if (!first) while (a < b && line.pieces[a]!.white) a++;
    if (!last && !line.escapedBreak) while (b > a && line.pieces[b - 1]!.white) b--;
    const blank = a === b && !line.escapedBreak;
    if (!first && !last && blank) {
      // An empty line inside a folded flow scalar becomes one line feed.
      pendingEmpty.push(line.breakAt);
      continue;
    }
    if (!first) {
      if (pendingEmpty.length > 0) for (const at of pendingEmpty) out.push('\n', at, at + 1);
      else if (!joinEscaped) out.push(' ', pendingBreak, pendingBreak + 1);
    }
    pendingEmpty = [];
    for (let p = a; p < b; p++) {
      const piece = line.pieces[p]!;
      out.push(piece.text, piece.s, piece.e);
    }
    pendingBreak = line.breakAt;
    joinEscaped = line.escapedBreak;
  }
  return out.result();
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

function decodeEscape(src: string, at: number): { text: string; end: number } | undefined {
  const c = src[at + 1];
  if (c === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { text: simple, end: at + 2 };
  const width = c === 'x' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
  if (width === 0) return undefined;
  const hex = src.slice(at + 2, at + 2 + width);
  if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  const code = parseInt(hex, 16);
  if (code > 0x10ffff) return undefined;
  return { text: String.fromCodePoint(code), end: at + 2 + width };
}

interface BlockLine {
  /** Offset of the line's first character in `src`. */
  at: number;
  /** Number of leading spaces. */
  spaces: number;
  /** Offset just past the content (before `\r\n` or `\n`). */
  contentEnd: number;
  /** Offset of the line break, or -1 at the end of the text. */
  breakAt: number;
}

/** Block scalars (spec 8.1): header, indentation, literal or folded content, chomping. */
function decodeBlock(src: string, folded: boolean, expected: string): ScalarOffsets | undefined {
  const headerEnd = src.indexOf('\n');
  const header = /^[|>]([1-9]?[+-]?|[+-]?[1-9]?)/.exec(src)?.[1] ?? '';
  const chomp = header.includes('+') ? '+' : header.includes('-') ? '-' : '';
  const lines: BlockLine[] = [];
  if (headerEnd >= 0) {
    let at = headerEnd + 1;
    while (at <= src.length) {
      const nl = src.indexOf('\n', at);
      const end = nl < 0 ? src.length : nl;
      let spaces = 0;
      while (at + spaces < end && src[at + spaces] === ' ') spaces++;
      const contentEnd = end > at && src[end - 1] === '\r' ? end - 1 : end;
      lines.push({ at, spaces, contentEnd, breakAt: nl });
      if (nl < 0) break;
      at = nl + 1;
    }
  }
  // The indentation depends on the parent's indentation when an explicit indicator is used, which the source slice
  // does not show; try the auto-detected one first, then any other that reproduces the decoded value.
  const firstContent = lines.find((l) => l.at + l.spaces < l.contentEnd);
  const candidates = new Set<number>();
  if (firstContent) candidates.add(firstContent.spaces);
  const maxSpaces = lines.reduce((m, l) => Math.max(m, l.spaces), 0);
  for (let n = 0; n <= maxSpaces; n++) candidates.add(n);
  for (const indent of candidates) {
    const r = decodeBlockLines(src, lines, indent, folded, chomp);
    if (r.decoded === expected) return r;
  }
  return undefined;
}

function decodeBlockLines(src: string, lines: BlockLine[], indent: number, folded: boolean, chomp: string): ScalarOffsets {
  const out = new Builder();
  const isEmpty = (l: BlockLine): boolean => l.at + l.spaces >= l.contentEnd;
  let chompStart = lines.length;
  while (chompStart > 0 && isEmpty(lines[chompStart - 1]!)) chompStart--;
  if (chompStart === 0) {
    if (chomp === '+' && lines.length > 0) {
      for (let i = 0; i < Math.max(1, lines.length - 1); i++) {
        const at = lines[i]!.breakAt >= 0 ? lines[i]!.breakAt : lines[i]!.at;
        out.push('\n', at, at + 1);
      }
    }
    return out.result();
  }
  // Trailing white-space-only lines indented beyond the content are content, not chomped breaks.
  for (let i = lines.length - 1; i >= chompStart; i--) if (lines[i]!.spaces > indent) chompStart = Math.max(chompStart, i + 1);
  let contentStart = 0;
  while (contentStart < chompStart && isEmpty(lines[contentStart]!)) contentStart++;
  const breakOf = (l: BlockLine): number => (l.breakAt >= 0 ? (src[l.breakAt - 1] === '\r' ? l.breakAt - 1 : l.breakAt) : l.contentEnd);
  for (let i = 0; i < contentStart; i++) {
    const l = lines[i]!;
    out.copy(src, l.at + Math.min(indent, l.spaces), l.contentEnd);
    out.push('\n', breakOf(l), breakOf(l) + 1);
  }
  let sep: '' | ' ' | '\n' | '\n\n' = '';
  let sepAt = -1;
  let prevMoreIndented = false;
  const emitSep = (): void => {
    for (const ch of sep) out.push(ch, sepAt, sepAt + 1);
  };
  for (let i = contentStart; i < chompStart; i++) {
    const l = lines[i]!;
    const from = l.at + Math.min(indent, l.spaces);
    const body = from < l.contentEnd;
    if (!folded) {
      emitSep();
      out.copy(src, from, l.contentEnd);
      sep = '\n';
    } else if (l.spaces > indent || (body && src[from] === '\t')) {
      if (sep === ' ') sep = '\n';
      else if (!prevMoreIndented && sep === '\n') sep = '\n\n';
      emitSep();
      out.copy(src, from, l.contentEnd);
      sep = '\n';
      prevMoreIndented = true;
    } else if (l.at + l.spaces >= l.contentEnd) {
      if (sep === '\n') out.push('\n', breakOf(l), breakOf(l) + 1);
      else sep = '\n';
    } else {
      emitSep();
      out.copy(src, from, l.contentEnd);
      sep = ' ';
      prevMoreIndented = false;
    }
    sepAt = breakOf(l);
  }
  const lastContent = lines[chompStart - 1]!;
  const lastBreak = lastContent.breakAt >= 0 ? breakOf(lastContent) : Math.max(0, lastContent.contentEnd - 1);
  if (chomp === '+') {
    // Keep: the last content line's break and every trailing empty line's break.
    for (let i = chompStart; i < lines.length; i++) {
      const at = i === chompStart ? lastBreak : breakOf(lines[i - 1]!);
      out.push('\n', at, at + 1);
    }
    if (!out.text.endsWith('\n')) out.push('\n', lastBreak, lastBreak + 1);
  } else if (chomp === '') {
    out.push('\n', lastBreak, lastBreak + 1);
  }
  return out.result();
}
