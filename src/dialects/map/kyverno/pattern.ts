/**
 * The value of a strategic-merge condition anchor `(k): pattern` as a CEL test of the resource value, with
 * Kyverno's semantics (strategicPreprocessing.go checkCondition → validate.MatchPattern; our reproduction is
 * src/merge/smp/anchors.ts and pattern-match.ts / pattern-value.ts):
 * - at the anchor itself a scalar resource value and a scalar pattern are both compared as their YAML text,
 *   so `(replicas): "1"` also matches the number 1; a list resource value must have every item match;
 * - below it (map patterns), values keep their JSON types: strings match by wildcard, booleans by equality,
 *   numbers only in Kyverno's exponent text (1 is "1E+00").
 * - a list pattern checks every element against its first pattern; an element whose condition anchor fails
 *   is passed over, and the list fails when every element was (validate.go validateArray, combineSkips).
 * Only plain string pieces and `!` before one are compiled, alone or combined by `|` and `&`: no other
 * operators (`> < >= <=`), ranges or durations; quantities only below the anchor, for exact equality. Pieces match by Kyverno's wildcards
 * (`*` any run, `?` exactly one character, go-wildcard as kyverno.md §1.4). Everything else is refused.
 */
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { parseDuration } from '../../../jmespath/functions/duration.js';
import { parseQuantity } from '../../../jmespath/functions/quantity.js';
import { scalarText } from '../../../merge/smp/go-text.js';
import { sortNestedAnchorsFirst } from '../../../merge/smp/pattern-match.js';
import { wildcardMatch } from '../../../k8s/glob.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { and, celString, has, not, or, paren, translationLimit, type Cel, type Place } from './cel-patch.js';
import { select } from '../emit-cel.js';

/** A pattern Kyverno matches as a plain wildcard string (pattern-value.ts isPlainPattern). */
export function isPlainPattern(p: string): boolean {
  return (
    !/[|&]/.test(p) &&
    p.trim() === p &&
    !/^(>=|<=|>|<|!)/.test(p.length >= 2 ? p : '') &&
    !/^[-|+]?\d+(\.\d+)?[A-Za-z]*!?-[-|+]?\d+(\.\d+)?[A-Za-z]*$/.test(p) &&
    !parseDuration(p).ok &&
    parseQuantity(p) === undefined
  );
}

function regexOf(pattern: string): string {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += /[\\^$.|?*+()[\]{}]/.test(ch) ? `\\${ch}` : ch;
  }
  return `(?s)^${re}$`;
}

/** Kyverno's wildcard match of the string `s` against a literal pattern. */
export function wildcardCel(s: Cel, pattern: string): Cel {
  if (pattern === '*') return 'true';
  if (!/[*?]/.test(pattern)) return `${paren(s)} == ${celString(pattern)}`;
  const inner = pattern.slice(1, -1);
  if (/^\*[^*?]+\*$/.test(pattern)) return `${paren(s)}.contains(${celString(inner)})`;
  if (/^[^*?]+\*$/.test(pattern)) return `${paren(s)}.startsWith(${celString(pattern.slice(0, -1))})`;
  if (/^\*[^*?]+$/.test(pattern)) return `${paren(s)}.endsWith(${celString(pattern.slice(1))})`;
  return `${paren(s)}.matches(${celString(regexOf(pattern))})`;
}

/**
 * A pattern of wildcards only, a `*` among them and at most one `?`: it matches every text but the empty one
 * (every text when it has no `?`), whatever the text: a number's (which is never empty) in any of the forms
 * Kyverno prints. (`?` alone matches texts of one character only.)
 */
function matchesEveryNonEmptyText(pattern: string): boolean {
  return /^[*?]+$/.test(pattern) && pattern.includes('*') && pattern.indexOf('?') === pattern.lastIndexOf('?');
}

/** Whether a plain pattern can match the exponent text Kyverno gives numbers below the anchor ("1E+00"). */
function matchesNumberText(pattern: string): boolean | undefined {
  if (matchesEveryNonEmptyText(pattern)) return true;
  // The exponent text holds only digits, `.`, `E`, `+` and `-`: a pattern with any other literal never matches it.
  if (/[^0-9.E+\-*?]/.test(pattern)) return false;
  return undefined;
}

/**
 * A plain pattern against a value compared as itself (below the anchor): strings by wildcard, booleans as
 * their text, numbers as their exponent text.
 */
