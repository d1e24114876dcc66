/**
 * Kyverno's string functions (pkg/engine/jmespath/functions.go): Go `strings` semantics on runes,
 * `path_canonicalize` as filepath.Join on Linux, `truncate` counting runes (aquilax/truncate
 * CutStrategy), base64 with the standard padded alphabet and the hashing helpers.
 */
import { hexDigest, HostUnavailable } from '../../util/host.js';
import { fromBase64, toBase64, utf8Decode, utf8Encode } from '../../util/bytes.js';
import { compareGoStrings } from '../values.js';
import { expectNumber, expectString, expectStrings, withTwo, kyvernoError, type FunctionSpec } from './registry.js';
import { JmesFailure } from '../types.js';

function mapRunes(s: string, f: (ch: string) => string): string {
  let out = '';
  for (const ch of s) {
    const m = f(ch);
    // Go maps rune by rune (unicode.ToUpper); multi-rune expansions such as ß → SS do not happen.
    out += Array.from(m).length === 1 ? m : ch;
  }
  return out;
}

/** strings.Replace: n < 0 replaces all; an empty `old` matches before every rune and at the end. */
export function goReplace(s: string, old: string, repl: string, n: number): string {
  if (old === repl || n === 0) return s;
  if (old === '') {
    const runes = Array.from(s);
    let out = '';
    let count = 0;
    for (let i = 0; i <= runes.length; i++) {
      if (n < 0 || count < n) {
        out += repl;
        count++;
      }
      if (i < runes.length) out += runes[i];
    }
    return out;
  }
  let out = '';
  let from = 0;
  let count = 0;
  while (n < 0 || count < n) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + repl;
    from = at + old.length;
    count++;
  }
  return out + s.slice(from);
}

function goTrim(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const cut = new Set(Array.from(cutset));
  const runes = Array.from(s);
  let a = 0;
  let b = runes.length;
  while (a < b && cut.has(runes[a]!)) a++;
  while (b > a && cut.has(runes[b - 1]!)) b--;
  return runes.slice(a, b).join('');
}

function goSplit(s: string, sep: string): string[] {
  if (sep === '') return Array.from(s);
  return s.split(sep);
}

/** Go path.Clean, which filepath.Join uses on Linux (filepath.Join("") is ""). */
export function goCleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return '/' + joined;
  return joined === '' ? '.' : joined;
}

const STD_BASE64 = /^[A-Za-z0-9+/]*$/;

/** base64.StdEncoding.DecodeString: padded standard alphabet; CR and LF are ignored. */
function goBase64Decode(input: string): string | JmesFailure {
  const s = input.replace(/[\r\n]/g, '');
  const body = s.replace(/=+$/, '');
  const pad = s.length - body.length;
  if (!STD_BASE64.test(body)) {
    const bad = body.search(/[^A-Za-z0-9+/]/);
    return new JmesFailure('Runtime', `illegal base64 data at input byte ${bad}`);
  }
  if (s.length % 4 !== 0 || pad > 2 || body.length % 4 === 1) {
    return new JmesFailure('Runtime', `illegal base64 data at input byte ${Math.max(0, body.length - (body.length % 4))}`);
  }
  return utf8Decode(fromBase64(body));
}

function hash(algorithm: 'sha256' | 'sha1' | 'md5', fn: string): FunctionSpec {
  return {
    name: fn,
    args: [['string']],
    handler: (args) => {
      const s = expectString(fn, args, 0);
      if (s instanceof JmesFailure) return s;
      try {
        return hexDigest(algorithm, s);
      } catch (e) {
        if (e instanceof HostUnavailable) return new JmesFailure('Runtime', e.message);
        throw e;
      }
    },
  };
}

type StrHandler = (...s: string[]) => unknown;

/** A function whose arguments are all strings (checked upstream by argSpec, and by validateArg). */
function strings(name: string, arity: number, f: StrHandler): FunctionSpec {
  return {
    name,
    args: Array.from({ length: arity }, () => ['string']),
    handler: (args) => {
      const vals = expectStrings(name, args, arity);
      return vals instanceof JmesFailure ? vals : f(...vals);
    },
  };
}

export const STRING_FUNCTIONS: FunctionSpec[] = [
  strings('compare', 2, (a, b) => compareGoStrings(a!, b!)),
  strings('equal_fold', 2, (a, b) => a!.toLowerCase() === b!.toLowerCase() || a!.toUpperCase() === b!.toUpperCase()),
  {
    name: 'replace',
    args: [['string'], ['string'], ['string'], ['number']],
    handler: (args) => {
      const strs = expectStrings('replace', args, 3);
      if (strs instanceof JmesFailure) return strs;
      const n = expectNumber('replace', args, 3);
      if (n instanceof JmesFailure) return n;
      const [s, old, repl] = strs as [string, string, string];
      return goReplace(s, old, repl, Math.trunc(n));
    },
  },
  strings('replace_all', 3, (s, old, repl) => goReplace(s!, old!, repl!, -1)),
  strings('to_upper', 1, (s) => mapRunes(s!, (ch) => ch.toUpperCase())),
  strings('to_lower', 1, (s) => mapRunes(s!, (ch) => ch.toLowerCase())),
  strings('trim', 2, (s, cutset) => goTrim(s!, cutset!)),
  strings('trim_prefix', 2, (s, prefix) => (s!.startsWith(prefix!) ? s!.slice(prefix!.length) : s)),
  strings('split', 2, (s, sep) => goSplit(s!, sep!)),
  {
    name: 'truncate',
    args: [['string'], ['number']],
    handler: withTwo('truncate', expectString, expectNumber, (s, n) => {
      const length = Math.trunc(Math.max(0, n));
      const runes = Array.from(s);
      return runes.length <= length ? s : runes.slice(0, length).join('');
    }),
  },
  strings('base64_decode', 1, (s) => goBase64Decode(s!)),
  strings('base64_encode', 1, (s) => toBase64(utf8Encode(s!))),
  strings('path_canonicalize', 1, (s) => (s === '' ? '' : goCleanPath(s!))),
  strings('to_boolean', 1, (s) => {
    const lower = s!.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    return kyvernoError('to_boolean', `lowercase argument must be 'true' or 'false' (provided: '${s}')`);
  }),
  hash('sha256', 'sha256'),
  hash('sha1', 'sha1'),
  hash('md5', 'md5'),
];
