/**
 * The CEL standard library: size, string predicates, matches, conversions, type(), dyn(),
 * timestamp/duration accessors, and the optional library (cel-go checker/stdlib, cel/optional.go).
 */
import { RE2JS } from '@bufbuild/re2';
import { formatDuration, formatTimestamp, mkTimestamp, parseDuration, parseTimestamp, timeFields, timestampSeconds } from '../time.js';
import { global, member, type FunctionDef } from '../registry.js';
import {
  CelDouble,
  CelDuration,
  CelMap,
  CelOptional,
  CelTimestamp,
  CelType,
  CelUint,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  checkInt,
  err,
  isPlainMap,
  kindOf,
  mapSize,
  mkDouble,
  noOverload,
  normBig,
  typeOf,
  typeName,
} from '../values.js';
import { CelObject } from '../values.js';

export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

export function size(v: unknown): number {
  if (typeof v === 'string') return codePointLength(v);
  if (Array.isArray(v)) return v.length;
  if (isPlainMap(v) || v instanceof CelMap) return mapSize(v);
  if (v instanceof Uint8Array) return v.length;
  return noOverload('size', v);
}

const regexCache = new Map<string, RE2JS>();

/** RE2 compile with a small cache; syntax errors become CEL errors (cel-go: "invalid matches argument"). */
export function compileRegex(pattern: string): RE2JS {
  let re = regexCache.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      err(`invalid regular expression: ${(e as Error).message}`);
    }
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

function str2(fn: string, a: unknown, b: unknown): [string, string] {
  if (typeof a !== 'string' || typeof b !== 'string') noOverload(fn, a, b);
  return [a, b];
}

export const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

// ------------------------------------------------------------------------------------------ conversions
function toInt(v: unknown): number | bigint {
  switch (kindOf(v)) {
    case 'int':
      return v as number | bigint;
    case 'uint': {
      const u = (v as CelUint).v;
      if (u > INT64_MAX) err('int range error');
      return normBig(u);
    }
    case 'double': {
      const d = typeof v === 'number' ? v : (v as CelDouble).v;
      // cel-go: values at or beyond ±2^63 (after truncation) are out of range.
      if (!Number.isFinite(d) || d <= -9223372036854775808 || d >= 9223372036854775808) err('int range error');
      return checkInt(BigInt(Math.trunc(d)));
    }
    case 'string': {
      const s = v as string;
      if (!/^[+-]?\d+$/.test(s)) err(`cannot convert '${s}' to int`);
      const b = BigInt(s);
      if (b > INT64_MAX || b < INT64_MIN) err('int range error');
      return normBig(b);
    }
    case 'timestamp':
      return normBig(timestampSeconds(v as CelTimestamp));
    case 'duration':
      return normBig((v as CelDuration).ns);
    default:
      return noOverload('int', v);
  }
}

function toUint(v: unknown): CelUint {
  switch (kindOf(v)) {
    case 'uint':
      return v as CelUint;
    case 'int': {
      const b = BigInt(v as number | bigint);
      if (b < 0n) err('uint range error');
      return new CelUint(b);
    }
    case 'double': {
      const d = typeof v === 'number' ? v : (v as CelDouble).v;
      // cel-go doubleToUint64Checked: any negative value is out of range, -0.5 included (not truncated to 0).
      if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551616) err('uint range error');
      return new CelUint(BigInt(Math.trunc(d)));
    }
    case 'string': {
      const s = v as string;
      // strconv.ParseUint takes no sign at all (cel-go common/types/string.go): "+5" is not a uint.
      if (!/^\d+$/.test(s)) err(`cannot convert '${s}' to uint`);
      const b = BigInt(s);
      if (b > UINT64_MAX) err('uint range error');
      return new CelUint(b);
    }
    default:
      return noOverload('uint', v);
  }
}

function toDouble(v: unknown): number | CelDouble {
  switch (kindOf(v)) {
    case 'double':
      return v as number | CelDouble;
    case 'int':
      return mkDouble(Number(v));
    case 'uint':
      return mkDouble(Number((v as CelUint).v));
    case 'string': {
      const x = parseGoFloat(v as string);
      if (x === undefined) err(`cannot convert '${String(v)}' to double`);
      return mkDouble(x);
    }
    default:
      return noOverload('double', v);
  }
}

const GO_DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GO_HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F]_?)*[0-9a-fA-F]?)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;