function typedScalarMatch(v: Cel, piece: Piece): Cel | Refusal {
  if (piece.negated) return negatedTypedScalarMatch(v, piece.pattern);
  const pattern = piece.pattern;
  const numbers = matchesNumberText(pattern);
  if (numbers === undefined) return notYet(`the condition pattern ${JSON.stringify(pattern)} on numbers (Kyverno compares them in exponent form)`);
  const parts = [`(type(${v}) == string && ${wildcardCel(v, pattern)})`];
  // A boolean's text is "true" or "false": which of them the pattern matches is known here.
  const t = wildcardMatch(pattern, 'true');
  const f = wildcardMatch(pattern, 'false');
  if (t && f) parts.push(`type(${v}) == bool`);
  else if (t || f) parts.push(`(type(${v}) == bool && ${v} == ${t})`);
  if (numbers) parts.push(`type(${v}) in [int, uint, double]`);
  return or(parts);
}

/**
 * `!P` below the anchor (compareString with the NotEqual operator): a string, a boolean's text or a number's
 * exponent text that P does not match; null, maps and lists never pass (compareString is false for them).
 */
function negatedTypedScalarMatch(v: Cel, pattern: string): Cel | Refusal {
  const numbers = matchesNumberText(pattern);
  if (numbers === undefined) return notYet(`the condition pattern ${JSON.stringify(`!${pattern}`)} on numbers (Kyverno compares them in exponent form)`);
  const parts = [`(type(${v}) == string && !(${wildcardCel(v, pattern)}))`];
  const t = !wildcardMatch(pattern, 'true');
  const f = !wildcardMatch(pattern, 'false');
  if (t && f) parts.push(`type(${v}) == bool`);
  else if (t || f) parts.push(`(type(${v}) == bool && ${v} == ${t})`);
  if (!numbers) parts.push(`type(${v}) in [int, uint, double]`);
  return or(parts);
}

/** A piece of a string pattern: a plain wildcard pattern, or one under the NotEqual operator (`!P`). */
interface Piece {
  pattern: string;
  negated: boolean;
}

/**
 * A piece as Kyverno reads it (validateValueWithStringPattern): plain, or `!` then a plain pattern (the
 * operator cut off and the rest trimmed, operator.GetOperatorFromStringPattern); anything else is refused.
 */
function pieceOf(p: string): Piece | undefined {
  if (isPlainPattern(p)) return { pattern: p, negated: false };
  if (p.length < 2 || !p.startsWith('!')) return undefined;
  const rest = p.slice(1).replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');
  return rest !== '' && isPlainPattern(rest) ? { pattern: rest, negated: true } : undefined;
}

/** Whether the piece matches the text `text` (a string value), as compareString decides it. */
function pieceMatchesText(piece: Piece, text: string): boolean {
  return wildcardMatch(piece.pattern, text) !== piece.negated;
}

/**
 * The pieces of a string pattern Kyverno splits on `|` then `&` (validateStringPatterns, checkAndConditions),
 * each trimmed of spaces: alternatives of conjunctions. Plain pieces and `!` before a plain one are compiled.
 */
function alternativesOf(text: string): Piece[][] | Refusal {
  const refusal = notYet(`the condition pattern ${JSON.stringify(text)} (operators, durations and quantities are compared by Kyverno's own rules)`);
  const alternatives = /[|&]/.test(text) ? text.split('|').map((c) => trimSpaces(c).split('&').map(trimSpaces)) : [[text]];
  const pieces = alternatives.map((ps) => ps.map(pieceOf));
  return pieces.every((ps) => ps.every((x) => x !== undefined)) ? (pieces as Piece[][]) : refusal;
}

/** strings.Trim(s, " "). */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** The pieces combined, plus the whole text, which a string equal to it matches first (validateStringPatterns). */
function combinePieces(v: Cel, text: string, alternatives: Piece[][], piece: (p: Piece) => Cel | Refusal): Cel | Refusal {
  const ors: Cel[] = [];
  for (const pieces of alternatives) {
    const ands: Cel[] = [];
    for (const p of pieces) {
      const c = piece(p);
      if (typeof c !== 'string') return c;
      ands.push(c);
    }
    ors.push(and(ands) ?? 'true');
  }
  // Unless the pieces match the whole text themselves.
  const wholeMatched = alternatives.some((pieces) => pieces.every((p) => pieceMatchesText(p, text)));
  if (!wholeMatched) ors.unshift(`(type(${v}) == string && ${v} == ${celString(text)})`);
  return or(ors);
}

