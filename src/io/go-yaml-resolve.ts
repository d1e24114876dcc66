/**
 * Scalar resolution the way Kubernetes reads YAML. kubectl, the API server and the Kyverno and Gatekeeper CLIs
 * turn YAML into JSON with sigs.k8s.io/yaml `YAMLToJSON`, which decodes with its go-yaml v2 fork (YAML 1.1
 * implicit types) and then `convertToJSONableObject`. We follow that, not YAML 1.2 core, so `enabled: yes`
 * means `true` here exactly as it does for `kubectl apply` (the classic "cannot unmarshal bool into string"
 * surprise). Read from sigs.k8s.io/yaml `goyaml.v2/resolve.go` (`resolve`, `resolveTable`, `parseTimestamp`),
 * `goyaml.v2/decode.go` (`scalar`, `isMerge`) and `yaml.go` (`convertToJSONableObject`).
 */
import type { JsonScalar } from '../ir/json.js';
import { fromBase64, utf8Decode } from '../util/bytes.js';

export const YAML_TAG_PREFIX = 'tag:yaml.org,2002:';
const STR_TAG = `${YAML_TAG_PREFIX}str`;
const BINARY_TAG = `${YAML_TAG_PREFIX}binary`;
const TIMESTAMP_TAG = `${YAML_TAG_PREFIX}timestamp`;
const RESOLVABLE_TAGS = new Set(['', STR_TAG, ...['bool', 'int', 'float', 'null', 'timestamp'].map((t) => YAML_TAG_PREFIX + t)]);

/** The Go type go-yaml v2 would decode a scalar into; it decides how a map key is turned into a JSON key. */
export type GoKind = 'null' | 'bool' | 'int' | 'uint64' | 'bigint' | 'float' | 'str' | 'timestamp' | 'binary';

export interface Resolved {
  kind: GoKind;
  value: JsonScalar;
}

export type ResolveResult = Resolved | { error: string };

const FIXED = new Map<string, Resolved>();
function fixed(kind: GoKind, value: JsonScalar, words: string): void {
  for (const w of words.split(' ')) FIXED.set(w, { kind, value });
}
fixed('bool', true, 'y Y yes Yes YES true True TRUE on On ON');
fixed('bool', false, 'n N no No NO false False FALSE off Off OFF');
fixed('null', null, '~ null Null NULL');
FIXED.set('', { kind: 'null', value: null });
fixed('float', Number.NaN, '.nan .NaN .NAN');
fixed('float', Number.POSITIVE_INFINITY, '.inf .Inf .INF +.inf +.Inf +.INF');
fixed('float', Number.NEGATIVE_INFINITY, '-.inf -.Inf -.INF');

/** resolve.go `resolveTable`: the first character decides which interpretations are tried at all. */
function hintOf(s: string): 'M' | 'D' | 'S' | '.' | null {
  if (s === '') return 'M';
  const c = s[0]!;
  if (c >= '0' && c <= '9') return 'D';
  if (c === '+' || c === '-') return 'S';
  if (c === '.') return '.';
  return 'yYnNtTfFoO~'.includes(c) ? 'M' : null;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Go `strconv.ParseInt(s, 0, 64)` syntax (sign, then 0x / 0o / 0b / leading-0 octal / decimal); range is checked by the caller. */
function parseGoIntLiteral(s: string): { value: bigint; signed: boolean } | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const body = m[2]!;
  let magnitude: bigint;
  if (body.length > 1 && body[0] === '0' && /[0-7]/.test(body[1]!)) magnitude = BigInt(`0o${body.slice(1)}`);
  else if (body.length > 1 && (body[1] === 'o' || body[1] === 'O')) magnitude = BigInt(`0o${body.slice(2)}`);
  else magnitude = BigInt(body.toLowerCase());
  return { value: m[1] === '-' ? -magnitude : magnitude, signed: m[1] !== '' };
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

/** resolve.go `parseTimestamp`: YYYY-M-D, optionally with a time (T, t or space separated). Only its shape matters to us. */
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})|[ ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?)?$/;

