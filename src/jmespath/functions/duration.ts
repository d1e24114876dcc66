/**
 * Go time.Duration: ParseDuration and String, in BigInt nanoseconds (int64 range), with Go's error
 * messages. Used by Kyverno's arithmetic and time functions.
 */
const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n,
  'μs': 1000n,
  ms: 1000000n,
  s: 1000000000n,
  m: 60000000000n,
  h: 3600000000000n,
};

const MAX_INT64 = (1n << 63n) - 1n;

export const SECOND = 1000000000n;

export type DurationResult = { ok: true; ns: bigint } | { ok: false; message: string };

function quote(s: string): string {
  return JSON.stringify(s);
}

/** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`. */
export function parseDuration(orig: string): DurationResult {
  const invalid: DurationResult = { ok: false, message: `time: invalid duration ${quote(orig)}` };
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, ns: 0n };
  if (s === '') return invalid;
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) return invalid;
    const intMatch = /^\d*/.exec(s)![0];
    s = s.slice(intMatch.length);
    const pre = intMatch.length > 0;
    let fracDigits = '';
    let post = false;
    if (s !== '' && s[0] === '.') {
      s = s.slice(1);
      fracDigits = /^\d*/.exec(s)![0];
      s = s.slice(fracDigits.length);
      post = fracDigits.length > 0;
    }
    if (!pre && !post) return invalid;
    let i = 0;
    while (i < s.length && s[i] !== '.' && !(s[i]! >= '0' && s[i]! <= '9')) i++;
    if (i === 0) return { ok: false, message: `time: missing unit in duration ${quote(orig)}` };
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = UNITS[u];
    if (unit === undefined) return { ok: false, message: `time: unknown unit ${quote(u)} in duration ${quote(orig)}` };
    let v = pre ? BigInt(intMatch) : 0n;
    if (v > (1n << 63n) / unit) return invalid;
    v *= unit;
    if (post) {
      // Go accumulates the fraction as a float64 (exact enough for ns of an hour).
      const f = Number(fracDigits.slice(0, 18));
      const scale = Math.pow(10, Math.min(fracDigits.length, 18));
      v += BigInt(Math.trunc(f * (Number(unit) / scale)));
      if (v > 1n << 63n) return invalid;
    }
    total += v;
    if (total > 1n << 63n) return invalid;
  }
  if (neg) return { ok: true, ns: -total };
  if (total > MAX_INT64) return invalid;
  return { ok: true, ns: total };
}

function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let out = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) out = digit.toString() + out;
    v /= 10n;
  }
  if (print) out = '.' + out;
  return [out, v];
}

/** time.Duration.String: "1h2m3.5s", "1.5ms", "0s". */
export function formatDuration(d: bigint): string {
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < 1000n) {
      prec = 0;
      unit = 'ns';
    } else if (u < 1000000n) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, rest] = fmtFrac(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m` + out;
      u /= 60n;
      if (u > 0n) out = `${u}h` + out;
    }
  }
  return neg ? '-' + out : out;
}

/** Duration.Seconds(). */
export function durationSeconds(d: bigint): number {
  return Number(d / SECOND) + Number(d % SECOND) / 1e9;
}

/** time.Duration(f) for a float64 number of nanoseconds: truncation toward zero. */
export function durationFromFloatNs(ns: number): bigint {
  if (!Number.isFinite(ns)) return ns < 0 ? -(1n << 63n) : MAX_INT64;
  return BigInt(Math.trunc(ns));
}
