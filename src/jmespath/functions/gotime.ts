/**
 * The slice of Go's `time` package Kyverno's time functions rely on: Parse with Go reference layouts
 * ("2006-01-02T15:04:05Z07:00", "Mon Jan _2 15:04:05 MST 2006", ...), Format as RFC 3339, Add,
 * Sub, Truncate. An instant is BigInt nanoseconds since the Unix epoch plus the UTC offset it was
 * written with (Go keeps the offset of a parsed time, and Format prints it).
 */
export interface GoTime {
  ns: bigint;
  offsetSec: number;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';

const NS_PER_SEC = 1000000000n;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): { y: number; m: number; d: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

export interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  weekday: number;
}

/** Wall-clock fields of a time in its own offset. */
export function fields(t: GoTime): Fields {
  const local = t.ns + BigInt(t.offsetSec) * NS_PER_SEC;
  let secs = local / NS_PER_SEC;
  let nanos = Number(local % NS_PER_SEC);
  if (nanos < 0) {
    nanos += 1e9;
    secs -= 1n;
  }
  const s = Number(secs);
  const days = Math.floor(s / 86400);
  const rem = s - days * 86400;
  const { y, m, d } = civilFromDays(days);
  return {
    year: y,
    month: m,
    day: d,
    hour: Math.floor(rem / 3600),
    minute: Math.floor((rem % 3600) / 60),
    second: rem % 60,
    nanos,
    weekday: (((days + 4) % 7) + 7) % 7,
  };
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? '-' + s : s;
}

/** Time.Format(time.RFC3339). */
export function formatRFC3339(t: GoTime): string {
  const f = fields(t);
  let zone = 'Z';
  if (t.offsetSec !== 0) {
    const sign = t.offsetSec < 0 ? '-' : '+';
    const abs = Math.abs(t.offsetSec);
    zone = `${sign}${pad(Math.floor(abs / 3600), 2)}:${pad(Math.floor((abs % 3600) / 60), 2)}`;
  }
  return `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}${zone}`;
}

export function fromDate(d: Date): GoTime {
  return { ns: BigInt(d.getTime()) * 1000000n, offsetSec: 0 };
}

/* --- Parsing with a Go layout --------------------------------------------------------------- */

type Std =
  | 'Jan' | 'January' | '1' | '01' | 'Mon' | 'Monday' | '2' | '_2' | '02' | '002' | '15' | '3' | '03'
  | '4' | '04' | '5' | '05' | '2006' | '06' | 'PM' | 'pm' | 'MST'
  | 'Z0700' | 'Z070000' | 'Z07' | 'Z07:00' | 'Z07:00:00' | '-0700' | '-070000' | '-07' | '-07:00' | '-07:00:00'
  | 'frac0' | 'frac9';

/** Go's nextStdChunk, reduced to the elements it recognises, in its order of precedence. */
const STD_PREFIXES: [string, Std][] = [
  ['January', 'January'], ['Jan', 'Jan'], ['Monday', 'Monday'], ['Mon', 'Mon'], ['MST', 'MST'],
  ['01', '01'], ['02', '02'], ['03', '03'], ['04', '04'], ['05', '05'], ['06', '06'], ['002', '002'],
  ['15', '15'], ['2006', '2006'], ['_2', '_2'], ['PM', 'PM'], ['pm', 'pm'],
  ['-070000', '-070000'], ['-07:00:00', '-07:00:00'], ['-0700', '-0700'], ['-07:00', '-07:00'], ['-07', '-07'],
  ['Z070000', 'Z070000'], ['Z07:00:00', 'Z07:00:00'], ['Z0700', 'Z0700'], ['Z07:00', 'Z07:00'], ['Z07', 'Z07'],
  ['1', '1'], ['2', '2'], ['3', '3'], ['4', '4'], ['5', '5'],
];

type Chunk = { literal: string } | { std: Std; digits?: number };