function looksLikeTimestamp(s: string): boolean {
  if (!TIMESTAMP.test(s)) return false;
  const [y, mo, d] = s.slice(0, 10).split(/[-Tt ]/).map(Number) as [number, number, number];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** `resolve("", s)` for an untagged plain scalar. */
export function resolvePlain(s: string): Resolved {
  const hint = hintOf(s);
  if (hint === null) return { kind: 'str', value: s };
  const known = FIXED.get(s);
  if (known) return known;
  if (hint === '.') {
    if (DOT_FLOAT.test(s)) {
      const f = Number(s);
      if (Number.isFinite(f)) return { kind: 'float', value: f };
    }
    return { kind: 'str', value: s };
  }
  if (hint === 'M') return { kind: 'str', value: s };
  if (looksLikeTimestamp(s)) return { kind: 'timestamp', value: s };
  const plain = s.replace(/_/g, '');
  const int = parseGoIntLiteral(plain);
  if (int) {
    if (int.value >= INT64_MIN && int.value <= INT64_MAX) return { kind: 'int', value: Number(int.value) };
    // ParseUint accepts no sign; a failed ParseUint leaves a syntax error, so the big.Int fallback is not reached.
    if (!int.signed && int.value <= UINT64_MAX) return { kind: 'uint64', value: Number(int.value) };
  }
  if (YAML_STYLE_FLOAT.test(plain)) {
    const f = Number(plain);
    // Go's ParseFloat reports ErrRange for overflow, and resolve then falls through to a string.
    if (Number.isFinite(f)) return { kind: 'float', value: f };
  }
  // resolve.go checks ErrRange from ParseUint last: only unsigned literals beyond uint64 (hex, octal, binary, or
  // decimals too big even for a float64) become a big.Int; signed ones that overflow stay strings.
  if (int && !int.signed && int.value > UINT64_MAX) return { kind: 'bigint', value: Number(int.value) };
  return { kind: 'str', value: s };
}

function shortTag(tag: string): string {
  return tag.startsWith(YAML_TAG_PREFIX) ? `!!${tag.slice(YAML_TAG_PREFIX.length)}` : tag;
}

/**
 * decode.go `scalar`: a quoted or block scalar without a tag is a string; a plain one is resolved; an explicit
 * tag must agree with what the text resolves to (`!!int abc` is an error), except that `!!float 1` is 1.0.
 * Unknown tags (`!foo`, `!`, `!!set`) keep the text as a string; `!!binary` is base64-decoded.
 */
/** YAML 1.1 booleans that YAML 1.2 reads as strings. */
const YAML11_ONLY_BOOLS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

export function resolveScalar(source: string, plain: boolean, tag: string | undefined, yaml12 = false): ResolveResult {
  if (tag === undefined || tag === '') {
    if (!plain || (yaml12 && YAML11_ONLY_BOOLS.test(source))) return { kind: 'str', value: source };
    return resolvePlain(source);
  }
  if (tag === BINARY_TAG) return decodeBinary(source);
  if (!RESOLVABLE_TAGS.has(tag)) return { kind: 'str', value: source };
  if (tag === STR_TAG) return { kind: 'str', value: source };
  const r = tag === TIMESTAMP_TAG && looksLikeTimestamp(source) ? { kind: 'timestamp' as const, value: source } : resolvePlain(source);
  const want = tag.slice(YAML_TAG_PREFIX.length);
  if (r.kind === want) return r;
  if (want === 'int' && (r.kind === 'uint64' || r.kind === 'bigint')) return r;
  if (want === 'float' && (r.kind === 'int' || r.kind === 'uint64')) return { kind: 'float', value: r.value };
  const got = r.kind === 'uint64' || r.kind === 'bigint' ? 'int' : r.kind;
  return { error: `cannot decode !!${got} \`${source}\` as a ${shortTag(tag)}` };
}

function decodeBinary(source: string): ResolveResult {
  // Go's base64.StdEncoding skips \r and \n, and nothing else.
  const compact = source.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    return { error: '!!binary value contains invalid base64 data' };
  }
  return { kind: 'binary', value: utf8Decode(fromBase64(compact)) };
}

