/**
 * cel-go ext.Strings version 2 (ext/strings.go, ext/formatting.go): indices count code points.
 */
import { formatDuration, formatTimestamp } from '../time.js';
import { global, member, type FunctionDef } from '../registry.js';
import {
  CelDouble,
  CelDuration,
  CelTimestamp,
  CelType,
  CelUint,
  err,
  isMap,
  kindOf,
  mapEntries,
  noOverload,
} from '../values.js';
import { utf8 } from './std.js';
import { toHex } from '../../util/bytes.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points of s (only materialised when s has astral characters). */
function cps(s: string): string[] | undefined {
  return SURROGATE.test(s) ? Array.from(s) : undefined;
}

function intArg(fn: string, v: unknown, ...rest: unknown[]): number {
  if (kindOf(v) !== 'int') noOverload(fn, v, ...rest);
  return Number(v);
}

function strArg(fn: string, v: unknown, ...rest: unknown[]): string {
  if (typeof v !== 'string') noOverload(fn, v, ...rest);
  return v;
}

function charAt(s: unknown, i: unknown): string {
  const str = strArg('charAt', s, i);
  const n = intArg('charAt', i, s);
  const cp = cps(str);
  const len = cp ? cp.length : str.length;
  if (n < 0 || n > len) err(`index out of range: ${n}`);
  if (n === len) return '';
  return cp ? cp[n]! : str[n]!;
}

function indexOf(s: unknown, sub: unknown, from?: unknown): number {
  const str = strArg('indexOf', s, sub);
  const needle = strArg('indexOf', sub, s);
  const start = from === undefined ? 0 : intArg('indexOf', from, s, sub);
  const cp = cps(str);
  const len = cp ? cp.length : str.length;
  if (start < 0 || start > len) err(`index out of range: ${start}`);
  if (!cp && !SURROGATE.test(needle)) return str.indexOf(needle, start);
  const hay = cp ?? Array.from(str);
  const nd = Array.from(needle);
  for (let i = start; i + nd.length <= hay.length; i++) {
    let ok = true;
    for (let j = 0; j < nd.length && ok; j++) ok = hay[i + j] === nd[j];
    if (ok) return i;
  }
  return -1;
}

function lastIndexOf(s: unknown, sub: unknown, from?: unknown): number {
  const str = strArg('lastIndexOf', s, sub);
  const needle = strArg('lastIndexOf', sub, s);
  const hay = cps(str) ?? str.split('');
  const nd = Array.from(needle);
  let start = hay.length;
  if (from !== undefined) {
    start = intArg('lastIndexOf', from, s, sub);
    if (start < 0 || start > hay.length) err(`index out of range: ${start}`);
  }
  if (nd.length === 0) return Math.min(start, hay.length);
  for (let i = Math.min(start, hay.length - nd.length); i >= 0; i--) {
    let ok = true;
    for (let j = 0; j < nd.length && ok; j++) ok = hay[i + j] === nd[j];
    if (ok) return i;
  }
  return -1;
}

function substring(s: unknown, a: unknown, b?: unknown): string {
  const str = strArg('substring', s, a);
  const start = intArg('substring', a, s);
  const cp = cps(str);
  const len = cp ? cp.length : str.length;
  const end = b === undefined ? len : intArg('substring', b, s, a);
  if (start < 0 || start > len) err(`index out of range: ${start}`);
  if (end < 0 || end > len) err(`index out of range: ${end}`);
  if (start > end) err(`invalid substring range. start: ${start}, end: ${end}`);
  return cp ? cp.slice(start, end).join('') : str.slice(start, end);
}

function replace(s: unknown, from: unknown, to: unknown, limit?: unknown): string {
  const str = strArg('replace', s, from, to);
  const f = strArg('replace', from, s, to);
  const t = strArg('replace', to, s, from);
  const n = limit === undefined ? -1 : intArg('replace', limit, s, from, to);
  if (n < 0) return str.split(f).join(t);
  if (n === 0) return str;
  // Go strings.Replace with a count: replace the first n occurrences (an empty `from` matches between runes).
  let out = '';
  let rest = str;
  let count = 0;
  if (f === '') {
    const parts = Array.from(str);
    for (let i = 0; i <= parts.length; i++) {
      if (count < n) {
        out += t;
        count++;
      }
      if (i < parts.length) out += parts[i];
    }
    return out;
  }
  while (count < n) {
    const i = rest.indexOf(f);
    if (i < 0) break;
    out += rest.slice(0, i) + t;
    rest = rest.slice(i + f.length);
    count++;
  }
  return out + rest;
}

