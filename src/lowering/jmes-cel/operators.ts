/**
 * Kyverno's condition operators (pkg/engine/variables/operator/*), transcribed from
 * src/dialects/kyverno/operators.ts over partially-evaluated operands (operand.ts): each function reads like
 * its TypeScript counterpart and yields a boolean when the operands are literals, CEL otherwise.
 *
 * Runtime-only limits, each guarded (the CEL fails) and noted:
 * - a JSON-array string value (`value: '["a","b"]'`) or a range string (`"1-10"`) known only at runtime
 *   (CEL cannot parse JSON; a literal one is parsed here);
 * - a list or map stringified with fmt.Sprint inside a set operator;
 * - a duration beyond Go's int64 nanoseconds, a float string beyond float64 (Kyverno treats them as non-numbers).
 */
import { jsonStringArray } from '../../util/json-string-array.js';
import type { Cx } from './context.js';
import { celString, fail, frag, tfrag, tyOf } from './frag.js';
import { inlineInto } from './inline.js';
import { T } from './types.js';
import { numberText } from './numbers.js';
import { and, compare, deepEqual, not, Operand, or, pick, wildcard, type B, type Cmp } from './operand.js';
import { parseQuantity } from '../../jmespath/functions/quantity.js';
import { yet } from './refuse.js';
import { compareSemver, type SemverParts } from '../../k8s/semver.js';

const RUNTIME_NOTE =
  'a condition value known only at runtime that is a JSON-array string or a range string ("1-10"), or a list/map inside a set operator, makes the CEL fail (Kyverno parses or stringifies it)';
const RANGE_NOTE = 'durations beyond Go int64 nanoseconds and decimal strings beyond float64 are non-numbers in Kyverno; the CEL fails on them';

// ------------------------------------------------------------------------------------------ durations

/** operators.ts durationPair: at least one side a duration string, the other a duration or a number (seconds). */
function durationPair(key: Operand, value: Operand): { ok: B; k: string | number; v: string | number } {
  const kd = key.duration();
  const vd = value.duration();
  const ok = and(or(kd.is, vd.is), or(kd.is, key.isNum()), or(vd.is, value.isNum()));
  return { ok, k: pick(kd.is, kd.secs, key.number()), v: pick(vd.is, vd.secs, value.number()) };
}

// ------------------------------------------------------------------------------------------ equality

function stringEquals(key: Operand, value: Operand): B {
  const dp = durationPair(key, value);
  const qk = key.quantity();
  const vs = value.isStr();
  const v = value.stringValue();
  // A literal value without wildcards matches only itself; if it is not a quantity, neither is a key equal to it.
  // Nor is a key matching a pattern whose literal characters include one no quantity holds (`*:latest`).
  const literalOnly = v !== undefined && !v.includes('*') && !v.includes('?') && parseQuantity(v) === undefined;
  const neverQuantity = v !== undefined && /[^0-9.+\-eEKMGTPinumk*?]/.test(v);
  const wild = literalOnly || neverQuantity ? wildcard(value, key) : and(not(and(qk, vs)), vs, wildcard(value, key));
  return or(
    and(dp.ok, compare('==', dp.k, dp.v)),
    and(not(dp.ok), qk, vs, value.quantity(), quantityCompare(key, value, '==')),
    and(not(dp.ok), wild),
  );
}

function quantityCompare(a: Operand, b: Operand, op: Cmp): B {
  const x = a.stringValue();
  const y = b.stringValue();
  if (x !== undefined && y !== undefined) {
    const c = compareStaticQuantities(x, y);
    return c === undefined ? false : compare(op, c, 0);
  }
  return `${a.quantityCel()}.compareTo(${b.quantityCel()}) ${op} 0`;
}

