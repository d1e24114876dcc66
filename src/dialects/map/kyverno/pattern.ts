/**
 * The value of a strategic-merge condition anchor `(k): pattern` as a CEL test of the resource value, with
 * Kyverno's semantics (strategicPreprocessing.go checkCondition → validate.MatchPattern; our reproduction is
 * src/merge/smp/anchors.ts and pattern-match.ts / pattern-value.ts):
 * - at the anchor itself a scalar resource value and a scalar pattern are both compared as their YAML text,
 *   so `(replicas): "1"` also matches the number 1; a list resource value must have every item match;
 * - below it (map patterns), values keep their JSON types: strings match by wildcard, booleans by equality,
 *   numbers only in Kyverno's exponent text (1 is "1E+00").
 * Only plain string patterns are compiled: no `| &` alternatives, no operators (`> < ! …`), ranges,
 * durations or quantities, which Kyverno compares numerically. They match by Kyverno's wildcards (`*` any
 * run, `?` exactly one character, go-wildcard as kyverno.md §1.4). Everything else is refused.
 */
import { isJsonObject, type JsonValue } from '../../../ir/json.js';
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { parseDuration } from '../../../jmespath/functions/duration.js';
import { parseQuantity } from '../../../jmespath/functions/quantity.js';
import { scalarText } from '../../../merge/smp/go-text.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { and, celString, has, or, paren, type Cel, type Place } from './cel-patch.js';
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

/** Whether a plain pattern can match the exponent text Kyverno gives numbers below the anchor ("1E+00"). */
function matchesNumberText(pattern: string): boolean | undefined {
  if (pattern === '*') return true;
  // The exponent text holds only digits, `.`, `E`, `+` and `-`: a pattern with any other literal never matches it.
  if (/[^0-9.E+\-*?]/.test(pattern)) return false;
  return undefined;
}

/**
 * A plain pattern against a value compared as itself (below the anchor): strings by wildcard, booleans as
 * their text, numbers as their exponent text.
 */
function typedScalarMatch(v: Cel, pattern: string): Cel | Refusal {
  const numbers = matchesNumberText(pattern);
  if (numbers === undefined) return notYet(`the condition pattern ${JSON.stringify(pattern)} on numbers (Kyverno compares them in exponent form)`);
  const parts = [`(type(${v}) == string && ${wildcardCel(v, pattern)})`];
  if (pattern === '*' || /^(true|false)$/.test(pattern) || /^[*?]+/.test(pattern)) parts.push(`(type(${v}) == bool && ${wildcardCel(`string(${v})`, pattern)})`);
  if (numbers) parts.push(`type(${v}) in [int, uint, double]`);
  return or(parts);
}

/** The anchor's own value: scalars compared as text, lists item by item (as themselves). */
export function anchorConditionCel(v: Cel, pattern: JsonValue): Cel | Refusal {
  if (isJsonObject(pattern)) return mapPatternCel(v, pattern);
  if (Array.isArray(pattern)) return notYet('a condition anchor whose value is a list');
  const text = scalarText(pattern);
  if (!isPlainPattern(text)) return notYet(`the condition pattern ${JSON.stringify(text)} (operators, alternatives, durations and quantities are compared by Kyverno's own rules)`);
  const items = typedScalarMatch('x', text);
  if (typeof items !== 'string') return items;
  const list = `(type(${v}) == list && ${v}.all(x, ${items}))`;
  // `*` matches the text of every scalar, null's ("null") included.
  if (text === '*') return or([`(type(${v}) != map && type(${v}) != list)`, list]);
  // The text of a scalar resource value: strings as they are, integers and booleans as CEL prints them (their
  // YAML text), null as "null". A pattern without wildcards is no number (numbers parse as quantities); one
  // whose literal characters could all spell a number might match a double's text, which is refused.
  const literal = text.replace(/[*?]/g, '');
  if (/[*?]/.test(text) && /^[0-9.eE+-]*$/.test(literal)) return notYet(`the wildcard condition pattern ${JSON.stringify(text)}, which Kyverno also matches against the text of decimal numbers`);
  const scalar = or([
    `(type(${v}) == string && ${wildcardCel(v, text)})`,
    `(type(${v}) in [int, uint, bool] && ${wildcardCel(`string(${v})`, text)})`,
    ...(new RegExp(regexOf(text).replace('(?s)', ''), 's').test('null') ? [`type(${v}) == null_type`] : []),
  ]);
  return or([scalar, list]);
}

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

/** A map pattern: the value is a map and every plain key matches (validate.go validateMap, handleDefault). */
function mapPatternCel(v: Cel, pattern: Record<string, JsonValue>): Cel | Refusal {
  const at: Place = { cel: v, ptr: [] };
  const parts: Cel[] = [`type(${v}) == map`];
  for (const [k, p] of Object.entries(pattern)) {
    if (parseAnchor(k)) return notYet(`the anchor ${k} inside a condition`);
    const child = select(v, k);
    if (p === '*') {
      parts.push(and([has(at, k), `${child} != null`])!);
      continue;
    }
    if (isJsonObject(p)) {
      const inner = mapPatternCel(child, p);
      if (typeof inner !== 'string') return inner;
      parts.push(and([has(at, k), inner])!);
      continue;
    }
    if (typeof p === 'boolean') {
      parts.push(and([has(at, k), `${child} == ${p}`])!);
      continue;
    }
    if (typeof p === 'string' && isQuantityPattern(p)) {
      parts.push(and([has(at, k), quantityMatch(child, p)])!);
      continue;
    }
    if (typeof p === 'string') {
      if (!isPlainPattern(p)) return notYet(`the condition pattern ${JSON.stringify(p)} (operators, alternatives, durations and quantities are compared by Kyverno's own rules)`);
      const m = typedScalarMatch(child, p);
      if (typeof m !== 'string') return m;
      parts.push(and([has(at, k), m])!);
      continue;
    }
    return notYet(`the condition pattern ${JSON.stringify(p)} below a condition anchor`);
  }
  return and(parts)!;
}