function split(s: unknown, sep: unknown, limit?: unknown): string[] {
  const str = strArg('split', s, sep);
  const d = strArg('split', sep, s);
  const n = limit === undefined ? -1 : intArg('split', limit, s, sep);
  if (n === 0) return [];
  if (n === 1) return [str];
  const all = d === '' ? Array.from(str) : str.split(d);
  if (n < 0 || all.length <= n) return all;
  // Go strings.SplitN: the last piece holds the unsplit remainder.
  const head = all.slice(0, n - 1);
  return [...head, all.slice(n - 1).join(d)];
}

// Go's unicode.IsSpace set used by strings.TrimSpace.
const SPACE = /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g;

function trim(s: unknown): string {
  return strArg('trim', s).replace(SPACE, '');
}

const NON_ASCII = /[^\x00-\x7f]/;

function lowerAscii(s: unknown): string {
  const str = strArg('lowerAscii', s);
  return NON_ASCII.test(str) ? str.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : str.toLowerCase();
}

function upperAscii(s: unknown): string {
  const str = strArg('upperAscii', s);
  return NON_ASCII.test(str) ? str.replace(/[a-z]+/g, (m) => m.toUpperCase()) : str.toUpperCase();
}

function join(list: unknown, sep?: unknown): string {
  if (!Array.isArray(list)) return noOverload('join', list);
  const d = sep === undefined ? '' : strArg('join', sep, list);
  for (const x of list) if (typeof x !== 'string') noOverload('join', list, sep);
  return list.join(d);
}

/** strings.quote (ext/strings.go quote): Go-style escapes, invalid UTF-8 replaced. */
export function quote(s: unknown): string {
  const str = strArg('strings.quote', s);
  let out = '"';
  for (const ch of str) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '\u0007':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      default:
        if (c >= 0xd800 && c <= 0xdfff) out += '\uFFFD';
        else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
        else out += ch;
    }
  }
  return out + '"';
}

// ------------------------------------------------------------------------------------------ format
function numOf(v: unknown): number {
  return typeof v === 'number' ? v : v instanceof CelDouble ? v.v : Number(v);
}

function specialDouble(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return undefined;
}

/** Go's %.Nf: round half to even on exact ties (JS toFixed rounds ties away from zero). */
function toFixedGo(x: number, p: number): string {
  const s = x.toFixed(p);
  const long = Math.abs(x).toFixed(Math.min(100, p + 25));
  const dot = long.indexOf('.');
  const tail = long.slice(dot + 1 + p);
  if (/^50*$/.test(tail)) {
    // exact tie: round to even
    const down = (Math.sign(x) * Math.floor(Math.abs(x) * 10 ** p)) / 10 ** p;
    const lastDigit = Math.floor(Math.abs(x) * 10 ** p) % 10;
    if (lastDigit % 2 === 0) return down.toFixed(p);
  }
  return s;
}