/**
 * strconv.ParseFloat(s, 64), which cel-go's double(string) calls: decimal and hexadecimal (with a mandatory
 * `p` exponent) forms, `inf`/`infinity` with an optional sign and `nan` without one, in any case; no spaces.
 * A finite form beyond the float64 range is ErrRange, an error (cel-go then fails the conversion); underflow
 * rounds to zero without one. Undefined when Go refuses the text.
 */
export function parseGoFloat(s: string): number | undefined {
  if (GO_DECIMAL_FLOAT.test(s)) {
    const x = Number(s);
    return Number.isFinite(x) ? x : undefined;
  }
  const lower = s.toLowerCase();
  if (lower === 'nan') return NaN;
  const unsigned = lower.replace(/^[+-]/, '');
  if (unsigned === 'inf' || unsigned === 'infinity') return lower.startsWith('-') ? -Infinity : Infinity;
  const hex = GO_HEX_FLOAT.exec(s);
  if (hex && (hex[2] !== '' || (hex[3] ?? '') !== '') && !hex[2]!.endsWith('_')) {
    const int = hex[2]!.replaceAll('_', '');
    const frac = hex[3] ?? '';
    const mantissa = Number(BigInt(`0x${int + frac || '0'}`));
    const x = mantissa * 2 ** (Number(hex[4]) - 4 * frac.length);
    if (!Number.isFinite(x)) return undefined;
    return hex[1] === '-' ? -x : x;
  }
  return undefined;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which is what cel-go's string(double) prints (%g). */
export function formatDoubleG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return String(x);
}

export function toStringValue(v: unknown): string {
  switch (kindOf(v)) {
    case 'string':
      return v as string;
    case 'int':
      return String(v);
    case 'uint':
      return String((v as CelUint).v);
    case 'double':
      return formatDoubleG(typeof v === 'number' ? v : (v as CelDouble).v);
    case 'bool':
      return String(v);
    case 'bytes':
      try {
        return utf8Strict.decode(v as Uint8Array);
      } catch {
        return err('invalid UTF-8 in bytes, cannot convert to string');
      }
    case 'timestamp':
      return formatTimestamp(v as CelTimestamp);
    case 'duration':
      return formatDuration(v as CelDuration);
    case 'type':
      return (v as CelType).name;
    case 'opaque':
      // Kubernetes library values with a string form: ip, cidr, url, quantity, semver.
      if (Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(v), 'toString')) return String(v);
      return noOverload('string', v);
    default:
      return noOverload('string', v);
  }
}

function toBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    switch (v) {
      case '1':
      case 't':
      case 'T':
      case 'true':
      case 'TRUE':
      case 'True':
        return true;
      case '0':
      case 'f':
      case 'F':
      case 'false':
      case 'FALSE':
      case 'False':
        return false;
    }
    return err(`Type conversion error from 'string' to 'bool'`);
  }
  return noOverload('bool', v);
}

function toBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return utf8.encode(v);
  return noOverload('bytes', v);
}

function toTimestamp(v: unknown): CelTimestamp {
  if (v instanceof CelTimestamp) return v;
  if (typeof v === 'string') return parseTimestamp(v);
  if (kindOf(v) === 'int') return mkTimestamp(BigInt(v as number | bigint) * 1_000_000_000n);
  return noOverload('timestamp', v);
}

function toDuration(v: unknown): CelDuration {
  if (v instanceof CelDuration) return v;
  if (typeof v === 'string') return parseDuration(v);
  return noOverload('duration', v);
}

// ------------------------------------------------------------------------------------------ time accessors
function tsAccessor(name: string, pick: (f: ReturnType<typeof timeFields>) => number): FunctionDef[] {
  return [
    member(
      'std',
      name,
      [0, 1],
      (t: unknown, tz?: unknown) => {
        if (!(t instanceof CelTimestamp)) {
          if (t instanceof CelDuration && tz === undefined) return durationAccessor(name, t);
          return noOverload(name, t);
        }
        if (tz !== undefined && typeof tz !== 'string') noOverload(name, t, tz);
        return pick(timeFields(t, tz as string | undefined));
      },
      { recv: ['timestamp', 'duration'] },
    ),
  ];
}

function durationAccessor(name: string, d: CelDuration): number | bigint {
  const ns = d.ns;
  switch (name) {
    case 'getHours':
      return normBig(ns / 3_600_000_000_000n);
    case 'getMinutes':
      return normBig(ns / 60_000_000_000n);
    case 'getSeconds':
      return normBig(ns / 1_000_000_000n);
    case 'getMilliseconds':
      return normBig((ns % 1_000_000_000n) / 1_000_000n);
  }
  return noOverload(name, d);
}

