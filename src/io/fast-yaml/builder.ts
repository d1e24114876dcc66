/**
 * The structure level of the fast YAML path: block mappings and sequences (kubectl's style, a sequence at its
 * key's indentation, and the indented style), documents separated by `---`, built straight into JSON values with
 * go-yaml v2 scalar resolution (go-yaml-resolve.ts), as yaml-convert.ts builds them from the `yaml` package's
 * AST. Each document gets the ranges the reference gives it (`start`, `end`, `contents`), so the lazy spans of
 * yaml-spans.ts (which re-read the document's slice with the `yaml` package when a diagnostic needs a position)
 * are the same whichever path read the text.
 *
 * Only documents whose root is a mapping at column 0 are read here; a duplicate key, a merge key (`<<`), a key
 * JSON cannot have, NaN or an infinity, or nesting near the depth limit throw `Unsupported`, so the reference
 * reports them with its own diagnostics.
 */
import { defineOwn, hasOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { jsonKeyOf, resolveScalar } from '../go-yaml-resolve.js';
import type { ParsedDocument } from '../yaml-parse.js';
import { END, NL, Scanner } from './scanner.js';

/**
 * resolve.go `resolveTable`: a plain scalar whose first character is none of these is a string, whatever
 * follows (digits, signs, `.`, `~`, and the first letters of the YAML 1.1 booleans and null).
 */
const MAY_RESOLVE = new Uint8Array(128);
for (const c of '0123456789+-.~yYnNtTfFoO') MAY_RESOLVE[c.charCodeAt(0)] = 1;

const COMMENT_LINE = /^ *#/m;

/**
 * The characters of every plain scalar go-yaml resolves to a number or a timestamp (decimal, hex `0x`, octal
 * `0o`/`0`, binary `0b` integers with `_`; floats with `.` and exponents; `2001-12-14t21:59:43.10-05:00`, `Z`, a
 * space before the time). A scalar starting with a digit with any other character (`128Mi`, `500m`) is a string.
 */
const NUMBER_OR_TIME = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEFxXoObB_.+-:tTZ ') NUMBER_OR_TIME[c.charCodeAt(0)] = 1;

function onlyNumberOrTimeCharacters(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || NUMBER_OR_TIME[c] === 0) return false;
  }
  return true;
}

