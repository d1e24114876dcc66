/**
 * The token level of the fast YAML path: a cursor over block-style YAML as kubectl, Helm and Kustomize write it
 * (one construct per line, spaces for indentation), reading lines, plain and quoted single-line scalars and
 * literal/folded block scalars. Anything outside that subset throws `Unsupported`, and the caller hands the whole
 * text to the reference loader (yaml-parse.ts), so a construct is either read exactly as the `yaml` package reads
 * it or not read here at all.
 *
 * The rules mirror the `yaml` package's lexer (parse/lexer.js `parsePlainScalar`, `parseLineStart`) and composer
 * (compose/resolve-flow-scalar.js, compose/resolve-block-scalar.js); where they have corner cases (multi-line flow
 * scalars, explicit indentation indicators, more-indented folded lines, tabs, CR line ends), this scanner gives up.
 */

/** Thrown when the text leaves the supported subset; never escapes the fast path (see fast-path.ts). */
export class Unsupported {
  constructor(readonly why: string) {}
}

export const NL = 10;
export const SP = 32;
const TAB = 9;
const HASH = 35;
const COLON = 58;
const DASH = 45;
const DOT = 46;
const SQUOTE = 39;
const DQUOTE = 34;
const BACKSLASH = 92;
const PIPE = 124;
const GT = 62;
const PLUS = 43;

/** Indent returned by `nextContentLine` at the end of the text or at a document marker (`---`, `...`). */
export const END = -1;

/** The `yaml` package refuses implicit keys over 1024 characters; stay well away from that edge. */
const MAX_KEY_LENGTH = 1000;

/** yaml's resolve-flow-scalar.js `escapeCodes`, the one-character escapes of a double-quoted scalar. */
const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/** First characters that could make a continuation line something else than more text of the scalar. */
const NOT_CONTINUATION_START = new Uint8Array(128);
for (const c of '-?:,[]{}#&*!|>\'"%@`\t') NOT_CONTINUATION_START[c.charCodeAt(0)] = 1;

/** `,[]{}`: they end a plain scalar inside a flow collection. */
const FLOW_INDICATOR = new Uint8Array(128);
for (const c of ',[]{}') FLOW_INDICATOR[c.charCodeAt(0)] = 1;

/** A character that ends a token: white space, a line break, or the end of the text (NaN). */
function isBlank(c: number): boolean {
  return c === SP || c === NL || c !== c;
}

export class Scanner {
  /** Current offset. Between constructs it is at the start of a line. */
  pos = 0;
  /** Offset of the first non-space character of the line found by `nextContentLine`. */
  at = 0;
  /** End of the last line holding content (after its line break): the end of the document's root node. */
  contentEnd = 0;
  /** Whether the last `nextContentLine` passed over a comment line. */
  skippedComment = false;
  /** Set by `readScalar`: the token read, and whether it was plain (only plain scalars are resolved). */
  token = '';
  tokenPlain = false;

  constructor(readonly text: string) {}

  fail(why: string): never {
    throw new Unsupported(why);
  }

  /**
   * From a line start, skips blank and comment lines; returns the indentation of the next content line (its
   * first character at `at`, `pos` left at its line start), or END at the end of the text or at a document
   * marker line (then `pos` is that line's start).
   */
  nextContentLine(): number {
    const t = this.text;
    const len = t.length;
    let line = this.pos;
    this.skippedComment = false;
    while (line < len) {
      let i = line;
      let c = t.charCodeAt(i);
      while (c === SP) c = t.charCodeAt(++i);
      if (c === NL) {
        line = i + 1;
        continue;
      }
      if (c === HASH) {
        this.skippedComment = true;
        const nl = t.indexOf('\n', i);
        line = nl < 0 ? len : nl + 1;
        continue;
      }
      if (c === TAB) this.fail('tab in indentation');
      if (c !== c) break; // spaces up to the end of the text
      this.pos = line;
      this.at = i;
      if (i === line && (c === DASH || c === DOT) && t.startsWith(c === DASH ? '---' : '...', i)) {
        if (!isBlank(t.charCodeAt(i + 3)) && t.charCodeAt(i + 3) !== TAB) this.fail('line starting with --- or ... that is not a marker');
        return END;
      }
      return i - line;
    }
    this.pos = len;
    this.at = len;
    return END;
  }

