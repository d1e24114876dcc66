/**
 * Kyverno's anchor keys (pkg/engine/anchor/anchor.go `Parse`) as a chevrotain 11 lexer and parser.
 *
 *   anchor   = [ modifier ] "(" key ")" EOF ;      (after Go strings.TrimSpace of the whole map key)
 *   modifier = "+" | "<" | "=" | "X" | "^" ;
 *   key      = one or more characters, no line feed ; (greedy: the key runs to the LAST ")")
 *
 * Upstream matches `^(?P<modifier>[+<=X^])?\((?P<key>.+)\)$` (Go RE2, `.` excludes "\n") against the trimmed
 * key. So `(a)(b)` is a condition on key `a)(b`, `((a))` a condition on `(a)`, `()` and `+()` are plain keys
 * (an empty key is not an anchor), `x(a)` is plain (the negation modifier is an upper-case X), and a key with
 * a line feed inside the parentheses is plain. PR kyverno#10789 (a hand-written parser accepting `+abc)`)
 * was closed unmerged, so the regular expression is the behaviour to reproduce.
 */
import { createToken, EmbeddedActionsParser, EOF, Lexer, type TokenType } from 'chevrotain';

/** The anchor types of pkg/engine/anchor (AnchorType): Condition "", Global "<", AddIfNotPresent "+", ... */
export type AnchorModifier = 'condition' | 'global' | 'addIfNotPresent' | 'equality' | 'negation' | 'existence';

export interface Anchor {
  modifier: AnchorModifier;
  /** The key inside the parentheses, exactly as written (not trimmed further). */
  key: string;
}

export type ParsedKey = ({ kind: 'anchor' } & Anchor) | { kind: 'plain'; key: string };

const MODIFIER_OF: Readonly<Record<string, AnchorModifier>> = {
  '+': 'addIfNotPresent',
  '<': 'global',
  '=': 'equality',
  X: 'negation',
  '^': 'existence',
};

const PREFIX_OF: Readonly<Record<AnchorModifier, string>> = {
  condition: '',
  global: '<',
  addIfNotPresent: '+',
  equality: '=',
  negation: 'X',
  existence: '^',
};

// ---------------------------------------------------------------------------------------------- tokens

// Tried in this order (chevrotain takes the first pattern that matches): a modifier character is its own
// token wherever it appears; inside the parentheses the parser accepts it as key text again.
const Modifier = createToken({ name: 'MODIFIER', pattern: /[+<=X^]/ });
const LParen = createToken({ name: 'LPAREN', pattern: '(' });
const RParen = createToken({ name: 'RPAREN', pattern: ')' });
// Written as ranges (everything but ( ) + < = X ^ and line feed): chevrotain cannot optimise a complement set.
const Text = createToken({
  name: 'TEXT',
  pattern: /[\u0000-\u0009\u000B-\u0027\u002A\u002C-\u003B\u003E-\u0057\u0059-\u005D\u005F-\uFFFF]+/,
});
// RE2's `.` does not match "\n": a key containing one can never be an anchor.
const LineFeed = createToken({ name: 'LF', pattern: /\n/, line_breaks: true });

const ALL_TOKENS: TokenType[] = [Modifier, LParen, RParen, Text, LineFeed];
const lexer = new Lexer(ALL_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: true });

class AnchorParser extends EmbeddedActionsParser {
  constructor() {
    super(ALL_TOKENS, { recoveryEnabled: false, maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  readonly anchor = this.RULE('anchor', (): { prefix: string; start: number; end: number } => {
    let prefix = '';
    this.OPTION(() => {
      prefix = this.CONSUME(Modifier).image;
    });
    const open = this.CONSUME(LParen);
    // The key is everything up to the closing parenthesis that ends the input (the regex's greedy `.+`).
    this.AT_LEAST_ONE({
      GATE: () => !(this.LA(1).tokenType === RParen && this.LA(2).tokenType === EOF),
      DEF: () => {
        this.OR([
          { ALT: () => this.CONSUME(Text) },
          { ALT: () => this.CONSUME2(Modifier) },
          { ALT: () => this.CONSUME2(LParen) },
          { ALT: () => this.CONSUME(RParen) },
        ]);
      },
    });
    const close = this.CONSUME2(RParen);
    return { prefix, start: open.startOffset + 1, end: close.startOffset };
  });
}

let parserInstance: AnchorParser | undefined;

function parser(): AnchorParser {
  parserInstance ??= new AnchorParser();
  return parserInstance;
}

// ---------------------------------------------------------------------------------------------- API

/** Go unicode.IsSpace, the set strings.TrimSpace removes (JS `\s` also has U+FEFF, which Go keeps). */
function isGoSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function parseTrimmed(text: string): Anchor | undefined {
  // Cheap shape test first: most map keys are plain and never reach the lexer.
  if (text.length < 3 || text.charCodeAt(text.length - 1) !== 0x29 /* ) */) return undefined;
  const first = text[0]!;
  if (first !== '(' && !(first in MODIFIER_OF && text[1] === '(')) return undefined;
  const lexed = lexer.tokenize(text);
  if (lexed.errors.length > 0) return undefined;
  const p = parser();
  p.input = lexed.tokens;
  const span = p.anchor();
  if (p.errors.length > 0) return undefined;
  return { modifier: span.prefix === '' ? 'condition' : MODIFIER_OF[span.prefix]!, key: text.slice(span.start, span.end) };
}

const cache = new Map<string, Anchor | null>();
const CACHE_LIMIT = 10_000;

/** anchor.Parse: the anchor a map key denotes, or undefined for a plain key. Results are memoised. */
export function parseAnchor(mapKey: string): Anchor | undefined {
  // An anchor ends with `)` once trimmed: a key ending with anything else but space is plain, with no look-up
  // (resource values are asked too, fresh strings every time).
  const last = mapKey.charCodeAt(mapKey.length - 1);
  if (last !== 0x29 /* ) */ && !isGoSpace(last)) return undefined;
  const hit = cache.get(mapKey);
  if (hit !== undefined) return hit ?? undefined;
  const anchor = parseTrimmed(goTrimSpace(mapKey));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(mapKey, anchor ?? null);
  return anchor;
}

/** A map key read as `{ modifier, key }` when it is an anchor, else as a plain key. */
export function parseAnchorKey(mapKey: string): ParsedKey {
  const a = parseAnchor(mapKey);
  return a ? { kind: 'anchor', ...a } : { kind: 'plain', key: mapKey };
}

/** anchor.String: the canonical spelling `<modifier>(<key>)` (what upstream looks the field up by). */
export function anchorString(a: Anchor): string {
  return `${PREFIX_OF[a.modifier]}(${a.key})`;
}

/** anchor.ContainsCondition: a condition `(k)` or global condition `<(k)`. */
export function isConditionOrGlobal(a: Anchor | undefined): boolean {
  return a !== undefined && (a.modifier === 'condition' || a.modifier === 'global');
}