// ------------------------------------------------------------------------------------------ optional
function isZeroValue(v: unknown): boolean {
  switch (kindOf(v)) {
    case 'null':
      return true;
    case 'bool':
      return v === false;
    case 'int':
      return v === 0 || v === 0n;
    case 'uint':
      return (v as CelUint).v === 0n;
    case 'double':
      return (typeof v === 'number' ? v : (v as CelDouble).v) === 0;
    case 'string':
      return v === '';
    case 'bytes':
      return (v as Uint8Array).length === 0;
    case 'list':
      return (v as unknown[]).length === 0;
    case 'map':
      return mapSize(v as Record<string, unknown>) === 0;
    case 'duration':
    case 'timestamp':
      return (v as CelDuration).ns === 0n;
    case 'object':
      return Object.keys((v as CelObject).fields).length === 0;
    default:
      return false;
  }
}

function opt(fn: string, v: unknown): CelOptional {
  if (!(v instanceof CelOptional)) noOverload(fn, v);
  return v;
}

export const stdFunctions: FunctionDef[] = [
  global('std', 'size', 1, size),
  member('std', 'size', 0, size),
  member('std', 'contains', 1, (s: unknown, t: unknown) => str2('contains', s, t)[0].includes(t as string), {
    cost: (s) => (typeof s === 'string' ? s.length * 0.1 : 0),
  }),
  member('std', 'startsWith', 1, (s: unknown, t: unknown) => str2('startsWith', s, t)[0].startsWith(t as string)),
  member('std', 'endsWith', 1, (s: unknown, t: unknown) => str2('endsWith', s, t)[0].endsWith(t as string)),
  member('std', 'matches', 1, (s: unknown, re: unknown) => compileRegex(str2('matches', s, re)[1]).test(s as string), {
    cost: (s, re) => (typeof s === 'string' && typeof re === 'string' ? s.length * 0.25 + re.length * 0.25 : 0),
  }),
  global('std', 'matches', 2, (s: unknown, re: unknown) => compileRegex(str2('matches', s, re)[1]).test(s as string)),
  global('std', 'int', 1, toInt),
  global('std', 'uint', 1, toUint),
  global('std', 'double', 1, toDouble),
  global('std', 'string', 1, toStringValue),
  global('std', 'bool', 1, toBool),
  global('std', 'bytes', 1, toBytes),
  global('std', 'dyn', 1, (v: unknown) => v),
  global('std', 'type', 1, (v: unknown) => typeOf(v)),
  global('std', 'timestamp', 1, toTimestamp),
  global('std', 'duration', 1, toDuration),
  ...tsAccessor('getFullYear', (f) => f.year),
  ...tsAccessor('getMonth', (f) => f.month),
  ...tsAccessor('getDate', (f) => f.date),
  ...tsAccessor('getDayOfMonth', (f) => f.date - 1),
  ...tsAccessor('getDayOfWeek', (f) => f.dayOfWeek),
  ...tsAccessor('getDayOfYear', (f) => f.dayOfYear),
  ...tsAccessor('getHours', (f) => f.hours),
  ...tsAccessor('getMinutes', (f) => f.minutes),
  ...tsAccessor('getSeconds', (f) => f.seconds),
  ...tsAccessor('getMilliseconds', (f) => f.millis),
];

export const optionalFunctions: FunctionDef[] = [
  global('optional', 'optional.of', 1, (v: unknown) => CelOptional.of(v)),
  global('optional', 'optional.ofNonZeroValue', 1, (v: unknown) => (isZeroValue(v) ? CelOptional.NONE : CelOptional.of(v))),
  global('optional', 'optional.none', 0, () => CelOptional.NONE),
  member('optional', 'hasValue', 0, (o: unknown) => opt('hasValue', o).has),
  member('optional', 'value', 0, (o: unknown) => {
    const x = opt('value', o);
    if (!x.has) err('optional.none() dereference');
    return x.value;
  }),
  member('optional', 'orValue', 1, (o: unknown, d: unknown) => {
    const x = opt('orValue', o);
    return x.has ? x.value : d;
  }),
  member('optional', 'or', 1, (o: unknown, other: unknown) => {
    const x = opt('or', o);
    if (x.has) return x;
    return opt('or', other);
  }),
];

export { toInt, toUint, toDouble, toBool, toBytes, typeName };