  /** True at end of text (after `nextContentLine` returned END). */
  atEof(): boolean {
    return this.pos >= this.text.length;
  }

  /** At a `---` line (after `nextContentLine` returned END): consumes it, returns its offset. Content after it is left to the reference. */
  consumeDocumentStart(): number {
    const t = this.text;
    const start = this.pos;
    if (t.charCodeAt(start) !== DASH) this.fail('document end marker');
    let i = start + 3;
    while (t.charCodeAt(i) === SP) i++;
    const c = t.charCodeAt(i);
    if (c === NL) this.pos = i + 1;
    else if (c !== c) this.pos = i;
    else this.fail('content after ---');
    return start;
  }

  /** `- ` (or `-` at the end of its line) at `at`: a block sequence entry. */
  atSequenceEntry(): boolean {
    if (this.text.charCodeAt(this.at) !== DASH) return false;
    const n = this.text.charCodeAt(this.at + 1);
    if (n === TAB) this.fail('tab after -');
    return isBlank(n);
  }

  /**
   * After a scalar: spaces, then a comment (after at least one space) or the line break; consumes the line.
   * Returns false when the line ended in a comment.
   */
  lineEnd(): boolean {
    const t = this.text;
    let i = this.pos;
    let c = t.charCodeAt(i);
    while (c === SP) c = t.charCodeAt(++i);
    if (c === NL) {
      this.pos = this.contentEnd = i + 1;
      return true;
    }
    if (c !== c) {
      this.pos = this.contentEnd = i;
      return true;
    }
    if (c === HASH && i > 0 && t.charCodeAt(i - 1) === SP) {
      const nl = t.indexOf('\n', i);
      this.pos = this.contentEnd = nl < 0 ? t.length : nl + 1;
      return false;
    }
    this.fail(c === TAB ? 'tab' : 'more than one node on a line');
  }

  /**
   * After the first line of a plain scalar (`pos` at the next line start): its continuation lines, those indented
   * more than `ownerIndent` (the lexer's `continueScalar`), folded as yaml's `unfoldLines` folds them: a line
   * break is a space, each empty line a line feed. Comments, indicators and `: ` on a continuation line are left
   * to the reference.
   */
  foldPlain(first: string, ownerIndent: number): string {
    const t = this.text;
    let value = first;
    let line = this.pos;
    let empty = 0;
    for (;;) {
      let i = line;
      let c = t.charCodeAt(i);
      while (c === SP) c = t.charCodeAt(++i);
      if (c === NL) {
        empty++;
        line = i + 1;
        continue;
      }
      if (c !== c || i - line <= ownerIndent) return value;
      if (c < 128 && NOT_CONTINUATION_START[c] === 1) this.fail('indicator on a continuation line');
      const nl = t.indexOf('\n', i);
      const lineEnd = nl < 0 ? t.length : nl;
      let end = i;
      for (let k = i; k < lineEnd; k++) {
        const ch = t.charCodeAt(k);
        if (ch === TAB || (ch === COLON && (k + 1 === lineEnd || t.charCodeAt(k + 1) === SP)) || (ch === HASH && t.charCodeAt(k - 1) === SP)) {
          this.fail('tab, comment or key on a continuation line');
        }
        if (ch !== SP) end = k + 1;
      }
      value += (empty > 0 ? '\n'.repeat(empty) : ' ') + t.slice(i, end);
      empty = 0;
      line = nl < 0 ? t.length : nl + 1;
      this.pos = this.contentEnd = line;
    }
  }

  /** Skips the spaces at `pos`. */
  skipSpaces(): number {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (c === SP) c = t.charCodeAt(++this.pos);
    return c;
  }

