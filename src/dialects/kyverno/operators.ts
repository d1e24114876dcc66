/**
 * Kyverno's condition operators (pkg/engine/variables/operator/*), applied to a key and a value that have
 * already been substituted. Numbers are float64 as in Kyverno's JSON; operator names compare case-insensitively.
 */
import { jsonStringArray } from '../../util/json-string-array.js';
import { jsonEqual, type JsonValue } from '../../ir/json.js';
import { compareSemver, type SemverParts } from '../../k8s/semver.js';
import { parseDuration } from '../../jmespath/functions/duration.js';
import { parseQuantity, type Quantity } from '../../jmespath/functions/quantity.js';
import { wildcardMatch } from '../../jmespath/index.js';
import { compileGlob, containsWildcard, type GlobMatcher } from '../../k8s/glob.js';

export const OPERATORS = [
  'Equal',
  'Equals',
  'NotEqual',
  'NotEquals',
  'In',
  'AnyIn',
  'AllIn',
  'NotIn',
  'AnyNotIn',
  'AllNotIn',
  'GreaterThanOrEquals',
  'GreaterThan',
  'LessThanOrEquals',
  'LessThan',
  'DurationGreaterThanOrEquals',
  'DurationGreaterThan',
  'DurationLessThanOrEquals',
  'DurationLessThan',
] as const;

const BY_LOWER = new Map<string, string>(OPERATORS.map((o) => [o.toLowerCase(), o]));

const CANONICAL = new Set<string>(OPERATORS);

/** The canonical operator name, or undefined when Kyverno has no such operator. */
export function canonicalOperator(name: string): string | undefined {
  // Most policies spell operators canonically: no lower-cased copy per evaluated condition then.
  if (CANONICAL.has(name)) return name;
  return BY_LOWER.get(name.toLowerCase());
}

/** Go fmt.Sprint of a JSON value (the operators stringify keys and values with it). */
function sprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(sprint).join(' ')}]`;
  const keys = Object.keys(v as object).sort();
  return `map[${keys.map((k) => `${k}:${sprint((v as Record<string, unknown>)[k])}`).join(' ')}]`;
}

/** strconv.FormatFloat(f, 'g', -1, 64) as fmt prints float64 (`%v`). */
function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [m, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${m}e${sign}${digits}`;
  }
  return String(n);
}

/** strconv.ParseFloat for the decimal forms policies use. */
function parseFloatGo(s: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && !/^[+-]?(inf|infinity|nan)$/i.test(s)) return undefined;
  return Number(s.toLowerCase().replace('infinity', 'Infinity').replace(/^([+-]?)inf$/, '$1Infinity'));
}

function parseIntGo(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/**
 * time.ParseDuration fails unless the text (past one sign) starts with a digit or a dot: checked first, as
 * most operands are plain words and a failed parse builds its error message.
 */
function mayBeDuration(s: string): boolean {
  let c = s.charCodeAt(0);
  if (c === 43 || c === 45) c = s.charCodeAt(1); // + -
  return c === 46 || (c >= 48 && c <= 57); // . 0-9
}

/** A duration string's seconds; undefined for anything else. */
function asDuration(v: unknown): number | undefined {
  if (typeof v !== 'string' || !mayBeDuration(v)) return undefined;
  const d = parseDuration(v);
  return d.ok ? Number(d.ns) / 1e9 : undefined;
}

/** operator/duration.go parseDuration: at least one side is a duration string; numbers are seconds. */
function durationPair(key: unknown, value: unknown): [number, number] | undefined {
  let k = asDuration(key);
  let v = asDuration(value);
  if (k === undefined && v === undefined) return undefined;
  const seconds = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined);
  k ??= seconds(key);
  v ??= seconds(value);
  return k === undefined || v === undefined ? undefined : [k, v];
}

