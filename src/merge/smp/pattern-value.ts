/**
 * Kyverno's leaf pattern check (pkg/engine/pattern/pattern.go `Validate`, with pkg/engine/operator): typed
 * equality for numbers, booleans and null, `|` / `&` combinations of string patterns with the operators
 * `>= <= > < !`, ranges `a-b` / `a!-b`, and for each piece a Go duration comparison, then a Kubernetes
 * quantity comparison, then a wildcard match. Values are decoded JSON (numbers are float64, as Kyverno
 * decodes them); `undefined` and `null` are Go's nil.
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import { parseDuration } from '../../jmespath/functions/duration.js';
import { parseQuantity, type Quantity } from '../../jmespath/functions/quantity.js';
import { wildcardMatch } from '../../k8s/glob.js';
import { goFloatE, goFloatF6 } from './go-text.js';

type Operator = '' | '>=' | '<=' | '>' | '<' | '!' | '-' | '!-';

// operator.InRangeRegex / NotInRangeRegex (note the `|` inside the sign class, as upstream writes it).
const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

/** pattern.Validate: whether a resource value satisfies a leaf pattern. */
export function validateValue(value: JsonValue | undefined, pattern: JsonValue): boolean {
  if (typeof pattern === 'boolean') return value === pattern;
  if (typeof pattern === 'number') return validateFloat(value, pattern);
  if (pattern === null) return validateNil(value);
  if (typeof pattern === 'string') return validateStringPatterns(value, pattern);
  if (Array.isArray(pattern)) return false; // "arrays are not supported as patterns"
  // A map pattern only checks that the value is a map (validateMapPattern).
  return isJsonObject(value);
}

function validateFloat(value: JsonValue | undefined, pattern: number): boolean {
  if (typeof value === 'number') return value === pattern;
  if (typeof value === 'string') {
    const parsed = goParseFloat(value);
    return parsed !== undefined && parsed === pattern;
  }
  return false;
}

/** strconv.ParseFloat for the decimal and special forms (hex floats and `_` separators are not accepted here). */
function goParseFloat(s: string): number | undefined {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

function validateNil(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') return value === '';
  if (typeof value === 'boolean') return !value;
  return false;
}

function validateStringPatterns(value: JsonValue | undefined, pattern: string): boolean {
  if (value === pattern) return true;
  if (isPlainPattern(pattern)) return compareString(value, pattern, '');
  for (const condition of pattern.split('|')) {
    if (checkAndConditions(value, trimSpaces(condition))) return true;
  }
  return false;
}

/**
 * Whether a string pattern matches exactly the strings equal to it: one plain piece (see isPlainPattern)
 * without the wildcards `*` and `?`, so that for a string value the whole check is `value === pattern`.
 */
export function isExactTextPattern(pattern: string): boolean {
  return !pattern.includes('*') && !pattern.includes('?') && isPlainPattern(pattern);
}

const plainPatterns = new Map<string, boolean>();
const PLAIN_LIMIT = 1024;

/**
 * A pattern of one piece, no operator, no surrounding spaces, neither a duration nor a quantity: the checks
 * below then reduce to compareString (patterns come from policies, so the answer is cached per text).
 */
function isPlainPattern(pattern: string): boolean {
  let plain = plainPatterns.get(pattern);
  if (plain === undefined) {
    plain =
      !/[|&]/.test(pattern) &&
      trimSpaces(pattern) === pattern &&
      goTrimAscii(pattern) === pattern &&
      operatorOf(pattern) === '' &&
      !parseDuration(pattern).ok &&
      parseQuantity(pattern) === undefined;
    if (plainPatterns.size >= PLAIN_LIMIT) plainPatterns.clear();
    plainPatterns.set(pattern, plain);
  }
  return plain;
}

function checkAndConditions(value: JsonValue | undefined, pattern: string): boolean {
  for (const condition of pattern.split('&')) {
    if (!validateStringPattern(value, trimSpaces(condition))) return false;
  }
  return true;
}

/** strings.Trim(s, " "): spaces only. */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** operator.GetOperatorFromStringPattern. */
function operatorOf(pattern: string): Operator {
  if (pattern.length < 2) return '';
  if (pattern.startsWith('>=')) return '>=';
  if (pattern.startsWith('<=')) return '<=';
  if (pattern.startsWith('>')) return '>';
  if (pattern.startsWith('<')) return '<';
  if (pattern.startsWith('!')) return '!';
  if (NOT_IN_RANGE.test(pattern)) return '!-';
  if (IN_RANGE.test(pattern)) return '-';
  return '';
}

function validateStringPattern(value: JsonValue | undefined, pattern: string): boolean {
  const op = operatorOf(pattern);
  if (op === '-') {
    const m = IN_RANGE.exec(pattern);
    return m !== null && validateStringPattern(value, `>= ${m[1]}`) && validateStringPattern(value, `<= ${m[2]}`);
  }
  if (op === '!-') {
    const m = NOT_IN_RANGE.exec(pattern);
    return m !== null && (validateStringPattern(value, `< ${m[1]}`) || validateStringPattern(value, `> ${m[2]}`));
  }
  return validateString(value, goTrimAscii(pattern.slice(op.length)), op);
}

/** strings.TrimSpace for the ASCII whitespace a pattern can carry. */
function goTrimAscii(s: string): string {
  return s.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');
}

function validateString(value: JsonValue | undefined, pattern: string, op: Operator): boolean {
  const duration = compareDuration(value, pattern, op);
  if (duration !== undefined) return duration;
  const quantity = compareQuantity(value, pattern, op);
  if (quantity !== undefined) return quantity;
  return compareString(value, pattern, op);
}

/** convertNumberToString: nil reads as "0", floats as %f; other types are not numbers. */
function numberText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return '0';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFloatF6(value);
  return undefined;
}

