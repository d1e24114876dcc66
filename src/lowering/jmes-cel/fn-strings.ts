/**
 * Kyverno's string functions (pkg/engine/jmespath/functions.go) in CEL. Go's strings package works on
 * runes; CEL's size(), substring() and split("") count code points, which is the same thing for valid
 * UTF-8 (all a JSON string can hold).
 */
import type { Cx } from './context.js';
import { celString, cond, fail, frag, litString, op, tfrag, type Frag } from './frag.js';
import { T } from './types.js';
import { assume, both, cannot, exact, yet, type FnDef } from './table.js';

const ASCII = celString('^[\\x00-\\x7f]*$');

function ascii(s: Frag): string {
  return `${op(s)}.matches(${ASCII})`;
}

/**
 * strings.Replace(s, old, new, n). cel-go's replace() is strings.Replace, but an empty `old` (insert before
 * every rune and at the end) is spelled out, so the CEL does not depend on that corner of the engine.
 */
export function goReplace(s: Frag, old: Frag, repl: Frag, n: string | undefined, cx: Cx): Frag {
  const count = n === undefined ? '' : `, ${n}`;
  const plain = frag(`${op(s)}.replace(${old.cel}, ${repl.cel}${count})`, 'string', { atom: true });
  const known = litString(old);
  if (known !== undefined && known !== '') return plain;
  const i = cx.names.fresh('i');
  const r = cx.names.fresh('r');
  const chars = `${op(s)}.split("")`;
  const limit = n ?? '-1';
  const empty = frag(
    `${limit} == 0 ? ${s.cel} : ${chars}.transformList(${i}, ${r}, ${limit} < 0 || ${i} < ${limit} ? ${repl.cel} + ${r} : ${r}).join("") + (${limit} < 0 || ${limit} > size(${s.cel}) ? ${repl.cel} : "")`,
    'string',
  );
  return cond(`${old.cel} == ""`, empty, plain);
}

/** Go strings.Trim(s, cutset): the code points from the first to the last one not in the cutset. */
function trim(s: Frag, cutset: Frag, cx: Cx): Frag {
  const cut = cx.names.fresh('cut');
  const ks = cx.names.fresh('ks');
  const i = cx.names.fresh('i');
  const c = cx.names.fresh('c');
  return frag(
    `[${op(cutset)}.split("")].map(${cut}, [${op(s)}.split("").transformList(${i}, ${c}, !(${c} in ${cut}), ${i})].map(${ks}, ` +
      `size(${ks}) == 0 ? "" : ${op(s)}.substring(${ks}[0], ${ks}[size(${ks}) - 1] + 1))[0])[0]`,
    'string',
    { atom: true },
  );
}