function splitLayout(layout: string): Chunk[] {
  const out: Chunk[] = [];
  let lit = '';
  let i = 0;
  outer: while (i < layout.length) {
    const ch = layout[i]!;
    if ((ch === '.' || ch === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const digit = layout[i + 1]!;
      let j = i + 1;
      while (j < layout.length && layout[j] === digit) j++;
      if (!(j < layout.length && layout[j]! >= '0' && layout[j]! <= '9')) {
        if (lit) out.push({ literal: lit });
        lit = '';
        out.push({ std: digit === '0' ? 'frac0' : 'frac9', digits: j - i - 1 });
        i = j;
        continue;
      }
    }
    for (const [prefix, std] of STD_PREFIXES) {
      if (!layout.startsWith(prefix, i)) continue;
      // "Jan"/"Mon" must not be followed by a lowercase letter (Go: startsWithLowerCase check).
      if ((std === 'Jan' || std === 'Mon') && /[a-z]/.test(layout[i + 3] ?? '')) continue;
      if (lit) out.push({ literal: lit });
      lit = '';
      out.push({ std });
      i += prefix.length;
      continue outer;
    }
    lit += ch;
    i++;
  }
  if (lit) out.push({ literal: lit });
  return out;
}

export type ParseResult = { ok: true; time: GoTime } | { ok: false; message: string };

function quote(s: string): string {
  return JSON.stringify(s);
}

function getNum(value: string, fixed: boolean, maxDigits = 2): [number, string] | undefined {
  const m = /^\d+/.exec(value);
  if (!m) return undefined;
  if (fixed) {
    if (m[0].length < 2) return undefined;
    return [Number(value.slice(0, 2)), value.slice(2)];
  }
  const take = m[0].slice(0, maxDigits);
  return [Number(take), value.slice(take.length)];
}

function lookupName(names: string[], value: string, abbrev: boolean): [number, string] | undefined {
  for (let i = 0; i < names.length; i++) {
    const name = abbrev ? names[i]!.slice(0, 3) : names[i]!;
    if (value.length >= name.length && value.slice(0, name.length).toLowerCase() === name.toLowerCase()) return [i, value.slice(name.length)];
  }
  return undefined;
}

function parseOffset(std: Std, value: string): [number, string] | undefined {
  if (std.startsWith('Z') && value.startsWith('Z')) return [0, value.slice(1)];
  const shape = std.replace(/^Z/, '-');
  const re =
    shape === '-07:00:00' ? /^([+-])(\d\d):(\d\d):(\d\d)/ :
    shape === '-07:00' ? /^([+-])(\d\d):(\d\d)/ :
    shape === '-070000' ? /^([+-])(\d\d)(\d\d)(\d\d)/ :
    shape === '-0700' ? /^([+-])(\d\d)(\d\d)/ : /^([+-])(\d\d)/;
  const m = re.exec(value);
  if (!m) return undefined;
  const secs = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return [m[1] === '-' ? -secs : secs, value.slice(m[0].length)];
}

/** time.Parse(layout, value): times without an offset are UTC; unknown zone abbreviations get offset 0. */
export function parseTime(layout: string, value: string): ParseResult {
  const original = value;
  const bad = (elem: string, rest: string): ParseResult => ({
    ok: false,
    message: `parsing time ${quote(original)} as ${quote(layout)}: cannot parse ${quote(rest)} as ${quote(elem)}`,
  });
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let yday = -1;
  const chunks = splitLayout(layout);
  for (let ci = 0; ci < chunks.length; ci++) {
    const chunk = chunks[ci]!;
    if ('literal' in chunk) {
      if (!value.startsWith(chunk.literal)) return bad(chunk.literal, value);
      value = value.slice(chunk.literal.length);
      continue;
    }
    const std = chunk.std;
    const rest = value;
    let r: [number, string] | undefined;
    switch (std) {
      case '2006':
        if (!/^\d{4}/.test(value)) return bad(std, rest);
        year = Number(value.slice(0, 4));
        value = value.slice(4);
        break;
      case '06':
        if (!/^\d{2}/.test(value)) return bad(std, rest);
        year = Number(value.slice(0, 2));
        year += year >= 69 ? 1900 : 2000;
        value = value.slice(2);
        break;
      case 'Jan':
      case 'January':
        r = lookupName(MONTHS, value, std === 'Jan');
        if (!r) return bad(std, rest);
        month = r[0] + 1;
        value = r[1];
        break;
      case '01':
      case '1':
        r = getNum(value, std === '01');
        if (!r || r[0] < 1 || r[0] > 12) return { ok: false, message: `parsing time ${quote(original)}: month out of range` };
        month = r[0];
        value = r[1];
        break;
      case 'Mon':
      case 'Monday':
        r = lookupName(DAYS, value, std === 'Mon');
        if (!r) return bad(std, rest);
        value = r[1];
        break;
      case '02':
      case '2':
      case '_2':
        if (std === '_2' && value.startsWith(' ')) value = value.slice(1);
        r = getNum(value, std === '02');
        if (!r) return bad(std, rest);
        day = r[0];
        value = r[1];
        break;
      case '002':
        if (!/^\d{3}/.test(value)) return bad(std, rest);
        yday = Number(value.slice(0, 3));
        value = value.slice(3);
        break;
      case '15':
        r = getNum(value, false);
        if (!r || r[0] > 23) return { ok: false, message: `parsing time ${quote(original)}: hour out of range` };
        hour = r[0];
        value = r[1];
        break;
      case '3':
      case '03':
        r = getNum(value, std === '03');
        if (!r || r[0] > 12) return { ok: false, message: `parsing time ${quote(original)}: hour out of range` };
        hour = r[0];
        value = r[1];
        break;
      case '4':
      case '04':
        r = getNum(value, std === '04');
        if (!r || r[0] > 59) return { ok: false, message: `parsing time ${quote(original)}: minute out of range` };
        minute = r[0];
        value = r[1];
        break;
      case '5':
      case '05': {
        r = getNum(value, std === '05');
        if (!r || r[0] > 59) return { ok: false, message: `parsing time ${quote(original)}: second out of range` };
        second = r[0];
        value = r[1];
        // Go accepts a fractional second after the seconds field even when the layout has none.
        const next = chunks[ci + 1];
        const layoutHasFrac = next !== undefined && 'std' in next && (next.std === 'frac0' || next.std === 'frac9');
        if (!layoutHasFrac && /^[.,]\d/.test(value)) {
          const m = /^[.,](\d+)/.exec(value)!;
          nanos = Number(m[1]!.slice(0, 9).padEnd(9, '0'));
          value = value.slice(m[0].length);
        }
        break;
      }
      case 'PM':
      case 'pm': {
        const v = value.slice(0, 2).toUpperCase();
        if (v !== 'AM' && v !== 'PM') return bad(std, rest);
        pm = v === 'PM';
        value = value.slice(2);
        break;
      }
      case 'MST': {
        const m = /^(UTC|GMT([+-]\d{1,2})?|[A-Z]{3,5}|[+-]\d\d)/.exec(value);
        if (!m) return bad(std, rest);
        if (m[2] !== undefined) offset = Number(m[2]) * 3600;
        else if (offset === undefined) offset = 0;
        value = value.slice(m[0].length);
        break;
      }
      case 'frac0':
      case 'frac9': {
        const m = std === 'frac0' ? new RegExp(`^[.,](\\d{${chunk.digits}})`).exec(value) : /^[.,](\d+)/.exec(value);
        if (!m) {
          if (std === 'frac9') break;
          return bad(std === 'frac0' ? '.' + '0'.repeat(chunk.digits ?? 0) : '.9', rest);
        }
        nanos = Number(m[1]!.slice(0, 9).padEnd(9, '0'));
        value = value.slice(m[0].length);
        break;
      }
      default: {
        r = parseOffset(std, value);
        if (!r) return bad(std, rest);
        offset = r[0];
        value = r[1];
      }
    }
  }
  if (value !== '') return { ok: false, message: `parsing time ${quote(original)}: extra text: ${quote(value)}` };
  if (pm !== undefined) {
    if (pm && hour < 12) hour += 12;
    else if (!pm && hour === 12) hour = 0;
  }
  if (yday >= 0) {
    let m = 1;
    let d = yday;
    while (m <= 12 && d > daysIn(m, year)) {
      d -= daysIn(m, year);
      m++;
    }
    if (m > 12) return { ok: false, message: `parsing time ${quote(original)}: day-of-year out of range` };
    month = m;
    day = d;
  }
  if (day < 1 || day > daysIn(month, year)) return { ok: false, message: `parsing time ${quote(original)}: day out of range` };
  const offsetSec = offset ?? 0;
  const secs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetSec;
  return { ok: true, time: { ns: BigInt(secs) * NS_PER_SEC + BigInt(nanos), offsetSec } };
}

/** Seconds from Go's zero time (0001-01-01 UTC) to the Unix epoch. */
const ZERO_TO_UNIX_NS = 62135596800n * NS_PER_SEC;

/** Time.Truncate(d): rounds down to a multiple of d since the zero time; d <= 0 leaves t alone. */
export function truncateTime(t: GoTime, d: bigint): GoTime {
  if (d <= 0n) return t;
  const abs = t.ns + ZERO_TO_UNIX_NS;
  let rem = abs % d;
  if (rem < 0n) rem += d;
  return { ns: t.ns - rem, offsetSec: t.offsetSec };
}