/**
 * yaml.go `convertToJSONableObject`: how a resolved map key becomes a JSON key. ints print in decimal, floats with
 * Go's `FormatFloat(f, 'g', -1, 32)` (32-bit precision, as upstream does), bools as true/false; null, uint64 and
 * big.Int keys are refused.
 */
export function jsonKeyOf(r: Resolved): string | { error: string } {
  switch (r.kind) {
    case 'str':
    case 'timestamp':
    case 'binary':
      return r.value as string;
    case 'int':
      return String(r.value);
    case 'bool':
      return r.value ? 'true' : 'false';
    case 'float':
      return formatGoFloat32(r.value as number);
    case 'null':
      return { error: 'unsupported map key of type <nil>' };
    case 'uint64':
      return { error: `unsupported map key of type uint64 (${String(r.value)})` };
    case 'bigint':
      return { error: `unsupported map key of type *big.Int (${String(r.value)})` };
  }
}

/** Go `strconv.FormatFloat(f, 'g', -1, 32)` with go-yaml's spellings of the infinities and NaN. */
export function formatGoFloat32(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Number.POSITIVE_INFINITY) return '.inf';
  if (f === Number.NEGATIVE_INFINITY) return '-.inf';
  const x = Math.fround(f);
  if (!Number.isFinite(x)) return x > 0 ? '.inf' : '-.inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let exp = '';
  for (let p = 1; p <= 9; p++) {
    exp = x.toExponential(p - 1);
    if (Math.fround(Number(exp)) === x) break;
  }
  const [mant, e] = exp.split('e') as [string, string];
  const negative = mant.startsWith('-');
  const digits = mant.replace(/[-.]/g, '').replace(/0+$/, '') || '0';
  const nd = digits.length;
  const dp = Number(e) + 1;
  let eprec = 6;
  if (eprec > nd && nd >= dp) eprec = nd;
  const x10 = dp - 1;
  let out: string;
  if (x10 < -4 || x10 >= eprec) {
    const ee = Math.abs(x10);
    out = `${digits[0]}${nd > 1 ? `.${digits.slice(1)}` : ''}e${x10 < 0 ? '-' : '+'}${ee < 10 ? `0${ee}` : ee}`;
  } else if (dp <= 0) {
    out = `0.${'0'.repeat(-dp)}${digits}`;
  } else if (dp >= nd) {
    out = digits + '0'.repeat(dp - nd);
  } else {
    out = `${digits.slice(0, dp)}.${digits.slice(dp)}`;
  }
  return negative ? `-${out}` : out;
}

/**
 * True when `s`, written as a plain scalar, would not read back as the same string under go-yaml v2 rules
 * (booleans like `yes`/`on`/`y`, null, numbers, timestamps, a `<<` key) or in YAML 1.2 core. go-yaml v2's encoder
 * (encode.go `stringv`) double-quotes exactly these and also the base-60 floats of YAML 1.1 (`1:20`).
 */
export function plainWouldChangeType(s: string): boolean {
  // A plain `<<` is a string as a value (resolve.go gives '<' no hint) but a merge key as a key (decode.go `isMerge`).
  if (s === '<<') return true;
  const r = resolvePlain(s);
  if (r.kind !== 'str') return true;
  if (/^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s)) return true;
  // A YAML 1.2 core reader (not Kubernetes) would read an overflowing float such as 1e400 as infinity.
  return YAML_STYLE_FLOAT.test(s);
}