  /**
   * A plain or quoted scalar at `pos`, on one line, into `token`/`tokenPlain`. Returns true when it is an
   * implicit key (followed by `:` and a space or the line end; `pos` is then after the `:`), false when it is a
   * value (`pos` after it). Throws on what can only be read by the reference: indicators (`&`, `*`, `!`, `?`,
   * flow collections with content, ...), multi-line scalars, and keys too long for the `yaml` package.
   */
  readScalar(): boolean {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === SQUOTE || c === DQUOTE) {
      const start = this.pos;
      this.token = c === SQUOTE ? this.singleQuoted() : this.doubleQuoted();
      this.tokenPlain = false;
      let i = this.pos;
      while (t.charCodeAt(i) === SP) i++;
      if (t.charCodeAt(i) === COLON && isBlank(t.charCodeAt(i + 1))) {
        if (i - start > MAX_KEY_LENGTH) this.fail('long key');
        this.pos = i + 1;
        return true;
      }
      return false;
    }
    this.plainStart(c);
    this.tokenPlain = true;
    const start = this.pos;
    let i = start;
    let end = start;
    let key = false;
    for (;;) {
      const ch = t.charCodeAt(i);
      if (ch === NL || ch !== ch) break;
      if (ch === COLON) {
        const n = t.charCodeAt(i + 1);
        if (isBlank(n)) {
          key = true;
          break;
        }
        if (n === TAB) this.fail('tab');
        end = i + 1;
      } else if (ch === SP) {
        if (t.charCodeAt(i + 1) === HASH) break;
      } else if (ch === TAB) this.fail('tab in a plain scalar');
      else end = i + 1;
      i++;
    }
    this.token = t.slice(start, end);
    if (key) {
      if (end - start > MAX_KEY_LENGTH) this.fail('long key');
      this.pos = i + 1;
      return true;
    }
    this.pos = i;
    return false;
  }

  /** yaml's lexer and `plainValue`: what may start a plain scalar in block context. */
  private plainStart(c: number): void {
    switch (c) {
      case DASH:
      case 63: // ?
      case COLON:
        // `-x`, `?x`, `:x` are plain; the indicator followed by a space is not for us.
        if (isBlank(this.text.charCodeAt(this.pos + 1)) || this.text.charCodeAt(this.pos + 1) === TAB) this.fail('indicator');
        return;
      case 44: // ,
      case 91: // [
      case 93: // ]
      case 123: // {
      case 125: // }
      case HASH:
      case 38: // &
      case 42: // *
      case 33: // !
      case PIPE:
      case GT:
      case 37: // %
      case 64: // @
      case 96: // `
      case TAB:
      case NL:
      case SP:
        this.fail('indicator');
    }
    if (c !== c) this.fail('empty');
  }

  /** A single-quoted scalar on one line (`''` is a quote). */
  private singleQuoted(): string {
    const t = this.text;
    let i = this.pos + 1;
    let out = '';
    let from = i;
    const nl = t.indexOf('\n', i);
    const lineEnd = nl < 0 ? t.length : nl;
    for (;;) {
      const q = t.indexOf("'", i);
      if (q < 0 || q > lineEnd) this.fail('multi-line single-quoted scalar');
      if (t.charCodeAt(q + 1) === SQUOTE) {
        out += t.slice(from, q + 1);
        i = from = q + 2;
        continue;
      }
      out += t.slice(from, q);
      this.pos = q + 1;
      return out;
    }
  }

  /** A double-quoted scalar on one line, escapes decoded as yaml's `doubleQuotedValue` decodes them. */
  private doubleQuoted(): string {
    const t = this.text;
    let i = this.pos + 1;
    let out = '';
    let from = i;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === DQUOTE) {
        out += t.slice(from, i);
        this.pos = i + 1;
        return out;
      }
      if (c === NL || c !== c) this.fail('multi-line double-quoted scalar');
      if (c === BACKSLASH) {
        out += t.slice(from, i);
        const next = t[i + 1];
        if (next === undefined || next === '\n') this.fail('escaped line break');
        const simple = ESCAPES[next];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else {
          const width = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
          const hex = t.slice(i + 2, i + 2 + width);
          if (width === 0 || hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) this.fail('bad escape');
          const code = parseInt(hex, 16);
          if (code > 0x10ffff) this.fail('bad escape');
          out += String.fromCodePoint(code);
          i += 2 + width;
        }
        from = i;
        continue;
      }
      i++;
    }
  }

  /**
   * A scalar inside a flow collection on one line (`[a, "b"]`, `{k: v}`), into `token`/`tokenPlain`; `pos` after
   * it and the spaces that follow. A plain scalar also ends at `,[]{}` and at a `:` followed by one of those
   * (the lexer's `parsePlainScalar` in flow context).
   */
  readFlowScalar(): void {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === SQUOTE || c === DQUOTE) {
      this.token = c === SQUOTE ? this.singleQuoted() : this.doubleQuoted();
      this.tokenPlain = false;
    } else {
      this.plainStart(c);
      if ((c === DASH || c === 63 || c === COLON) && c < 128 && FLOW_INDICATOR[t.charCodeAt(this.pos + 1)] === 1) this.fail('indicator');
      this.tokenPlain = true;
      const start = this.pos;
      let i = start;
      let end = start;
      for (;;) {
        const ch = t.charCodeAt(i);
        if (ch === NL || ch !== ch) this.fail('multi-line flow collection');
        if (ch < 128 && FLOW_INDICATOR[ch] === 1) break;
        if (ch === COLON) {
          const n = t.charCodeAt(i + 1);
          if (isBlank(n) || (n < 128 && FLOW_INDICATOR[n] === 1)) break;
          end = i + 1;
        } else if (ch === SP) {
          if (t.charCodeAt(i + 1) === HASH) this.fail('comment in a flow collection');
        } else if (ch === TAB) this.fail('tab');
        else end = i + 1;
        i++;
      }
      this.token = t.slice(start, end);
      if (end - start > MAX_KEY_LENGTH) this.fail('long scalar in a flow collection');
      this.pos = i;
    }
    this.skipSpaces();
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar whose header is at `pos`, inside a collection indented by
   * `ownerIndent`; consumes its lines. Explicit indentation indicators, leading empty lines and white-space-only
   * lines deeper than the content are left to the reference.
   */
  blockScalar(ownerIndent: number): string {
    const t = this.text;
    const folded = t.charCodeAt(this.pos) === GT;
    let i = this.pos + 1;
    let chomp = 0; // 0 clip, -1 strip, 1 keep
    const h = t.charCodeAt(i);
    if (h === DASH) {
      chomp = -1;
      i++;
    } else if (h === PLUS) {
      chomp = 1;
      i++;
    }
    this.pos = i;
    this.lineEnd(); // a digit (indentation indicator) or anything else after the header fails here
    // The first content line fixes the indentation.
    const lines: string[] = [];
    let line = this.pos;
    let indent = 0;
    while (t.charCodeAt(line + indent) === SP) indent++;
    const first = t.charCodeAt(line + indent);
    if (first === NL || first !== first) this.fail('block scalar starting with an empty line');
    if (first === TAB) this.fail('tab in a block scalar');
    if (indent <= ownerIndent) this.fail('empty block scalar');
    let trailingEmpty = 0;
    let contentEnd = line;
    for (;;) {
      let sp = 0;
      let c = t.charCodeAt(line);
      while (c === SP && sp < indent) c = t.charCodeAt(line + ++sp);
      if (c === NL || c !== c) {
        if (c !== c) break; // only spaces up to the end of the text
        lines.push('');
        trailingEmpty++;
        line += sp + 1;
        continue;
      }
      if (sp < indent) break; // a less indented line ends the scalar
      const nl = t.indexOf('\n', line);
      const content = t.slice(line + indent, nl < 0 ? t.length : nl);
      if (c === SP && content.trim() === '') this.fail('white-space line deeper than the block');
      lines.push(content);
      trailingEmpty = 0;
      // The last line may end the text without a line break: chomping treats it as if it had one.
      line = nl < 0 ? t.length : nl + 1;
      contentEnd = line;
      if (nl < 0) break;
    }
    this.pos = line;
    const n = lines.length - trailingEmpty;
    let value = '';
    if (folded) {
      // resolve-block-scalar.js: lines fold into spaces, except around more-indented (or tab-led) lines.
      let sep = '';
      let prevMoreIndented = false;
      for (let k = 0; k < n; k++) {
        const l = lines[k]!;
        const lead = l.charCodeAt(0);
        if (lead === SP || lead === TAB) {
          if (sep === ' ') sep = '\n';
          else if (!prevMoreIndented && sep === '\n') sep = '\n\n';
          value += sep + l;
          sep = '\n';
          prevMoreIndented = true;
        } else if (l === '') {
          if (sep === '\n') value += '\n';
          else sep = '\n';
        } else {
          value += sep + l;
          sep = ' ';
          prevMoreIndented = false;
        }
      }
    } else value = lines.slice(0, n).join('\n');
    if (chomp === 0) value += '\n';
    else if (chomp === 1) {
      value += '\n'.repeat(trailingEmpty + 1);
      contentEnd = line;
    }
    this.contentEnd = contentEnd;
    return value;
  }
}