function compareQuantities(a: Quantity, b: Quantity): number {
  const scale = Math.min(a.scale, b.scale);
  const x = a.unscaled * 10n ** BigInt(a.scale - scale);
  const y = b.unscaled * 10n ** BigInt(b.scale - scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------- equality

/** operator/equal.go EqualHandler.Evaluate. */
export function equals(key: unknown, value: unknown): boolean {
  if (typeof key === 'boolean') return typeof value === 'boolean' && key === value;
  if (typeof key === 'number') {
    if (typeof value === 'number') return key === value;
    if (typeof value === 'string') {
      const f = parseFloatGo(value);
      return f !== undefined && f === key;
    }
    return false;
  }
  if (typeof key === 'string') {
    const d = durationPair(key, value);
    if (d) return d[0] === d[1];
    const qk = parseQuantity(key);
    if (qk && typeof value === 'string') {
      const qv = parseQuantity(value);
      return qv !== undefined && compareQuantities(qk, qv) === 0;
    }
    return typeof value === 'string' && wildcardMatch(value, key);
  }
  if (Array.isArray(key)) return Array.isArray(value) && jsonEqual(key as JsonValue, value as JsonValue);
  if (key !== null && typeof key === 'object') {
    return value !== null && typeof value === 'object' && !Array.isArray(value) && jsonEqual(key as JsonValue, value as JsonValue);
  }
  return false;
}

/**
 * operator/notequal.go: the negation of Equals (a type mismatch is "not equal", kyverno-cli karpenter case:
 * a map key NotEquals '' holds); a nil key is never "not equal".
 */
export function notEquals(key: unknown, value: unknown): boolean {
  if (key === null || key === undefined) return false;
  return !equals(key, value);
}

// ---------------------------------------------------------------------------------------------- ranges

/** pattern.go range strings `a-b` (inclusive) and `a!-b` (outside), numbers or quantities. */
function rangeParts(v: string): { lo: string; hi: string; outside: boolean } | undefined {
  const m = /^(-?[^-!]+)(!?-)(-?[^-]+)$/.exec(v.trim());
  if (!m) return undefined;
  return { lo: m[1]!.trim(), hi: m[3]!.trim(), outside: m[2] === '!-' };
}

function isRange(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const r = rangeParts(v);
  return r !== undefined && parseQuantity(r.lo) !== undefined && parseQuantity(r.hi) !== undefined;
}

function inRange(key: string, range: string): boolean {
  const r = rangeParts(range);
  const k = parseQuantity(key);
  if (!r || !k) return false;
  const lo = parseQuantity(r.lo)!;
  const hi = parseQuantity(r.hi)!;
  const inside = compareQuantities(k, lo) >= 0 && compareQuantities(k, hi) <= 0;
  return r.outside ? !inside : inside;
}

// ---------------------------------------------------------------------------------------------- set operators

const matchesEither = (a: string, b: string): boolean => wildcardMatch(a, b) || wildcardMatch(b, a);


function keyStrings(key: unknown): string[] | undefined {
  if (Array.isArray(key)) return key.map(sprint);
  if (typeof key === 'string') return undefined;
  if (typeof key === 'number' || typeof key === 'boolean') return undefined;
  return undefined;
}

type SetMode = 'anyIn' | 'allIn' | 'anyNotIn' | 'allNotIn';

/** anyin.go / allin.go / anynotin.go / allnotin.go for a scalar key (already stringified). */
function scalarKey(mode: SetMode, key: string, value: unknown): boolean {
  let found: boolean;
  if (Array.isArray(value)) {
    // allin.go compares one way only for scalar keys; the others both ways.
    found = value.some((v) => (mode === 'allIn' ? wildcardMatch(key, sprint(v)) : matchesEither(sprint(v), key)));
  } else if (typeof value === 'string') {
    if (wildcardMatch(value, key)) found = true;
    else if (isRange(value)) found = inRange(key, value);
    else {
      const arr = jsonStringArray(value);
      if (arr === 'invalid') return false;
      found = (arr ?? [value]).includes(key);
    }
  } else return false;
  return mode === 'anyIn' || mode === 'allIn' ? found : !found;
}

/** The same for a list key (every element stringified with fmt.Sprint). */
function listKey(mode: SetMode, key: string[], value: unknown): boolean {
  let values: string[];
  if (Array.isArray(value)) values = value.map(sprint);
  else if (typeof value === 'number') values = [sprint(value)];
  else if (typeof value === 'string') {
    if (key.length === 1 && key[0] === value) return mode === 'anyIn' || mode === 'allIn';
    if (isRange(value)) {
      const hits = key.filter((k) => inRange(k, value)).length;
      if (mode === 'anyIn') return hits > 0;
      if (mode === 'allIn') return hits === key.length;
      if (mode === 'anyNotIn') return hits < key.length;
      return hits === 0;
    }
    const arr = jsonStringArray(value);
    if (arr === 'invalid') return false;
    values = arr ?? [value];
  } else return false;
  const hit = (k: string) => values.some((v) => matchesEither(k, v));
  switch (mode) {
    case 'anyIn':
      return key.some(hit);
    case 'allIn':
      return key.every(hit);
    case 'anyNotIn':
      return key.some((k) => !hit(k));
    case 'allNotIn':
      return !key.some(hit);
  }
}

function setOperator(mode: SetMode, key: unknown, value: unknown): boolean {
  const list = keyStrings(key);
  if (list) return listKey(mode, list, value);
  if (typeof key === 'string' || typeof key === 'number' || (typeof key === 'boolean' && mode !== 'allIn')) return scalarKey(mode, sprint(key), value);
  return false;
}

/** in.go / notin.go (deprecated): exact membership, wildcard only for a scalar key against a string value. */
function inOperator(key: unknown, value: unknown, negate: boolean): boolean {
  const values = (): string[] | undefined => {
    if (Array.isArray(value)) return value.map(sprint);
    if (typeof value === 'string') {
      const arr = jsonStringArray(value);
      return arr === 'invalid' ? undefined : (arr ?? [value]);
    }
    return undefined;
  };
  if (Array.isArray(key)) {
    if (key.some((k) => typeof k !== 'string')) return false;
    const vs = values();
    if (!vs) return false;
    const subset = (key as string[]).every((k) => vs.includes(k));
    return negate ? !subset : subset;
  }
  if (typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean') {
    const k = sprint(key);
    if (typeof value === 'string' && wildcardMatch(value, k)) return !negate;
    const vs = values();
    if (!vs) return false;
    const found = vs.includes(k);
    return negate ? !found : found;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------- numeric

type Cmp = (a: number, b: number) => boolean;
const NUMERIC: Record<string, Cmp> = {
  GreaterThanOrEquals: (a, b) => a >= b,
  GreaterThan: (a, b) => a > b,
  LessThanOrEquals: (a, b) => a <= b,
  LessThan: (a, b) => a < b,
};

/** blang/semver Parse, enough to order `1.2.3[-pre]` versions. */
function semver(s: string): SemverParts | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(s);
  if (!m) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}


function numberAgainst(key: number, value: unknown, cmp: Cmp): boolean {
  if (typeof value === 'number') return cmp(key, value);
  if (typeof value === 'string') {
    const d = durationPair(key, value);
    if (d) return cmp(d[0], d[1]);
    const f = parseFloatGo(value) ?? parseIntGo(value);
    return f !== undefined && cmp(key, f);
  }
  return false;
}

/** numeric.go NumericOperatorHandler. */
function numeric(key: unknown, value: unknown, cmp: Cmp): boolean {
  if (typeof key === 'number') return numberAgainst(key, value, cmp);
  if (typeof key !== 'string') return false;
  const d = durationPair(key, value);
  if (d) return cmp(d[0], d[1]);
  const qk = parseQuantity(key);
  if (qk && typeof value === 'string') {
    const qv = parseQuantity(value);
    if (qv) return cmp(compareQuantities(qk, qv), 0);
  }
  const f = parseFloatGo(key) ?? parseIntGo(key);
  if (f !== undefined) return numberAgainst(f, value, cmp);
  const vk = semver(key);
  if (vk && typeof value === 'string') {
    const vv = semver(value);
    return vv !== undefined && cmp(compareSemver(vk, vv), 0);
  }
  return false;
}

/** operator/duration.go (deprecated Duration* operators): both sides as durations, numbers as seconds. */
function durationOperator(key: unknown, value: unknown, cmp: Cmp): boolean {
  const seconds = (v: unknown): number | undefined => {
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && mayBeDuration(v)) {
      const d = parseDuration(v);
      return d.ok ? Number(d.ns) / 1e9 : undefined;
    }
    return undefined;
  };
  const k = seconds(key);
  const v = seconds(value);
  return k !== undefined && v !== undefined && cmp(k, v);
}

/** Evaluates one condition; an unknown operator is false (the handler is nil upstream). */
export function evaluateOperator(operator: string, key: unknown, value: unknown): boolean {
  const op = canonicalOperator(operator);
  switch (op) {
    case 'Equal':
    case 'Equals':
      return equals(key, value);
    case 'NotEqual':
    case 'NotEquals':
      return notEquals(key, value);
    case 'In':
      return inOperator(key, value, false);
    case 'NotIn':
      return inOperator(key, value, true);
    case 'AnyIn':
      return setOperator('anyIn', key, value);
    case 'AllIn':
      return setOperator('allIn', key, value);
    case 'AnyNotIn':
      return setOperator('anyNotIn', key, value);
    case 'AllNotIn':
      return setOperator('allNotIn', key, value);
    case 'GreaterThanOrEquals':
    case 'GreaterThan':
    case 'LessThanOrEquals':
    case 'LessThan':
      return numeric(key, value, NUMERIC[op]!);
    case 'DurationGreaterThanOrEquals':
    case 'DurationGreaterThan':
    case 'DurationLessThanOrEquals':
    case 'DurationLessThan':
      return durationOperator(key, value, NUMERIC[op.slice('Duration'.length)]!);
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------- compiled

/**
 * `evaluateOperator(operator, key, value)` for a value fixed when the policy is compiled (a precondition's
 * `value` without variables): what depends on the value alone is worked out once. Each specialised case
 * gives what the general handler gives for every key (test/dialects/kyverno/operators-compiled.test.ts).
 */
export function compileOperator(operator: string, value: unknown): (key: unknown) => boolean {
  const op = canonicalOperator(operator);
  switch (op) {
    case undefined:
      return () => false;
    case 'Equal':
    case 'Equals':
      return equalsTo(value);
    case 'NotEqual':
    case 'NotEquals': {
      const eq = equalsTo(value);
      return (key) => key !== null && key !== undefined && !eq(key);
    }
    case 'AnyIn':
    case 'AnyNotIn':
      if (Array.isArray(value)) return anyInList(value, op === 'AnyNotIn');
      break;
    case 'GreaterThanOrEquals':
    case 'GreaterThan':
    case 'LessThanOrEquals':
    case 'LessThan':
      if (typeof value === 'number') {
        const cmp = NUMERIC[op]!;
        return (key) => (typeof key === 'number' ? cmp(key, value) : numeric(key, value, cmp));
      }
      break;
  }
  return (key) => evaluateOperator(op, key, value);
}

/**
 * `equals(key, value)` for a fixed value. A string value that is neither a duration nor a quantity: against
 * a string key, durationPair finds no pair (a string key is no number of seconds), and a key that is a
 * quantity is then unequal, so only the wildcard match is left.
 */
function equalsTo(value: unknown): (key: unknown) => boolean {
  if (typeof value === 'string' && asDuration(value) === undefined && parseQuantity(value) === undefined) {
    // Without a wildcard only the value itself matches, and it is no quantity.
    if (!containsWildcard(value)) return (key) => (typeof key === 'string' ? key === value : equals(key, value));
    const matches = compileGlob(value, 'wildcard');
    return (key) => (typeof key === 'string' ? matches(key) && parseQuantity(key) === undefined : equals(key, value));
  }
  return (key) => equals(key, value);
}

/** AnyIn / AnyNotIn against a list value: a scalar key is matched both ways against each element's text. */
function anyInList(values: unknown[], negate: boolean): (key: unknown) => boolean {
  const texts = values.map(sprint);
  const matchers: GlobMatcher[] = texts.map((t) => compileGlob(t, 'wildcard'));
  const mode: SetMode = negate ? 'anyNotIn' : 'anyIn';
  return (key) => {
    if (typeof key !== 'string' && typeof key !== 'number' && typeof key !== 'boolean') return setOperator(mode, key, values);
    const k = sprint(key);
    // wildcardMatch(k, text): a key without wildcards matches only itself.
    const keyIsPattern = containsWildcard(k);
    let found = false;
    for (let i = 0; i < texts.length && !found; i++) found = matchers[i]!(k) || (keyIsPattern ? wildcardMatch(k, texts[i]!) : k === texts[i]);
    return negate ? !found : found;
  };
}