function toExpGo(x: number, p: number): string {
  const s = x.toExponential(p);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function fmtStringClause(v: unknown): string {
  switch (kindOf(v)) {
    case 'string':
      return v as string;
    case 'bool':
      return String(v);
    case 'int':
      return String(v);
    case 'uint':
      return String((v as CelUint).v);
    case 'double': {
      const x = numOf(v);
      return specialDouble(x) ?? String(x);
    }
    case 'bytes':
      return new TextDecoder().decode(v as Uint8Array);
    case 'null':
      return 'null';
    case 'type':
      return (v as CelType).name;
    case 'timestamp':
      return formatTimestamp(v as CelTimestamp);
    case 'duration':
      return formatDuration(v as CelDuration);
    case 'list':
      return `[${(v as unknown[]).map(fmtStringClause).join(', ')}]`;
    case 'map': {
      const parts = mapEntries(v as Record<string, unknown>).map(([k, x]) => [fmtStringClause(k), fmtStringClause(x)] as const);
      parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return `{${parts.map(([k, x]) => `${k}: ${x}`).join(', ')}}`;
    }
    default:
      return err(`error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${kindOf(v)}`);
  }
}

function intText(v: unknown, radix: number): string | undefined {
  const k = kindOf(v);
  if (k === 'int') return (typeof v === 'bigint' ? v : BigInt(v as number)).toString(radix);
  if (k === 'uint') return (v as CelUint).v.toString(radix);
  return undefined;
}

function typeLabel(v: unknown): string {
  const k = kindOf(v);
  return k === 'null' ? 'null_type' : k;
}

function formatClause(verb: string, prec: number | undefined, v: unknown): string {
  switch (verb) {
    case 's':
      return fmtStringClause(v);
    case 'd': {
      const t = intText(v, 10);
      if (t !== undefined) return t;
      if (kindOf(v) === 'double') {
        const sp = specialDouble(numOf(v));
        if (sp) return sp;
      }
      return err(`error during formatting: decimal clause can only be used on integers, was given ${typeLabel(v)}`);
    }
    case 'f':
    case 'e': {
      const k = kindOf(v);
      if (k !== 'double' && k !== 'int' && k !== 'uint') {
        return err(
          verb === 'f'
            ? `error during formatting: fixed-point clause can only be used on doubles, was given ${typeLabel(v)}`
            : `error during formatting: scientific clause can only be used on doubles, was given ${typeLabel(v)}`,
        );
      }
      const x = k === 'uint' ? Number((v as CelUint).v) : numOf(v);
      const sp = specialDouble(x);
      if (sp) return sp;
      return verb === 'f' ? toFixedGo(x, prec ?? 6) : toExpGo(x, prec ?? 6);
    }
    case 'b': {
      if (typeof v === 'boolean') return v ? '1' : '0';
      const t = intText(v, 2);
      if (t !== undefined) return t;
      return err(`error during formatting: only integers and bools can be formatted as binary, was given ${typeLabel(v)}`);
    }
    case 'o': {
      const t = intText(v, 8);
      if (t !== undefined) return t;
      return err(`error during formatting: octal clause can only be used on integers, was given ${typeLabel(v)}`);
    }
    case 'x':
    case 'X': {
      let t = intText(v, 16);
      if (t === undefined) {
        if (typeof v === 'string') t = toHex(utf8.encode(v));
        else if (v instanceof Uint8Array) t = toHex(v);
        else return err(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeLabel(v)}`);
      }
      return verb === 'X' ? t.toUpperCase() : t;
    }
  }
  return err(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
}

function format(fmt: unknown, args: unknown): string {
  const s = strArg('format', fmt, args);
  if (!Array.isArray(args)) return noOverload('format', fmt, args);
  let out = '';
  let argi = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    i++;
    if (s[i] === '%') {
      out += '%';
      continue;
    }
    let prec: number | undefined;
    if (s[i] === '.') {
      let j = i + 1;
      while (j < s.length && s[j]! >= '0' && s[j]! <= '9') j++;
      prec = Number(s.slice(i + 1, j));
      i = j;
    }
    const verb = s[i];
    if (verb === undefined) err('could not parse formatting clause: unexpected end of string');
    if (!'sdfeboxX'.includes(verb)) err(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    if (argi >= args.length) err(`index ${argi} out of range`);
    out += formatClause(verb, prec, args[argi++]);
  }
  return out;
}

export const stringFunctions: FunctionDef[] = [
  member('strings', 'charAt', 1, charAt),
  member('strings', 'indexOf', [1, 2], indexOf, { recv: ['string'] }),
  member('strings', 'lastIndexOf', [1, 2], lastIndexOf, { recv: ['string'] }),
  member('strings', 'lowerAscii', 0, lowerAscii),
  member('strings', 'upperAscii', 0, upperAscii),
  member('strings', 'replace', [2, 3], replace),
  member('strings', 'split', [1, 2], split),
  member('strings', 'substring', [1, 2], substring),
  member('strings', 'trim', 0, trim),
  member('strings', 'join', [0, 1], join),
  member('strings', 'format', 1, format),
  global('strings', 'strings.quote', 1, quote),
];

export { isMap };
