/**
 * Gatekeeper's location path language (pkg/mutation/path/token/scanner.go, pkg/mutation/path/parser/parser.go)
 * as a chevrotain 11 lexer and parser.
 *
 *   path       = [ segment { "." segment } ] EOF ;            (the empty string is the empty path)
 *   segment    = ident [ "[" ident ":" ( "*" | ident | int ) "]" ] ;
 *   ident      = bare | "…" | '…' ;                          (a backslash takes the next character literally)
 *   int        = digit { digit } ;                            (decimal int64; tried before bare identifiers)
 *
 * Errors are upstream's three kinds with upstream's wording (`ErrUnexpectedToken` names the token it got, as
 * `TYPE: "literal"`), plus the offsets of the offending text in the input so a caller can point inside the
 * YAML string. Upstream stops at the first error; so does this parser (no recovery).
 */
import {
  createToken,
  EmbeddedActionsParser,
  EOF,
  Lexer,
  NoViableAltException,
  NotAllInputParsedException,
  type IRecognitionException,
  type IToken,
  type TokenType,
} from 'chevrotain';
import { goQuote } from '../src/dialects/gatekeeper/go-format.js';
import type { ListNode, LocationNode, ObjectNode } from '../src/dialects/gatekeeper/location.js';

// ---------------------------------------------------------------------------------------------- tokens

/** Upstream token type names (token/token.go), used in error messages and the scanner tables. */
export type GoTokenType = 'IDENT' | 'INT' | 'SEPARATOR' | 'LBRACKET' | 'RBRACKET' | 'GLOB' | 'COLON' | 'ERROR' | 'EOF';

const Ident = createToken({ name: 'IDENT', pattern: Lexer.NA });
const ErrorToken = createToken({ name: 'ERROR', pattern: Lexer.NA });

const WhiteSpace = createToken({ name: 'WS', pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED, line_breaks: true });
const Separator = createToken({ name: 'SEPARATOR', pattern: '.' });
const LBracket = createToken({ name: 'LBRACKET', pattern: '[' });
const RBracket = createToken({ name: 'RBRACKET', pattern: ']' });
const Glob = createToken({ name: 'GLOB', pattern: '*' });
const Colon = createToken({ name: 'COLON', pattern: ':' });
const DoubleQuoted = createToken({
  name: 'DQ_IDENT',
  pattern: /"(?:[^"\\]|\\[\s\S])*"/,
  categories: [Ident],
  line_breaks: true,
});
const SingleQuoted = createToken({
  name: 'SQ_IDENT',
  pattern: /'(?:[^'\\]|\\[\s\S])*'/,
  categories: [Ident],
  line_breaks: true,
});
// Tried only after both terminated forms failed, so it runs to the end of the input (scanner.go readString).
const Unterminated = createToken({
  name: 'UNTERMINATED',
  pattern: /["'][\s\S]*/,
  categories: [ErrorToken],
  line_breaks: true,
});
// Digits are scanned before identifiers: `0123_foo` is INT `0123` then IDENT `_foo` (scanner_13).
const Int = createToken({ name: 'INT', pattern: /[0-9]+/ });
const BareIdent = createToken({ name: 'BARE_IDENT', pattern: /[A-Za-z0-9_-]+/, categories: [Ident] });
// One code point (a surrogate pair counts once, as Go reads runes) that starts no other token. Written as a
// range rather than [\s\S]: chevrotain's first-character analysis of [\s\S] misses characters such as '+'.
const InvalidChar = createToken({
  name: 'INVALID_CHAR',
  pattern: /[\uD800-\uDBFF][\uDC00-\uDFFF]|[\u0000-\uFFFF]/,
  categories: [ErrorToken],
  line_breaks: true,
});

const ALL_TOKENS: TokenType[] = [
  WhiteSpace,
  Separator,
  LBracket,
  RBracket,
  Glob,
  Colon,
  DoubleQuoted,
  SingleQuoted,
  Unterminated,
  Int,
  BareIdent,
  InvalidChar,
  Ident,
  ErrorToken,
];

const lexer = new Lexer(ALL_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: true });

/** The text a quoted identifier stands for: `\x` is `x`, whatever x is; a trailing lone `\` is dropped. */
function unescapeQuoted(body: string): string {
  return body.replace(/\\([\s\S]?)/g, '$1');
}

function goTypeOf(tok: IToken): GoTokenType {
  const t = tok.tokenType;
  if (t === EOF) return 'EOF';
  if (t === DoubleQuoted || t === SingleQuoted || t === BareIdent) return 'IDENT';
  if (t === Unterminated || t === InvalidChar) return 'ERROR';
  return t.name as GoTokenType;
}

