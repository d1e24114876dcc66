/**
 * Timestamps and durations with nanosecond precision (bigint nanoseconds).
 * Ranges follow cel-go: timestamps 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z,
 * durations ±315,576,000,000 s (google.protobuf.Duration, common/types/duration.go).
 */
import { CelDuration, CelTimestamp, err } from './values.js';

const NS = 1_000_000_000n;
export const TS_MIN = -62135596800n * NS;
export const TS_MAX = 253402300799n * NS + 999_999_999n;
const DUR_MAX = 315576000000n * NS + 999_999_999n;

export function mkTimestamp(ns: bigint): CelTimestamp {
  if (ns < TS_MIN || ns > TS_MAX) err('timestamp out of range');
  return new CelTimestamp(ns);
}

export function mkDuration(ns: bigint): CelDuration {
  if (ns < -DUR_MAX || ns > DUR_MAX) err('duration out of range');
  return new CelDuration(ns);
}

/** RFC 3339 as Go's time.Parse(time.RFC3339, ...) accepts it. */
export function parseTimestamp(s: string): CelTimestamp {
  const m = /^(\d{4,})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) err(`timestamp parse error: cannot parse "${s}"`);
  const [, y, mo, d, h, mi, se, frac, z, sign, oh, om] = m;
  const year = Number(y);
  if (y!.length > 4 || year < 1) err('timestamp out of range');
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) {
    err(`timestamp parse error: cannot parse "${s}"`);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(Number(h), Number(mi), Number(se), 0);
  let secs = BigInt(date.getTime() / 1000);
  if (!z) {
    const off = (Number(oh) * 60 + Number(om)) * 60;
    secs -= BigInt(sign === '-' ? -off : off);
  }
  const nanos = BigInt((frac ?? '').padEnd(9, '0') || '0');
  return mkTimestamp(secs * NS + nanos);
}

function daysIn(y: number, m: number): number {
  return [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

export function timestampSeconds(t: CelTimestamp): bigint {
  return floorDiv(t.ns, NS);
}

/** Go time.RFC3339Nano in UTC: trailing zeros of the fraction dropped. */
export function formatTimestamp(t: CelTimestamp): string {
  const secs = floorDiv(t.ns, NS);
  const nanos = Number(t.ns - secs * NS);
  const d = new Date(Number(secs) * 1000);
  const y = d.getUTCFullYear();
  const p2 = (n: number) => String(n).padStart(2, '0');
  let out = `${String(y).padStart(4, '0')}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}T${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  if (nanos > 0) out += '.' + String(nanos).padStart(9, '0').replace(/0+$/, '');
  return out + 'Z';
}

const UNIT_NS: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: NS, m: 60n * NS, h: 3600n * NS };

/** Go's time.ParseDuration ("1h30m", "-1.5s", "100ns"). */
export function parseDuration(s: string): CelDuration {
  let rest = s;
  let neg = false;
  if (rest[0] === '-' || rest[0] === '+') {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return new CelDuration(0n);
  if (rest === '') err(`invalid duration "${s}"`);
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) err(`invalid duration "${s}"`);
    const unit = UNIT_NS[m[3]!]!;
    const whole = BigInt(m[1] || '0');
    let v = whole * unit;
    const frac = m[2] ?? '';
    if (frac.length > 0) v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    rest = rest.slice(m[0].length);
  }
  return mkDuration(neg ? -total : total);
}

/** cel-go string(duration): seconds with up to 9 fractional digits, suffix "s". */
export function formatDuration(d: CelDuration): string {
  const neg = d.ns < 0n;
  const a = neg ? -d.ns : d.ns;
  const secs = a / NS;
  const nanos = a % NS;
  let out = String(secs);
  if (nanos > 0n) out += '.' + String(nanos).padStart(9, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + out + 's';
}

// ------------------------------------------------------------------------------------------ time zones
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset in minutes of `tz` (IANA name, "UTC", or ±HH:MM / HH:MM) at the instant `ms`. */
function tzOffsetMinutes(tz: string, ms: number): number {
  const m = /^([+-]?)(\d{2}):(\d{2})$/.exec(tz);
  if (m) {
    const v = Number(m[2]) * 60 + Number(m[3]);
    return m[1] === '-' ? -v : v;
  }
  let f = formatters.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      err(`invalid time zone: ${tz}`);
    }
    formatters.set(tz, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  let year = Number(parts['year']);
  if (parts['era'] === 'BC' || parts['era'] === 'B') year = 1 - year;
  const d = new Date(0);
  d.setUTCFullYear(year, Number(parts['month']) - 1, Number(parts['day']));
  d.setUTCHours(Number(parts['hour']), Number(parts['minute']), Number(parts['second']));
  return Math.round((d.getTime() - ms) / 60000);
}

export interface TimeFields {
  year: number;
  month: number; // 0-based
  date: number; // 1-based
  dayOfWeek: number;
  dayOfYear: number; // 0-based
  hours: number;
  minutes: number;
  seconds: number;
  millis: number;
}

export function timeFields(t: CelTimestamp, tz?: string): TimeFields {
  const secs = floorDiv(t.ns, NS);
  const nanos = Number(t.ns - secs * NS);
  const ms = Number(secs) * 1000;
  const off = tz === undefined ? 0 : tzOffsetMinutes(tz, ms);
  const d = new Date(ms + off * 60000);
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), 0, 1);
  start.setUTCHours(0, 0, 0, 0);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth(),
    date: d.getUTCDate(),
    dayOfWeek: d.getUTCDay(),
    dayOfYear: Math.floor((d.getTime() - start.getTime()) / 86400000),
    hours: d.getUTCHours(),
    minutes: d.getUTCMinutes(),
    seconds: d.getUTCSeconds(),
    millis: Math.floor(nanos / 1e6),
  };
}