/** A piece against the text of a scalar resource value (checkCondition converts it to its YAML text). */
function scalarTextPiece(v: Cel, piece: Piece): Cel | Refusal {
  if (!piece.negated) return plainScalarTextPiece(v, piece.pattern);
  // `!P`: a scalar whose text P does not match. A map or a list is no text: compareString is false for it.
  const matched = plainScalarTextPiece(v, piece.pattern);
  if (typeof matched !== 'string') return matched;
  return `(type(${v}) != map && type(${v}) != list && !(${matched}))`;
}

/** A plain piece against the text of a scalar resource value. */
function plainScalarTextPiece(v: Cel, text: string): Cel | Refusal {
  // `*` matches the text of every scalar, null's ("null") included.
  if (text === '*') return `(type(${v}) != map && type(${v}) != list)`;
  // The text of a scalar resource value: strings as they are, integers and booleans as CEL prints them (their
  // YAML text), null as "null". A pattern without wildcards is no number (numbers parse as quantities); one
  // whose literal characters could all spell a number might match a double's text, which is refused.
  const literal = text.replace(/[*?]/g, '');
  // `?*` (non-empty) and the like match a decimal number's text, whichever Kyverno prints.
  const everyNumber = matchesEveryNonEmptyText(text);
  if (!everyNumber && /[*?]/.test(text) && /^[0-9.eE+-]*$/.test(literal)) return notYet(`the wildcard condition pattern ${JSON.stringify(text)}, which Kyverno also matches against the text of decimal numbers`);
  return or([
    `(type(${v}) == string && ${wildcardCel(v, text)})`,
    `(type(${v}) in [int, uint, bool] && ${wildcardCel(`string(${v})`, text)})`,
    ...(everyNumber ? [`type(${v}) == double`] : []),
    ...(new RegExp(regexOf(text).replace('(?s)', ''), 's').test('null') ? [`type(${v}) == null_type`] : []),
  ]);
}

/**
 * The anchor's own value (checkCondition → validate.MatchPattern): a scalar resource value compared as its
 * text, a list item by item (as themselves), maps and lists of patterns as validate.go walks them.
 */
export function anchorConditionCel(v: Cel, pattern: JsonValue): Cel | Refusal {
  if (isJsonObject(pattern) || Array.isArray(pattern)) {
    const m = treeMatch(v, pattern, 0);
    return 'why' in m ? m : m.ok;
  }
  const text = scalarText(pattern);
  const integer = integerPatternMatch(v, text);
  if (integer !== undefined) return integer;
  const alternatives = alternativesOf(text);
  if (!Array.isArray(alternatives)) return alternatives;
  const scalar = combinePieces(v, text, alternatives, (p) => scalarTextPiece(v, p));
  if (typeof scalar !== 'string') return scalar;
  const items = combinePieces('x', text, alternatives, (p) => typedScalarMatch('x', p));
  if (typeof items !== 'string') return items;
  return or([scalar, `(type(${v}) == list && ${v}.all(x, ${items}))`]);
}

/** A Go duration of zero length ("0s", "0.0m", "0h0m0s"): what compareDuration finds equal to the pattern "0". */
const ZERO_DURATION = '^[-+]?((0+(\\.0*)?|\\.0+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$';

/**
 * The anchor's own value against a pattern that is a plain integer (`(runAsUser): "0"`), or undefined for other
 * patterns. Kyverno compares the value's text (convertRNodeToInterface: a scalar's YAML text) equal, then as
 * durations (pattern "0" is Go's zero duration; no other integer parses as one), then as quantities
 * (pattern.go validateString). For an integer that is numeric equality; a string is compared as text, as a
 * quantity and, for "0", as a zero duration; a boolean's or null's text never matches. A double's text is the
 * YAML one, which CEL does not print alike: the CEL fails on one.
 */
function integerPatternMatch(v: Cel, text: string): Cel | undefined {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(text)) return undefined;
  // The value's static type may be one of the schema's (kube-apiserver type-checks against it): each branch
  // reads it as dyn, so that only the branch of its runtime type is taken.
  const d = `dyn(${v})`;
  const q = `quantity(${celString(text)})`;
  const asString = [`${d} == ${celString(text)}`, `(isQuantity(${d}) && quantity(${d}).compareTo(${q}) == 0)`];
  if (text === '0') asString.push(`${d}.matches(${celString(ZERO_DURATION)})`);
  return or([
    `(type(${v}) in [int, uint] && ${d} == ${text})`,
    `(type(${v}) == string && (${or(asString)}))`,
    `(type(${v}) == double && ${translationLimit(DOUBLE_TEXT_NOTE)})`,
  ]);
}