/** The token's literal as upstream's scanner produces it (quotes removed, escapes applied). */
function literalOf(tok: IToken): string {
  const t = tok.tokenType;
  if (t === EOF) return '';
  if (t === DoubleQuoted || t === SingleQuoted) return unescapeQuoted(tok.image.slice(1, -1));
  if (t === Unterminated) return unescapeQuoted(tok.image.slice(1));
  return tok.image;
}

/** Upstream `Token.String()`: `TYPE: "literal"`. */
function describe(tok: IToken): string {
  return `${goTypeOf(tok)}: ${goQuote(literalOf(tok))}`;
}

// ---------------------------------------------------------------------------------------------- scanner API

export interface LocationToken {
  type: GoTokenType;
  literal: string;
  /** Offsets of the token's text in the input: [start, end). EOF is [length, length). */
  start: number;
  end: number;
}

export interface ScanError {
  kind: 'ErrInvalidCharacter' | 'ErrUnterminatedString';
  start: number;
  end: number;
}

export interface ScanResult {
  /** Every token up to and including the first ERROR, or up to and including EOF. */
  tokens: LocationToken[];
  error?: ScanError;
}

function toLocationToken(tok: IToken, inputLength: number): LocationToken {
  if (tok.tokenType === EOF) return { type: 'EOF', literal: '', start: inputLength, end: inputLength };
  return { type: goTypeOf(tok), literal: literalOf(tok), start: tok.startOffset, end: tok.startOffset + tok.image.length };
}

/** Upstream's scanner as a token list (what `token.Scanner.Next` returns until EOF or the first ERROR). */
export function scanLocation(input: string): ScanResult {
  const lexed = lexer.tokenize(input);
  const tokens: LocationToken[] = [];
  for (const tok of lexed.tokens) {
    const t = toLocationToken(tok, input.length);
    tokens.push(t);
    if (t.type === 'ERROR') {
      const kind = tok.tokenType === Unterminated ? 'ErrUnterminatedString' : 'ErrInvalidCharacter';
      return { tokens, error: { kind, start: t.start, end: t.end } };
    }
  }
  tokens.push({ type: 'EOF', literal: '', start: input.length, end: input.length });
  return { tokens };
}

// ---------------------------------------------------------------------------------------------- parser

export type LocationErrorKind = 'ErrUnexpectedToken' | 'ErrTrailingSeparator' | 'ErrInvalidInteger';

export interface LocationError {
  kind: LocationErrorKind;
  /** Upstream's message, e.g. `unexpected token: expected ':' following keyField name, got: RBRACKET: "]"`. */
  message: string;
  /** Offsets of the offending text in the input: [start, end); at the end of input both are its length. */
  start: number;
  end: number;
}

export type LocationParseResult = { ok: true; path: LocationNode[] } | { ok: false; error: LocationError };

const INT64_MAX = (1n << 63n) - 1n;

/** Thrown from an action to stop parsing at an int64 key upstream cannot represent. */
class InvalidIntegerError extends Error {
  constructor(
    readonly detail: string,
    readonly token: IToken,
    readonly keyField: string,
  ) {
    super(detail);
  }
}

/**
 * Upstream parseInt64 (parser.go) accumulates in a wrapping int64 and reports overflow only when the running
 * value turns negative. A value that wraps past 2^64 back to a positive number is therefore accepted with
 * its wrapped value (e.g. `20000000000000000000`); this is kept on purpose, as the webhook behaves so.
 */
function parseGoInt64(digits: string): bigint | null {
  let result = 0n;
  for (const d of digits) {
    result = BigInt.asIntN(64, result * 10n + BigInt(d.charCodeAt(0) - 48));
    if (result < 0n) return null;
  }
  return result > INT64_MAX ? null : result;
}

// Error tags carried through chevrotain's ERR_MSG so the failure site can be told apart.
const AT_FIELD = 'field';
const AT_KEY_FIELD = 'keyField';
const AT_COLON = 'colon';
const AT_RBRACKET = 'rbracket';

class LocationParser extends EmbeddedActionsParser {
  /** The key field of the list spec being parsed, for upstream's "following keyField <name>" message. */
  keyField = '';