/** Exact comparison of two literal quantities; undefined when either is not one (the branch is dead then). */
function compareStaticQuantities(a: string, b: string): number | undefined {
  const qa = parseQuantity(a);
  const qb = parseQuantity(b);
  if (qa === undefined || qb === undefined) return undefined;
  const scale = Math.min(qa.scale, qb.scale);
  const x = qa.unscaled * 10n ** BigInt(qa.scale - scale);
  const y = qb.unscaled * 10n ** BigInt(qb.scale - scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** operator/equal.go. */
export function equals(key: Operand, value: Operand): B {
  const vf = value.float();
  return or(
    and(key.isBool(), value.isBool(), deepEqual(key, value)),
    and(key.isNum(), or(and(value.isNum(), compare('==', key.number(), value.number())), and(vf.is, compare('==', key.number(), vf.value)))),
    and(key.isStr(), stringEquals(key, value)),
    and(key.isList(), value.isList(), deepEqual(key, value)),
    and(key.isMap(), value.isMap(), deepEqual(key, value)),
  );
}

/** operator/notequal.go: a nil key is never "not equal". */
export function notEquals(key: Operand, value: Operand): B {
  return and(not(key.isNull()), not(equals(key, value)));
}

// ------------------------------------------------------------------------------------------ fmt.Sprint

/** fmt.Sprint of a scalar as operators.ts sprint writes it; lists and maps fail (noted). */
function sprint(o: Operand, cx: Cx): Operand {
  if (o.stat) return Operand.literal(staticSprint(o.stat.value));
  const x = o.cel;
  const text =
    `type(${x}) == string ? ${x} : type(${x}) == bool ? string(${x}) : type(${x}) == null_type ? "<nil>" : ` +
    `type(${x}) == int || type(${x}) == double ? (${numberText(o.f, cx, 'sprint')}) : ${fail('fmt.Sprint of a list or map in a set operator').cel}`;
  cx.notes.add(RUNTIME_NOTE);
  return Operand.of(frag(`(${text})`, 'string', { atom: true }));
}

/** Runs `body` on the fmt.Sprint text of `o`, computed once (bound) when it is only known at runtime. */
function withSprint(o: Operand, cx: Cx, body: (s: Operand) => B): B {
  if (o.stat) return body(Operand.literal(staticSprint(o.stat.value)));
  // A string prints as itself.
  if (o.f.t === 'string') return body(o);
  const s = sprint(o, cx);
  const name = cx.names.fresh('s');
  const b = body(Operand.of(frag(name, 'string', { simple: true, atom: true })));
  if (typeof b === 'boolean') return b;
  return inlineInto(b, name, s.cel, s.f.atom, false) ?? `[${s.cel}].map(${name}, ${b})[0]`;
}

function staticSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
    const exp = Math.floor(Math.log10(Math.abs(v)));
    if (exp < -4 || exp >= 21) {
      const [m, e] = v.toExponential().split('e') as [string, string];
      const sign = e.startsWith('-') ? '-' : '+';
      return `${m}e${sign}${e.replace(/^[+-]/, '').padStart(2, '0')}`;
    }
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(staticSprint).join(' ')}]`;
  const keys = Object.keys(v as object).sort();
  return `map[${keys.map((k) => `${k}:${staticSprint((v as Record<string, unknown>)[k])}`).join(' ')}]`;
}

// ------------------------------------------------------------------------------------------ ranges, JSON arrays

function rangeParts(v: string): { lo: string; hi: string; outside: boolean } | undefined {
  const m = /^(-?[^-!]+)(!?-)(-?[^-]+)$/.exec(v.trim());
  if (!m) return undefined;
  return { lo: m[1]!.trim(), hi: m[3]!.trim(), outside: m[2] === '!-' };
}

function staticRange(v: string): { lo: string; hi: string; outside: boolean } | undefined {
  const r = rangeParts(v);
  return r && parseQuantity(r.lo) !== undefined && parseQuantity(r.hi) !== undefined ? r : undefined;
}

/** A key string inside a literal range: quantity comparisons in CEL. */
function inRange(key: Operand, range: { lo: string; hi: string; outside: boolean }): B {
  const lo = Operand.literal(range.lo);
  const hi = Operand.literal(range.hi);
  const inside = and(key.quantity(), quantityCompare(key, lo, '>='), quantityCompare(key, hi, '<='));
  return range.outside ? and(key.quantity(), not(inside)) : inside;
}


const JSON_SCALAR = '^[ \\t\\n\\r]*(true|false|null|-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?)[ \\t\\n\\r]*$';
const JSON_COMPOSITE = '^[ \\t\\n\\r]*[\\[{"]';
const MAYBE_RANGE = '^[ \\t\\n\\r]*-?[^-!]+!?--?[^-]+[ \\t\\n\\r]*$';

function bcel(b: B): string {
  return typeof b === 'boolean' ? String(b) : b;
}

/**
 * A string value known only at runtime may be a JSON array or a range, which the set operators parse; CEL
 * cannot, so the operator fails on those (noted). The guard is a ternary around the whole operator, never a
 * conjunct: CEL's `&&` would drop its error whenever the (wrongly computed) rest is false.
 */
function guardRuntimeValue(value: Operand, result: B, cx: Cx): B {
  if (value.stat) return result;
  cx.notes.add(RUNTIME_NOTE);
  const v = value.cel;
  const unsupported = `type(${v}) == string && (${v}.matches(${JSON.stringify(JSON_COMPOSITE)}) || ${v}.matches(${JSON.stringify(MAYBE_RANGE)}))`;
  return `(${unsupported} ? ${fail('a runtime JSON-array or range string in a condition').cel} : ${bcel(result)})`;
}

/** A runtime string value that is JSON but not a string array (Kyverno: the operator is false). */
function jsonScalar(value: Operand): string {
  return `${value.cel}.matches(${JSON.stringify(JSON_SCALAR)})`;
}

function strEq(a: Operand, b: Operand): B {
  const x = a.stringValue();
  const y = b.stringValue();
  if (x !== undefined && y !== undefined) return x === y;
  return `${a.cel} == ${b.cel}`;
}

// ------------------------------------------------------------------------------------------ set operators

type SetMode = 'anyIn' | 'allIn' | 'anyNotIn' | 'allNotIn';

const positive = (mode: SetMode): boolean => mode === 'anyIn' || mode === 'allIn';

/** Applies a comprehension to the elements of a list operand (static lists are unrolled). */
function overList(list: Operand, cx: Cx, fn: 'exists' | 'all', body: (x: Operand) => B): B {
  if (list.stat) {
    const items = Array.isArray(list.stat.value) ? list.stat.value.map((x) => body(Operand.literal(x))) : [];
    return fn === 'exists' ? or(...items) : and(...items);
  }
  const name = cx.names.fresh('x');
  const lt = tyOf(list.f);
  const b = body(Operand.of(tfrag(name, lt.k === 'list' ? lt.of : T.dyn, { simple: true, atom: true })));
  if (typeof b === 'boolean') return fn === 'exists' ? (b ? `size(${list.cel}) > 0` : false) : b ? true : `size(${list.cel}) == 0`;
  return `${list.cel}.${fn}(${name}, ${b})`;
}

const either = (a: Operand, b: Operand): B => or(wildcard(a, b), wildcard(b, a));

/** The strings of a literal list value, when it is one. */
function literalStrings(value: Operand): string[] | undefined {
  const v = value.stat?.value;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

/**
 * A string key (a runtime string, its fmt.Sprint text) found in a literal list of strings: `wildcard(v, key)
 * || wildcard(key, v)` for each v, or `wildcard(key, v)` only (`keyIsPattern`, AllIn of a scalar key). A key
 * that cannot hold `*` or `?` is a pattern matching only itself, so values without wildcards are one `in`.
 */
function inLiteralStrings(key: Operand, values: string[], keyIsPattern: boolean, cx: Cx): B {
  if (key.stat) return or(...values.map((v) => (keyIsPattern ? wildcard(key, Operand.literal(v)) : either(Operand.literal(v), key))));
  const plainValues = values.filter((v) => !v.includes('*') && !v.includes('?'));
  const wild = values.filter((v) => v.includes('*') || v.includes('?'));
  const list = `[${plainValues.map(celString).join(', ')}]`;
  const member = plainValues.length === 0 ? false : plainValues.length === 1 ? `${key.cel} == ${celString(plainValues[0]!)}` : `${key.cel} in ${list}`;
  let byKey: B = false;
  if (plainValues.length > 0 && !key.plain()) {
    // The key as a wildcard pattern over the values (a key holding `*` or `?`).
    const s = cx.names.fresh('s');
    byKey = plainValues.length === 1 ? wildcard(key, Operand.literal(plainValues[0])) : `${list}.exists(${s}, ${wildcard(key, Operand.of(frag(s, 'string', { simple: true, atom: true })))})`;
  }
  const byWild = wild.map((w) => (keyIsPattern ? wildcard(key, Operand.literal(w)) : either(Operand.literal(w), key)));
  return keyIsPattern ? or(key.plain() ? member : byKey, ...byWild) : or(member, byKey, ...byWild);
}

/** scalarKey: the key (already stringified) against the value. */
function scalarKey(mode: SetMode, key: Operand, value: Operand, cx: Cx): B {
  const flip = (found: B): B => (positive(mode) ? found : not(found));
  const strings = literalStrings(value);
  if (strings) return flip(inLiteralStrings(key, strings, mode === 'allIn', cx));
  const byList = overList(value, cx, 'exists', (v) => withSprint(v, cx, (sv) => (mode === 'allIn' ? wildcard(key, sv) : either(sv, key))));
  const w = wildcard(value, key);
  const s = value.stringValue();
  let byString: B;
  if (s !== undefined) {
    const range = staticRange(s);
    const arr = range ? undefined : jsonStringArray(s);
    if (range) byString = flip(or(w, inRange(key, range)));
    else if (arr === 'invalid') byString = and(w, flip(true));
    else byString = flip(or(w, ...(arr ?? [s]).map((x) => strEq(key, Operand.literal(x)))));
  } else {
    byString = or(and(w, flip(true)), and(not(w), not(jsonScalar(value)), flip(strEq(key, value))));
  }
  return or(and(value.isList(), flip(byList)), and(value.isStr(), byString));
}

/** listKey: every key element stringified, against the value. */
function listKey(mode: SetMode, key: Operand, value: Operand, cx: Cx): B {
  const combine = (hit: (k: Operand) => B): B => {
    switch (mode) {
      case 'anyIn':
        return overList(key, cx, 'exists', (k) => withSprint(k, cx, hit));
      case 'allIn':
        return overList(key, cx, 'all', (k) => withSprint(k, cx, hit));
      case 'anyNotIn':
        return overList(key, cx, 'exists', (k) => withSprint(k, cx, (x) => not(hit(x))));
      case 'allNotIn':
        return not(overList(key, cx, 'exists', (k) => withSprint(k, cx, hit)));
    }
  };
  const strings = literalStrings(value);
  const byList = strings
    ? combine((k) => inLiteralStrings(k, strings, false, cx))
    : combine((k) => overList(value, cx, 'exists', (v) => withSprint(v, cx, (sv) => either(k, sv))));
  const byNumber = combine((k) => withSprint(value, cx, (sv) => either(k, sv)));
  const s = value.stringValue();
  let byString: B;
  if (s !== undefined) {
    const single = singleKeyEquals(key, s);
    const range = staticRange(s);
    const arr = range ? undefined : jsonStringArray(s);
    let normal: B;
    if (range) normal = rangeCount(mode, key, range, cx);
    else if (arr === 'invalid') normal = false;
    else {
      const values = (arr ?? [s]).map((x) => Operand.literal(x));
      normal = combine((k) => or(...values.map((v) => either(k, v))));
    }
    byString = or(and(single, positive(mode)), and(not(single), normal));
  } else {
    const single = `size(${key.cel}) == 1 && dyn(${key.cel}[0]) == dyn(${value.cel})`;
    byString = or(and(single, positive(mode)), and(not(single), not(jsonScalar(value)), combine((k) => either(k, value))));
  }
  return or(and(value.isList(), byList), and(value.isNum(), byNumber), and(value.isStr(), byString));
}

/** `key.length === 1 && key[0] === value` for a literal value. */
function singleKeyEquals(key: Operand, s: string): B {
  if (key.stat) return Array.isArray(key.stat.value) && key.stat.value.length === 1 && key.stat.value[0] === s;
  return `size(${key.cel}) == 1 && dyn(${key.cel}[0]) == ${JSON.stringify(s)}`;
}

function rangeCount(mode: SetMode, key: Operand, range: { lo: string; hi: string; outside: boolean }, cx: Cx): B {
  const hit = (k: Operand): B => withSprint(k, cx, (s) => inRange(s, range));
  switch (mode) {
    case 'anyIn':
      return overList(key, cx, 'exists', hit);
    case 'allIn':
      return overList(key, cx, 'all', hit);
    case 'anyNotIn':
      return overList(key, cx, 'exists', (k) => not(hit(k)));
    case 'allNotIn':
      return not(overList(key, cx, 'exists', hit));
  }
}

/** anyin.go / allin.go / anynotin.go / allnotin.go. */
export function setOperator(mode: SetMode, key: Operand, value: Operand, cx: Cx): B {
  const scalar = or(key.isStr(), key.isNum(), mode === 'allIn' ? false : key.isBool());
  // Branches known dead are not built (their notes would not apply).
  const isList = key.isList();
  const byList = isList === false ? false : and(isList, listKey(mode, key, value, cx));
  const byScalar = scalar === false ? false : and(scalar, withSprint(key, cx, (k) => scalarKey(mode, k, value, cx)));
  return guardRuntimeValue(value, or(byList, byScalar), cx);
}

// ------------------------------------------------------------------------------------------ In / NotIn

/** in.go / notin.go (deprecated): exact membership, wildcard only for a scalar key against a string value. */
export function inOperator(key: Operand, value: Operand, negate: boolean, cx: Cx): B {
  const s = value.stringValue();
  const arr = s === undefined ? undefined : jsonStringArray(s);
  // values(): a list (stringified), a JSON string array, or the string itself; undefined otherwise.
  const defined: B = s !== undefined ? arr !== 'invalid' : or(value.isList(), and(value.isStr(), not(jsonScalar(value))));
  const member = (k: Operand): B => {
    if (s !== undefined) return arr === 'invalid' ? false : or(...(arr ?? [s]).map((x) => strEq(k, Operand.literal(x))));
    return or(
      and(value.isList(), overList(value, cx, 'exists', (v) => withSprint(v, cx, (sv) => strEq(k, sv)))),
      and(value.isStr(), strEq(k, value)),
    );
  };
  const allStrings = overList(key, cx, 'all', (k) => k.isStr());
  const subset = overList(key, cx, 'all', (k) => member(k));
  const listCase = and(allStrings, defined, negate ? not(subset) : subset);
  const scalarCase = withSprint(key, cx, (k) => {
    const w = and(value.isStr(), wildcard(value, k));
    return or(and(w, !negate), and(not(w), defined, negate ? not(member(k)) : member(k)));
  });
  const result = or(and(key.isList(), listCase), and(or(key.isStr(), key.isNum(), key.isBool()), scalarCase));
  return guardRuntimeValue(value, result, cx);
}

// ------------------------------------------------------------------------------------------ numeric

/** numberAgainst: a number key (or a key string that parsed as one) against the value. */
function numberAgainst(key: Operand, value: Operand, op: Cmp): B {
  const dp = durationPair(key, value);
  const vf = value.float();
  return or(
    and(value.isNum(), compare(op, key.number(), value.number())),
    and(value.isStr(), or(and(dp.ok, compare(op, dp.k, dp.v)), and(not(dp.ok), vf.is, compare(op, key.number(), vf.value)))),
  );
}

/** numeric.go NumericOperatorHandler (GreaterThan, GreaterThanOrEquals, LessThan, LessThanOrEquals). */
export function numeric(key: Operand, value: Operand, op: Cmp, cx: Cx): B {
  if (key.isStr() !== false || value.isStr() !== false) cx.notes.add(RANGE_NOTE);
  const dp = durationPair(key, value);
  const qBoth = and(key.quantity(), value.isStr(), value.quantity());
  const kf = key.float();
  const asNumberKey = new Operand(frag(typeof kf.value === 'number' ? String(kf.value) : kf.value, 'double', { simple: true, atom: true }), typeof kf.value === 'number' ? { value: kf.value } : undefined);
  const semverBoth = and(key.semver(), value.isStr(), value.semver());
  const ks = key.stringValue();
  const vs = value.stringValue();
  let semverCmp: B;
  if (semverBoth === true && ks !== undefined && vs !== undefined) semverCmp = compare(op, compareSemver(semverParts(ks), semverParts(vs)), 0);
  else if (semverBoth === false) semverCmp = false;
  else {
    if (!cx.caps.semver) yet(`a ${op} condition that may compare semantic versions at runtime needs Kubernetes semver() (1.33+, target 1.${cx.caps.minor})`);
    semverCmp = `semver(${key.cel}).compareTo(semver(${value.cel})) ${op} 0`;
  }
  const stringKey = or(
    and(dp.ok, compare(op, dp.k, dp.v)),
    and(not(dp.ok), qBoth, quantityCompare(key, value, op)),
    and(not(dp.ok), not(qBoth), kf.is, numberAgainst(asNumberKey, value, op)),
    and(not(dp.ok), not(qBoth), not(kf.is), semverBoth, semverCmp),
  );
  return or(and(key.isNum(), numberAgainst(key, value, op)), and(key.isStr(), stringKey));
}

function semverParts(v: string): SemverParts {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?/.exec(v)!;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

/** operator/duration.go (deprecated Duration* operators): numbers are seconds. */
export function durationOperator(key: Operand, value: Operand, op: Cmp): B {
  const kd = key.duration();
  const vd = value.duration();
  const kOk = or(key.isNum(), kd.is);
  const vOk = or(value.isNum(), vd.is);
  return and(kOk, vOk, compare(op, pick(kd.is, kd.secs, key.number()), pick(vd.is, vd.secs, value.number())));
}