function byOperator(cmp: number, op: Operator): boolean | undefined {
  switch (op) {
    case '':
      return cmp === 0;
    case '!':
      return cmp !== 0;
    case '>':
      return cmp > 0;
    case '<':
      return cmp < 0;
    case '>=':
      return cmp >= 0;
    case '<=':
      return cmp <= 0;
    default:
      return undefined;
  }
}

/** undefined = "not processed" (the pattern or the value is not a duration). */
function compareDuration(value: JsonValue | undefined, pattern: string, op: Operator): boolean | undefined {
  const p = parseDuration(pattern);
  if (!p.ok) return undefined;
  const text = numberText(value);
  if (text === undefined) return undefined;
  const v = parseDuration(text);
  if (!v.ok) return undefined;
  return byOperator(v.ns === p.ns ? 0 : v.ns < p.ns ? -1 : 1, op);
}

function compareQuantity(value: JsonValue | undefined, pattern: string, op: Operator): boolean | undefined {
  const p = parseQuantity(pattern);
  if (!p) return undefined;
  const text = numberText(value);
  if (text === undefined) return undefined;
  const v = parseQuantity(text);
  if (!v) return undefined;
  return byOperator(compareQuantities(v, p), op);
}

function compareQuantities(a: Quantity, b: Quantity): number {
  const s = Math.min(a.scale, b.scale);
  const x = a.unscaled * 10n ** BigInt(a.scale - s);
  const y = b.unscaled * 10n ** BigInt(b.scale - s);
  return x === y ? 0 : x < y ? -1 : 1;
}

function compareString(value: JsonValue | undefined, pattern: string, op: Operator): boolean {
  if (op !== '' && op !== '!') return false; // ">, >=, <, <= are not applicable to strings"
  let text: string;
  if (typeof value === 'number') text = goFloatE(value);
  else if (typeof value === 'string') text = value;
  else if (typeof value === 'boolean') text = value ? 'true' : 'false';
  else return false;
  const matched = wildcardMatch(pattern, text);
  return op === '!' ? !matched : matched;
}