  constructor() {
    super(ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 1 });
    this.performSelfAnalysis();
  }

  readonly path = this.RULE('path', (): LocationNode[] => {
    const nodes: LocationNode[] = [];
    this.OPTION(() => {
      this.SUBRULE(this.segment, { ARGS: [nodes] });
      this.MANY(() => {
        this.CONSUME(Separator);
        this.SUBRULE2(this.segment, { ARGS: [nodes] });
      });
    });
    return nodes;
  });

  private readonly segment = this.RULE('segment', (nodes: LocationNode[]) => {
    const name = this.CONSUME(Ident, { ERR_MSG: AT_FIELD });
    this.ACTION(() => {
      const end = name.startOffset + name.image.length;
      nodes.push({ type: 'Object', reference: literalOf(name), range: { start: name.startOffset, end } } satisfies ObjectNode);
    });
    this.OPTION(() => {
      const open = this.CONSUME(LBracket);
      const key = this.CONSUME2(Ident, { ERR_MSG: AT_KEY_FIELD });
      this.ACTION(() => {
        this.keyField = literalOf(key);
      });
      this.CONSUME(Colon, { ERR_MSG: AT_COLON });
      const value = this.OR({
        DEF: [
          { ALT: () => ({ tok: this.CONSUME(Glob), glob: true }) },
          { ALT: () => ({ tok: this.CONSUME3(Ident), glob: false }) },
          { ALT: () => ({ tok: this.CONSUME(Int), glob: false }) },
        ],
      });
      const close = this.CONSUME(RBracket, { ERR_MSG: AT_RBRACKET });
      this.ACTION(() => {
        let keyValue: string | bigint | null = null;
        if (value.tok.tokenType === Int) {
          keyValue = parseGoInt64(value.tok.image);
          if (keyValue === null) {
            throw new InvalidIntegerError(`overflow in integer string: ${value.tok.image}`, value.tok, this.keyField);
          }
        } else if (!value.glob) {
          keyValue = literalOf(value.tok);
        }
        const valueEnd = value.tok.startOffset + value.tok.image.length;
        nodes.push({
          type: 'List',
          keyField: this.keyField,
          keyValue,
          glob: value.glob,
          range: { start: open.startOffset, end: close.startOffset + 1 },
          keyValueRange: { start: value.tok.startOffset, end: valueEnd },
        } satisfies ListNode);
      });
    });
  });
}

let parserInstance: LocationParser | undefined;

function parser(): LocationParser {
  parserInstance ??= new LocationParser();
  return parserInstance;
}

function tokenRange(tok: IToken, inputLength: number): { start: number; end: number } {
  if (tok.tokenType === EOF || Number.isNaN(tok.startOffset)) return { start: inputLength, end: inputLength };
  return { start: tok.startOffset, end: tok.startOffset + tok.image.length };
}

function unexpected(detail: string, tok: IToken, inputLength: number): LocationError {
  return { kind: 'ErrUnexpectedToken', message: `unexpected token: ${detail}, got: ${describe(tok)}`, ...tokenRange(tok, inputLength) };
}

/** Maps chevrotain's failure to upstream's error for the same input (parser.go Parse/parseList). */
function toLocationError(e: IRecognitionException, tokens: IToken[], p: LocationParser, inputLength: number): LocationError {
  const tok = e.token;
  if (e instanceof NotAllInputParsedException) {
    // Nothing parsed means the first token was not a field name; otherwise a segment ended on something
    // other than '.' or the end.
    const parsedSomething = tokens.length > 0 && tokens[0] !== tok;
    return unexpected(parsedSomething ? "expected '.' or eof" : 'expected field name or eof', tok, inputLength);
  }
  // The only alternation is the key value (chevrotain rewrites ERR_MSG for alternations, so test the class).
  if (e instanceof NoViableAltException) return unexpected('expected key value or glob in listSpec', tok, inputLength);
  switch (e.message) {
    case AT_FIELD: {
      if (tok.tokenType === EOF) {
        const sep = tokens[tokens.length - 1]!;
        return { kind: 'ErrTrailingSeparator', message: 'trailing separators are forbidden', start: sep.startOffset, end: sep.startOffset + 1 };
      }
      return unexpected('expected field name or eof', tok, inputLength);
    }
    case AT_KEY_FIELD:
      return unexpected('expected keyField in listSpec', tok, inputLength);
    case AT_COLON:
      return unexpected(`expected ':' following keyField ${p.keyField}`, tok, inputLength);
    case AT_RBRACKET:
      return unexpected("expected ']' following listSpec", tok, inputLength);
    default:
      return unexpected(e.message, tok, inputLength);
  }
}

/** Parses a location; the empty (or all-whitespace) string is the empty path, as upstream. */
export function parseLocation(input: string): LocationParseResult {
  const tokens = lexer.tokenize(input).tokens;
  const p = parser();
  p.input = tokens;
  p.keyField = '';
  let nodes: LocationNode[] | undefined;
  try {
    nodes = p.path();
  } catch (e) {
    if (!(e instanceof InvalidIntegerError)) throw e;
    return {
      ok: false,
      error: {
        kind: 'ErrInvalidInteger',
        message: `invalid integer: ${e.detail}: parsing key value for key: ${e.keyField}`,
        ...tokenRange(e.token, input.length),
      },
    };
  }
  const err = p.errors[0];
  if (err) return { ok: false, error: toLocationError(err, tokens, p, input.length) };
  return { ok: true, path: nodes ?? [] };
}