/** Why the CEL fails on a double below a condition on an integer pattern. */
const DOUBLE_TEXT_NOTE = 'a condition on an integer pattern is translated for integer and string values; Kyverno compares a double by its YAML text, which the CEL does not reproduce: it fails on one';

/**
 * A pattern Kyverno compares as a quantity (pattern.go validateString: compareDuration, then compareQuantity):
 * one Go's ParseQuantity reads that is no duration, operator, range or alternative.
 */
function isQuantityPattern(p: string): boolean {
  return p.trim() === p && !/[|&*?]/.test(p) && !/^(>=|<=|>|<|!)/.test(p) && !/\d-|!-/.test(p) && !parseDuration(p).ok && parseQuantity(p) !== undefined;
}

/**
 * A value below a condition anchor against a quantity pattern: equal text (validateStringPatterns), or both
 * read as quantities and equal (compareQuantity; convertNumberToString turns null into "0" and numbers into
 * their text, which Go prints for doubles with six decimals: doubles beyond that precision may differ), or,
 * for values that are no quantity, the wildcard-free text match compareString makes (equal strings only).
 */
function quantityMatch(v: Cel, pattern: string): Cel {
  const q = `quantity(${celString(pattern)})`;
  return or([
    `(type(${v}) == string && (${v} == ${celString(pattern)} || (isQuantity(${v}) && quantity(${v}).compareTo(${q}) == 0)))`,
    `(type(${v}) in [int, uint, double] && isQuantity(string(${v})) && quantity(string(${v})).compareTo(${q}) == 0)`,
    ...(parseQuantity(pattern)!.unscaled === 0n ? [`type(${v}) == null_type`] : []),
  ]);
}

/**
 * What validate.MatchPattern makes of a value below the anchor: `ok` it matches; `skip` a conditional anchor
 * of it failed first (validate.skip: an array of maps passes over such an element); neither: it fails.
 */
interface Match {
  ok: Cel;
  skip: Cel;
  /** `ok || skip`, stated once. */
  okOrSkip: Cel;
}

const NEVER: Cel = 'false';

/** A match that never skips. */
function never(ok: Cel): Match {
  return { ok, skip: NEVER, okOrSkip: ok };
}

/** validateElement below the anchor: maps, lists and leaves keep their JSON types. */
function treeMatch(v: Cel, p: JsonValue, depth: number): Match | Refusal {
  if (isJsonObject(p)) return mapMatch(v, p, depth);
  if (Array.isArray(p)) return listMatch(v, p, depth);
  // A leaf against a list resource value: every item must satisfy it.
  const x = `x${depth}`;
  const self = leafMatch(v, p);
  const item = leafMatch(x, p);
  if (typeof self !== 'string') return self;
  if (typeof item !== 'string') return item;
  const ok = or([self, `(type(${v}) == list && ${v}.all(${x}, ${item}))`]);
  return { ok, skip: NEVER, okOrSkip: ok };
}

/** pattern.Validate on a leaf, the value kept as its JSON type. */
function leafMatch(v: Cel, p: JsonValue): Cel | Refusal {
  if (typeof p === 'boolean') return `${v} == ${p}`;
  if (typeof p === 'string' && isQuantityPattern(p)) return quantityMatch(v, p);
  if (typeof p === 'string') {
    const alternatives = alternativesOf(p);
    if (!Array.isArray(alternatives)) return alternatives;
    return combinePieces(v, p, alternatives, (piece) => typedScalarMatch(v, piece));
  }
  return notYet(`the condition pattern ${JSON.stringify(p)} below a condition anchor`);
}

/**
 * validateArray: a list of map patterns checks every element against the first (elements whose condition
 * anchor fails are passed over, and the list fails when every element was: combineSkips); a list of
 * leaves checks every element against the first leaf.
 */