export const STRINGS: FnDef[] = [
  {
    name: 'compare',
    ...both(exact('string < and == (both byte-wise, as strings.Compare)')),
    emit: ([a, b]) => frag(`${op(a!)} < ${op(b!)} ? -1 : ${op(a!)} == ${op(b!)} ? 0 : 1`, 'int'),
  },
  {
    name: 'equal_fold',
    ...both(assume('lowerAscii() equality', 'both strings are ASCII (Go folds Unicode case; the CEL fails on non-ASCII text)')),
    emit: ([a, b], { cx }) => {
      cx.notes.add('equal_fold() is compared with lowerAscii(): the CEL fails on non-ASCII text, where Go folds Unicode case');
      return cond(`${ascii(a!)} && ${ascii(b!)}`, frag(`${op(a!)}.lowerAscii() == ${op(b!)}.lowerAscii()`, 'bool'), fail('equal_fold() of non-ASCII text'));
    },
  },
  {
    name: 'replace',
    ...both(exact('strings ext replace(old, new, n) (strings.Replace; n truncated to an int)')),
    emit: ([s, old, repl, n], { cx }) => goReplace(s!, old!, repl!, `int(${n!.cel})`, cx),
  },
  {
    name: 'replace_all',
    nullFails: true,
    ...both(exact('strings ext replace(old, new) (strings.Replace with n = -1)')),
    emit: ([s, old, repl], { cx }) => goReplace(s!, old!, repl!, undefined, cx),
  },
  {
    name: 'to_upper',
    nullFails: true,
    ...both(assume('upperAscii()', 'the text is ASCII (Go maps every Unicode letter; the CEL fails on non-ASCII text)')),
    emit: ([s], { cx }) => {
      cx.notes.add('to_upper()/to_lower() use upperAscii()/lowerAscii(): the CEL fails on non-ASCII text, where Go maps every Unicode letter');
      return cond(ascii(s!), frag(`${op(s!)}.upperAscii()`, 'string', { atom: true }), fail('to_upper() of non-ASCII text'));
    },
  },
  {
    name: 'to_lower',
    nullFails: true,
    ...both(assume('lowerAscii()', 'the text is ASCII (Go maps every Unicode letter; the CEL fails on non-ASCII text)')),
    emit: ([s], { cx }) => {
      cx.notes.add('to_upper()/to_lower() use upperAscii()/lowerAscii(): the CEL fails on non-ASCII text, where Go maps every Unicode letter');
      return cond(ascii(s!), frag(`${op(s!)}.lowerAscii()`, 'string', { atom: true }), fail('to_lower() of non-ASCII text'));
    },
  },
  {
    name: 'trim',
    ...both(exact('substring() between the first and last code points not in the cutset (strings.Trim; CEL trim() only trims whitespace)')),
    emit: ([s, cutset], { cx }) => trim(s!, cutset!, cx),
  },
  {
    name: 'trim_prefix',
    nullFails: true,
    ...both(exact('startsWith() then substring()')),
    emit: ([s, p]) => frag(`${op(s!)}.startsWith(${p!.cel}) ? ${op(s!)}.substring(size(${p!.cel})) : ${s!.cel}`, 'string'),
  },
  {
    name: 'split',
    nullFails: true,
    ...both(exact('strings ext split() (strings.Split; an empty separator splits into runes)')),
    emit: ([s, sep]) => {
      // strings.Split with a separator that is not "" returns at least one string.
      const sepText = litString(sep!);
      // Splitting a path again costs little: pure, so it can be read twice (`l[size(l) - 1]`).
      const pure = (s!.simple || s!.pure === true) && (sep!.simple || sep!.pure === true);
      return tfrag(`${op(s!)}.split(${sep!.cel})`, T.list(T.string, sepText !== undefined && sepText !== ''), { atom: true, pure, err: s!.err || sep!.err });
    },
  },
  {
    name: 'truncate',
    ...both(exact('substring(0, n) when longer than n code points (n truncated, negative as 0)')),
    emit: ([s, n]) => frag(`${op(n!)} <= 0 ? "" : size(${s!.cel}) <= ${op(n!)} ? ${s!.cel} : ${op(s!)}.substring(0, int(${n!.cel}))`, 'string'),
  },
  {
    name: 'base64_encode',
    map: cannot('the Kubernetes CEL environment has no base64 encoder (no ext.Encoders)'),
    mpol: exact('base64.encode(bytes(s)) (ext.Encoders, standard padded alphabet)'),
    emit: ([s]) => frag(`base64.encode(bytes(${s!.cel}))`, 'string', { atom: true }),
  },
  {
    name: 'base64_decode',
    map: cannot('the Kubernetes CEL environment has no base64 decoder (no ext.Encoders)'),
    mpol: assume(
      'string(base64.decode(s)) after dropping CR/LF, padded input only (cel-go also accepts unpadded input, Go StdEncoding does not)',
      'the decoded bytes are UTF-8 (Kyverno keeps invalid bytes, which JSON turns into U+FFFD; CEL string() fails)',
    ),
    emit: ([s], { cx }) => {
      cx.notes.add('base64_decode() of bytes that are not UTF-8 gives text in Kyverno; the CEL string() conversion fails');
      const t = `${op(s!)}.replace("\\r", "").replace("\\n", "")`;
      return cond(`size(${t}) % 4 == 0`, frag(`string(base64.decode(${t}))`, 'string', { atom: true, err: true }), fail('illegal base64 data'));
    },
  },
  { name: 'path_canonicalize', ...both(yet('filepath.Join cleaning (dot segments, repeated slashes) needs a loop over the segments')) },
  {
    name: 'to_boolean',
    ...both(exact('lowerAscii() compared with "true"/"false" (no non-ASCII rune lowercases to those letters), else an error')),
    emit: ([s]) => {
      const l = `${op(s!)}.lowerAscii()`;
      return cond(`${l} == "true"`, frag('true', 'bool'), cond(`${l} == "false"`, frag('false', 'bool'), fail("to_boolean: lowercase argument must be 'true' or 'false'")));
    },
  },
  {
    name: 'sha256',
    map: cannot('the Kubernetes CEL environment has no hash functions'),
    mpol: exact('sha256(s) of Kyverno\'s hash library: the hex digest of the UTF-8 bytes in both'),
    emit: ([s]) => frag(`sha256(${s!.cel})`, 'string', { atom: true }),
  },
  {
    name: 'sha1',
    map: cannot('the Kubernetes CEL environment has no hash functions'),
    mpol: exact('sha1(s) of Kyverno\'s hash library: the hex digest of the UTF-8 bytes in both'),
    emit: ([s]) => frag(`sha1(${s!.cel})`, 'string', { atom: true }),
  },
  {
    name: 'md5',
    map: cannot('the Kubernetes CEL environment has no hash functions'),
    mpol: exact('md5(s) of Kyverno\'s hash library: the hex digest of the UTF-8 bytes in both'),
    emit: ([s]) => frag(`md5(${s!.cel})`, 'string', { atom: true }),
  },
];