/** An unsigned decimal without a leading zero and short enough to be exact (`8080`), else -1. */
function smallDecimal(s: string): number {
  const n = s.length;
  if (n > 15 || (s.charCodeAt(0) === 48 && n > 1)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Resolved plain keys (keys repeat across documents); cleared when large so a stream stays in constant memory. */
const KEY_CACHE_LIMIT = 4096;
const keyCaches = [new Map<string, string>(), new Map<string, string>()];

class Builder {
  private readonly keys: Map<string, string>;
  /** `contentEnd` after the line of the last empty value (`key:` with nothing after it). */
  private emptyValueEnd = -1;

  constructor(
    private readonly s: Scanner,
    private readonly maxDepth: number,
    private readonly yaml12: boolean,
  ) {
    this.keys = keyCaches[yaml12 ? 1 : 0]!;
  }

  documents(): ParsedDocument[] {
    const s = this.s;
    const docs: ParsedDocument[] = [];
    let marker = -1;
    for (;;) {
      const indent = s.nextContentLine();
      if (indent === END) {
        if (s.atEof()) return docs; // what follows the last document's content: an empty document, dropped
        marker = s.consumeDocumentStart();
        continue;
      }
      if (indent !== 0 || s.atSequenceEntry()) s.fail('root is not a mapping at column 0');
      const contentStart = s.at;
      s.pos = s.at;
      const value = this.map(0, 1, false);
      // The reference's root node absorbs some comment lines after the last entry (its `contents` range, used for
      // TM1005, then ends after them), depending on its lexer's indentation state; rather than model that, leave
      // such documents to it.
      if (COMMENT_LINE.test(s.text.slice(s.contentEnd, s.pos))) s.fail('comment after the last entry');
      // Nor does it end a document whose last value is empty (`key:`) where the text does.
      if (this.emptyValueEnd === s.contentEnd) s.fail('empty value at the end of a document');
      docs.push({
        start: marker >= 0 ? marker : contentStart,
        end: s.pos,
        contents: [contentStart, s.contentEnd],
        empty: false,
        issues: [],
        value,
      });
      marker = -1;
    }
  }

  /** A block mapping whose keys are at column `indent`; `pos` at its first key (already read when `keyRead`). */
  private map(indent: number, depth: number, keyRead: boolean): JsonObject {
    const s = this.s;
    if (depth >= this.maxDepth) s.fail('deep');
    const out: JsonObject = {};
    for (;;) {
      if (!keyRead && !s.readScalar()) s.fail('not a key');
      keyRead = false;
      const key = s.tokenPlain ? this.plainKey(s.token) : s.token;
      if (hasOwn(out, key)) s.fail('duplicate key');
      defineOwn(out, key, this.valueAfterKey(indent, depth));
      const next = s.nextContentLine();
      if (next < indent) return out;
      if (next > indent || s.atSequenceEntry()) s.fail('bad indentation');
      s.pos = s.at;
    }
  }

  /** A block sequence whose `-` are at column `indent`; `pos` at the line start of its first entry. */
  private seq(indent: number, depth: number): JsonValue[] {
    const s = this.s;
    if (depth >= this.maxDepth) s.fail('deep');
    const out: JsonValue[] = [];
    for (;;) {
      const lineStart = s.pos;
      s.pos = s.at + 1;
      const c = s.skipSpaces();
      if (c === NL || c !== c || c === 35 /* # */) {
        s.lineEnd();
        out.push(this.blockValue(indent, depth, false));
      } else {
        s.at = s.pos;
        const column = s.pos - lineStart;
        if (s.atSequenceEntry()) {
          s.pos = lineStart;
          out.push(this.seq(column, depth + 1));
        } else out.push(this.inlineValue(indent, depth, column));
      }
      const next = s.nextContentLine();
      if (next === indent && s.atSequenceEntry()) continue;
      if (next <= indent) return out;
      s.fail('bad indentation');
    }
  }

  /** The value after `key:` (`pos` after the colon) of a mapping at column `indent`. */
  private valueAfterKey(indent: number, depth: number): JsonValue {
    const s = this.s;
    const c = s.skipSpaces();
    if (c === NL || c !== c || c === 35 /* # */) {
      s.lineEnd();
      return this.blockValue(indent, depth, true);
    }
    return this.inlineValue(indent, depth, -1);
  }

  /**
   * A node on the lines after its key or `-` (`pos` at a line start): a nested block collection, a kubectl-style
   * sequence at the key's own indentation, a plain or quoted scalar on its own line, or nothing (null).
   */
  private blockValue(ownerIndent: number, depth: number, inMap: boolean): JsonValue {
    const s = this.s;
    const indent = s.nextContentLine();
    if (indent > ownerIndent) {
      if (s.atSequenceEntry()) return this.seq(indent, depth + 1);
      s.pos = s.at;
      const c = s.text.charCodeAt(s.pos);
      if (c === 124 || c === 62 || c === 123 || c === 91) s.fail('block scalar or flow collection on its own line');
      const commented = s.skippedComment;
      if (s.readScalar()) return this.map(indent, depth + 1, true);
      // A comment line less indented than the scalar lowers the lexer's `indentNext` (lexer.js parseLineStart),
      // after which every following line continues the scalar; leave that to the reference.
      if (commented) s.fail('comment before a scalar on its own line');
      return this.scalarToken(ownerIndent);
    }
    if (indent === ownerIndent && inMap && s.atSequenceEntry()) return this.seq(indent, depth + 1);
    this.emptyValueEnd = s.contentEnd;
    return null;
  }

  /**
   * A node that starts on the current line at `pos`. `column` is its column when it may be a compact mapping
   * (after `- `), or -1 after a key, where a mapping cannot start on the same line.
   */
  private inlineValue(ownerIndent: number, depth: number, column: number): JsonValue {
    const s = this.s;
    const c = s.text.charCodeAt(s.pos);
    if (c === 124 /* | */ || c === 62 /* > */) return s.blockScalar(ownerIndent);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const value = this.flowCollection(depth + 1);
      s.lineEnd();
      return value;
    }
    if (s.readScalar()) {
      if (column < 0) s.fail('mapping on the line of its key');
      return this.map(column, depth + 1, true);
    }
    return this.scalarToken(ownerIndent);
  }

  /**
   * A flow collection on one line (`[a, b]`, `{k: v, l: [1]}`) at `pos`; `pos` after it and the spaces that
   * follow. Trailing commas, empty entries, single-pair mappings inside sequences (`[a: b]`), keys without a
   * value and anything spanning lines are left to the reference.
   */
  private flowCollection(depth: number): JsonValue {
    const s = this.s;
    if (depth >= this.maxDepth) s.fail('deep');
    const t = s.text;
    const isMap = t.charCodeAt(s.pos) === 123;
    const close = isMap ? 125 : 93;
    s.pos++;
    let c = s.skipSpaces();
    const seq: JsonValue[] = [];
    const map: JsonObject = {};
    if (c === close) {
      s.pos++;
      s.skipSpaces();
      return isMap ? map : seq;
    }
    for (;;) {
      if (isMap) {
        if (c === 123 || c === 91) s.fail('collection as a key');
        s.readFlowScalar();
        const key = s.tokenPlain ? this.plainKey(s.token) : s.token;
        // After a quoted (JSON-like) key the value may follow the colon directly; after a plain one the plain
        // scalar itself would have swallowed a colon not followed by a space.
        if (t.charCodeAt(s.pos) !== 58 /* : */) s.fail('key without a value');
        s.pos++;
        c = s.skipSpaces();
        if (c === 44 || c === 125) s.fail('empty value');
        if (hasOwn(map, key)) s.fail('duplicate key');
        defineOwn(map, key, this.flowNode(depth));
      } else {
        seq.push(this.flowNode(depth));
        if (t.charCodeAt(s.pos) === 58) s.fail('pair in a flow sequence');
      }
      c = t.charCodeAt(s.pos);
      if (c === close) {
        s.pos++;
        s.skipSpaces();
        return isMap ? map : seq;
      }
      if (c !== 44 /* , */) s.fail('flow collection syntax');
      s.pos++;
      c = s.skipSpaces();
      if (c === close || c === 44) s.fail('empty entry');
    }
  }

  private flowNode(depth: number): JsonValue {
    const s = this.s;
    const c = s.text.charCodeAt(s.pos);
    if (c === 123 || c === 91) return this.flowCollection(depth + 1);
    s.readFlowScalar();
    return s.tokenPlain ? this.plainValue(s.token) : s.token;
  }

  /** The scalar just read, to the end of its line (and its continuation lines when plain). */
  private scalarToken(ownerIndent: number): JsonValue {
    const s = this.s;
    if (!s.tokenPlain) {
      s.lineEnd();
      return s.token;
    }
    const first = s.token;
    return this.plainValue(s.lineEnd() ? s.foldPlain(first, ownerIndent) : first);
  }

  private plainValue(text: string): JsonValue {
    const c = text.charCodeAt(0);
    if (c < 128 && MAY_RESOLVE[c] === 0) return text;
    if (c >= 48 && c <= 57) {
      const n = smallDecimal(text);
      if (n >= 0) return n;
      if (!onlyNumberOrTimeCharacters(text)) return text;
    }
    const r = resolveScalar(text, true, undefined, this.yaml12);
    if ('error' in r) this.s.fail('unresolvable');
    if (typeof r.value === 'number' && !Number.isFinite(r.value)) this.s.fail('NaN or infinity');
    return r.value;
  }

  private plainKey(text: string): string {
    let key = this.keys.get(text);
    if (key !== undefined) return key;
    if (text === '<<') this.s.fail('merge key');
    const c = text.charCodeAt(0);
    if (c < 128 && MAY_RESOLVE[c] === 0) key = text;
    else {
      const r = resolveScalar(text, true, undefined, this.yaml12);
      const k = 'error' in r ? r : jsonKeyOf(r);
      if (typeof k !== 'string') this.s.fail('key JSON cannot have');
      key = k;
    }
    if (this.keys.size >= KEY_CACHE_LIMIT) this.keys.clear();
    this.keys.set(text, key);
    return key;
  }
}

/** Every non-empty document of `text`; throws `Unsupported` when any part is outside the subset. */
export function buildBlockDocuments(text: string, maxDepth: number, yaml12: boolean): ParsedDocument[] {
  return new Builder(new Scanner(text), maxDepth, yaml12).documents();
}