function listMatch(v: Cel, p: JsonValue[], depth: number): Match | Refusal {
  if (p.length === 0) return { ok: NEVER, skip: NEVER, okOrSkip: NEVER }; // "pattern Array empty"
  const first = p[0]!;
  const x = `x${depth}`;
  if (Array.isArray(first)) return notYet('a list of lists in a condition pattern');
  const isList = `type(${v}) == list`;
  if (!isJsonObject(first)) {
    const item = leafMatch(x, first);
    return typeof item === 'string' ? never(`${isList} && ${v}.all(${x}, ${item})`) : item;
  }
  const e = mapMatch(x, first, depth + 1);
  if ('why' in e) return e;
  if (e.skip === NEVER) return never(`${isList} && ${v}.all(${x}, ${e.ok})`);
  return never(`${isList} && ${v}.all(${x}, ${e.okOrSkip}) && (${v}.size() == 0 || ${v}.exists(${x}, ${e.ok}))`);
}

/**
 * validateMap: the value is a map, its condition anchors hold (checked first: a failure is conditional),
 * then every plain key matches (handleDefault: `*` asks for a non-null value) and every global anchor's key is
 * absent or matches. Plain keys and global anchors are checked in one order (sortNestedAnchorsFirst), and the
 * first that fails decides the kind of failure: a global anchor's is a skip to a list above, a plain key's is not.
 */
function mapMatch(v: Cel, pattern: Record<string, JsonValue>, depth: number): Match | Refusal {
  const at: Place = { cel: v, ptr: [] };
  const isMap = `type(${v}) == map`;
  const anchors: Cel[] = [];
  const checks: { key: string; test: Cel; global: boolean }[] = [];
  for (const [k, p] of Object.entries(pattern)) {
    // wildcards.ExpandInMetadata renames wildcard keys of labels and annotations after the resource's keys.
    if (/[*?]/.test(k)) return notYet(`the wildcard key ${JSON.stringify(k)} in a condition pattern`);
    const a = parseAnchor(k);
    if (a && a.modifier !== 'condition' && a.modifier !== 'global') return notYet(`the anchor ${k} inside a condition`);
    const key = a ? a.key : k;
    const child = select(v, key);
    if (a) {
      const inner = treeMatch(child, p, depth + 1);
      if ('why' in inner) return inner;
      // Any failure below a global anchor is the anchor's; an absent key satisfies it.
      if (a.modifier === 'global') checks.push({ key: k, test: or([not(has(at, key)), inner.ok]), global: true });
      else anchors.push(and([has(at, key), inner.ok])!);
      continue;
    }
    if (p === '*') {
      checks.push({ key: k, test: and([has(at, key), `${child} != null`])!, global: false });
      continue;
    }
    const inner = treeMatch(child, p, depth + 1);
    if ('why' in inner) return inner;
    if (inner.skip !== NEVER) return notYet(`the condition anchor below the key ${k} of a condition pattern`);
    // A missing key is nil to the leaf check, which a quantity pattern of zero accepts (convertNumberToString).
    const missingMatches = typeof p === 'string' && isQuantityPattern(p) && parseQuantity(p)!.unscaled === 0n;
    checks.push({ key: k, test: missingMatches ? or([not(has(at, key)), inner.ok]) : and([has(at, key), inner.ok])!, global: false });
  }
  const anchorsHold = and(anchors);
  if (!checks.some((c) => c.global)) {
    const plain = checks.map((c) => c.test);
    const ok = and([isMap, anchorsHold, ...plain])!;
    if (anchorsHold === undefined) return never(ok);
    return { ok, skip: and([isMap, not(anchorsHold)])!, okOrSkip: and([isMap, or([not(anchorsHold), and(plain) ?? 'true'])])! };
  }
  const order = new Map(sortNestedAnchorsFirst(checks.map((c) => [c.key, pattern[c.key]!])).map(([key], i) => [key, i]));
  const ordered = [...checks].sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  const all = and(ordered.map((c) => c.test))!;
  // The first failing check is a global anchor's: those before it hold, it does not.
  const globalFirst = or(ordered.flatMap((c, i) => (c.global ? [and([...ordered.slice(0, i).map((x) => x.test), not(c.test)])!] : [])))!;
  const ok = and([isMap, anchorsHold, all])!;
  const skip = and([isMap, anchorsHold === undefined ? globalFirst : or([not(anchorsHold), globalFirst])])!;
  const okOrSkip = and([isMap, anchorsHold === undefined ? or([all, globalFirst]) : or([not(anchorsHold), all, globalFirst])])!;
  return { ok, skip, okOrSkip };
}
