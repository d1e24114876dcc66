/**
 * fast-check arbitraries for the CEL differential property (differential.ts): random, mostly well-typed
 * expressions over the part of the standard library that both transmute and @bufbuild/cel implement, and
 * random data bound to the variable `x`.
 *
 * The grammar is type-directed: `expr(t, depth)` yields an expression of CEL type `t` (or one that fails at
 * run time: overflow, division by zero, a missing key, a wrong dynamic type through `x`), so most inputs
 * exercise evaluation rather than stopping at "no such overload". Deliberate restrictions, each because
 * the oracle deviates from cel-spec / cel-go on that shape (so a difference there says nothing about ours):
 *
 * - Where @bufbuild/cel's conversions and uint division depart from cel-go, differential.ts replaces those
 *   overloads with cel-go's behaviour in the oracle rather than restricting the data.
 * - Map literals never repeat a key, even across numeric types: cel-spec (conformance
 *   `map_value_repeat_key_heterogeneous`, `{0: 1, 0u: 2}`) makes that an error; @bufbuild/cel builds the map.
 * - Comprehensions that produce a list (`map`, `filter`) range over lists only: map iteration order is
 *   unspecified in CEL, so the order of such a list is not comparable.
 * - Regular expressions come from a small pool whose meaning is the same in every RE2 port, and `matches` is
 *   called as a method only: @bufbuild/cel lacks the global overload `matches(string, string)`.
 * - Map keys for `in` and indexing, and list indexes, are never read from `x` (see mapKey).
 * - Map values are never null: @bufbuild/cel's map `has` is `get(key) != undefined`, so `has({"a": null}.a)`
 *   and `"a" in {"a": null}` are false there (cel-go: true, the key is present).
 * - `has(e.f)` is only asked of maps: on other values cel-spec makes it an error (as transmute does) while
 *   @bufbuild/cel (and cel-go without EnableErrorOnBadPresenceTest) answer false.
 * - A unary minus is never written before a negative literal or a parenthesised negation: @bufbuild/cel reads
 *   `--9223372036854775808` as the out-of-range int 9223372036854775808, and folds `-(-e)` and `!(!e)` into `e`
 *   where cel-go's parser folds only `--e` and `!!e` (parser.go VisitNegate, VisitLogicalNot), so `-(-x)` of a
 *   map is a value there. (`--e` itself is generated: both fold it.)
 */
import fc from 'fast-check';

export type CelTy = 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'bool' | 'null' | 'list' | 'map';

const TYPES: readonly CelTy[] = ['int', 'uint', 'double', 'string', 'bytes', 'bool', 'null', 'list', 'map'];
const SCALARS: readonly CelTy[] = ['int', 'uint', 'double', 'string', 'bytes', 'bool'];
const NUMERIC: readonly CelTy[] = ['int', 'uint', 'double'];

// ------------------------------------------------------------------------------------------ data model
/** A CEL value with its type kept apart from its JavaScript representation (each engine has its own). */
export type CelVal =
  | { t: 'int' | 'uint'; v: bigint }
  | { t: 'double'; v: number }
  | { t: 'string'; v: string }
  | { t: 'bytes'; v: Uint8Array }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'list'; v: CelVal[] }
  | { t: 'map'; v: [string, CelVal][] };

const INT_EDGES = [0n, 1n, -1n, 2n, 7n, -13n, 100n, 2n ** 31n, 2n ** 53n + 1n, 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n), -(2n ** 63n) + 1n];
const UINT_EDGES = [0n, 1n, 2n, 7n, 2n ** 32n, 2n ** 63n, 2n ** 63n - 1n, 2n ** 64n - 1n, 2n ** 64n - 2n];
const DOUBLE_EDGES = [0, -0, 0.5, 1, -1, 1.5, -3.25, 0.1, 1e-5, 1e300, -1e300, 2 ** 53, 2 ** 63, 2 ** 64, 9.2e18, -9.3e18, 1.8e19, 5e-324];

/** Characters for strings: ASCII with the quote and escape characters, Latin-1, BMP and an astral one. */
const CHARS = [...'ab AZ09_-.:/"\'\\`?\t\n', 'é', 'ß', '✓', '中', '😀'];

const int64 = fc.oneof(fc.constantFrom(...INT_EDGES), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -20n, max: 20n }));
const uint64 = fc.oneof(fc.constantFrom(...UINT_EDGES), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 20n }));
const double = fc.oneof(fc.constantFrom(...DOUBLE_EDGES), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -50, max: 50 }).map((n) => n / 4));
const text = fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 6 });
const bytes = fc.uint8Array({ maxLength: 5 });
const KEYS = ['a', 'b', 'c', 'k', 'z'];

/** Random data for a variable: every CEL type a JSON-ish object can hold, nested a little. */
export const celValue: fc.Arbitrary<CelVal> = fc.letrec<{ v: CelVal }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    int64.map((v): CelVal => ({ t: 'int', v })),
    uint64.map((v): CelVal => ({ t: 'uint', v })),
    double.map((v): CelVal => ({ t: 'double', v })),
    text.map((v): CelVal => ({ t: 'string', v })),
    bytes.map((v): CelVal => ({ t: 'bytes', v })),
    fc.boolean().map((v): CelVal => ({ t: 'bool', v })),
    fc.constant<CelVal>({ t: 'null' }),
    fc.array(tie('v'), { maxLength: 4 }).map((v): CelVal => ({ t: 'list', v })),
    fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('v')), { maxLength: 4, selector: (e) => e[0] }).map((v): CelVal => ({ t: 'map', v: v.filter(([, x]) => x.t !== 'null') })),
  ),
})).v;

const mapData: fc.Arbitrary<CelVal> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), celValue), { maxLength: 3, selector: (e) => e[0] })
  .map((v): CelVal => ({ t: 'map', v: v.filter(([, x]) => x.t !== 'null') }));

/** The variable bindings: `x` is always a map and `x.m` one too, so `x.a`, `has(x.m.b)` and `x.l[0]` mean something. */
export const celBindings: fc.Arbitrary<CelVal> = fc
  .tuple(fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS, 'l'), celValue), { maxLength: 5, selector: (e) => e[0] }), mapData)
  .map(([v, m]): CelVal => ({ t: 'map', v: [...v.filter(([, x]) => x.t !== 'null'), ['m', m]] }));

// ------------------------------------------------------------------------------------------ literals
/** A CEL string literal of `s` in one of the quoting styles (escapes exercised on the way). */
function quote(s: string, style: number): string {
  const escaped = Array.from(s, (ch) => {
    if (ch === '\\') return '\\\\';
    if (ch === '"') return '\\"';
    if (ch === "'") return "\\'";
    if (ch === '\n') return '\\n';
    if (ch === '\t') return style === 1 ? '\\x09' : '\\t';
    const cp = ch.codePointAt(0)!;
    if (cp > 0xffff) return style === 2 ? `\\U${cp.toString(16).padStart(8, '0')}` : ch;
    if (cp > 0x7f && style === 2) return `\\u${cp.toString(16).padStart(4, '0')}`;
    if (ch === 'a' && style === 1) return '\\141';
    return ch;
  }).join('');
  return style === 3 ? `'${escaped}'` : `"${escaped}"`;
}

function bytesLit(b: Uint8Array, style: number): string {
  const body = Array.from(b, (x) => (style === 0 && x >= 0x61 && x <= 0x7a ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, '0')}`)).join('');
  return style === 1 ? `b'${body}'` : `b"${body}"`;
}

function doubleLit(x: number): string {
  // CEL has no literal for NaN or infinities; a double literal needs a '.' or an exponent.
  const s = String(Math.abs(x));
  const lit = /[.e]/.test(s) ? s.replace('e+', 'e') : `${s}.0`;
  return Object.is(x, -0) || x < 0 ? `-${lit}` : lit;
}

function intLit(v: bigint, hex: boolean): string {
  if (hex && v >= 0n) return `0x${v.toString(16)}`;
  return v.toString();
}

const intLiteral = fc.tuple(int64, fc.boolean()).map(([v, hex]) => intLit(v, hex));
const uintLiteral = fc.tuple(uint64, fc.boolean()).map(([v, hex]) => `${hex ? `0x${v.toString(16)}` : v.toString()}u`);
const doubleLiteral = fc.oneof(double.map(doubleLit), fc.constantFrom('0.0/0.0', '1.0/0.0', '-1.0/0.0', '.5', '1e3', '2.5e-3'));
const stringLiteral = fc.oneof(
  fc.tuple(text, fc.nat(3)).map(([s, style]) => quote(s, style)),
  fc.constantFrom('r"\\d+"', "r'a\\nb'", '"""a"b"""', "'''x'''", '"\\u00e9"', '"\\101\\x42"', '""'),
);
const bytesLiteral = fc.tuple(bytes, fc.nat(1)).map(([b, style]) => bytesLit(b, style));
/** Numeric strings, and strings strconv refuses where Number() / BigInt() accept them. */
const decimalString = fc.oneof(
  int64.map((v) => `"${v}"`),
  fc.constantFrom('" 5"', '"+5"', '"0x10"', '""', '"1_000"', '"nan"', '"NaN"', '"+nan"', '"-Inf"', '"infinity"', '"1e400"', '"1e-400"', '"5."', '".5"', '"1e"'),
  fc.integer({ min: -50, max: 50 }).map((n) => `"${n / 4}"`),
  fc.constantFrom('"1e3"', '"-2.5e-3"', '"1.5"', '"18446744073709551615"', '"9223372036854775808"', '"-0"'),
);
const REGEXES = ['"^a"', '"b+"', '"^$"', '"[a-c]{2}"', '"a|z"', '"^\\\\d+$"', '"é"', '"(?i)AB"', '"."', '"a.*c$"', '"["'];

// ------------------------------------------------------------------------------------------ expressions
const VAR_PATHS = ['x.a', 'x.b', 'x.c', 'x["k"]', 'x.z', 'x.l[0]', 'x.l[1]', 'x.m.a', 'x.m["b"]', 'x.l', 'x.m', 'x'];
const variable = fc.constantFrom(...VAR_PATHS);

const memo = new Map<string, fc.Arbitrary<string>>();

/** An expression of type `t` (give or take a run-time error), at most `depth` levels of operators deep. */
export function celExpr(t: CelTy, depth: number): fc.Arbitrary<string> {
  const key = `${t}/${depth}`;
  let a = memo.get(key);
  if (a === undefined) {
    a = build(t, depth);
    memo.set(key, a);
  }
  return a;
}

function leaf(t: CelTy): fc.Arbitrary<string> {
  switch (t) {
    case 'int':
      return intLiteral;
    case 'uint':
      return uintLiteral;
    case 'double':
      return doubleLiteral;
    case 'string':
      return stringLiteral;
    case 'bytes':
      return bytesLiteral;
    case 'bool':
      return fc.constantFrom('true', 'false');
    case 'null':
      return fc.constant('null');
    case 'list':
      return fc.constantFrom('[]', '[1, 2, 3]', '["a", "b"]', '[1, 2.0, 3u]', '[null]', '[[1], [2]]');
    case 'map':
      return fc.constantFrom('{}', '{"a": 1, "b": 2}', '{1: "x", 2u: "y", true: "z"}', '{"a": {"b": 1}}');
  }
}

function build(t: CelTy, depth: number): fc.Arbitrary<string> {
  if (depth <= 0) return fc.oneof({ weight: 6, arbitrary: leaf(t) }, { weight: 1, arbitrary: variable });
  const sub = (u: CelTy) => celExpr(u, depth - 1);
  const anyTy = fc.constantFrom(...TYPES).chain((u) => sub(u));
  const scalar = fc.constantFrom(...SCALARS).chain((u) => sub(u));
  const common: fc.Arbitrary<string>[] = [
    fc.tuple(sub('bool'), sub(t), sub(t)).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(sub(t), sub(t)).map(([a, b]) => `[${a}, ${b}][${'0'}]`),
    sub(t).map((a) => `{"k": ${a}}.k`),
    sub(t).map((a) => `dyn(${a})`),
    variable,
  ];
  const forms: fc.Arbitrary<string>[] = [...specific(t, sub, anyTy, scalar)];
  return fc.oneof({ weight: 3, arbitrary: leaf(t) }, { weight: 6, arbitrary: fc.oneof(...forms) }, { weight: 2, arbitrary: fc.oneof(...common) });
}

type Sub = (t: CelTy) => fc.Arbitrary<string>;

/** A map literal with distinct keys (across numeric types too) and no null values (see the header). */
function mapLiteral(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom('"a"', '"b"', '"k"', '0', '1', '-1', '2u', '3u', 'true', 'false'), values), { maxLength: 3, selector: (e) => e[0] })
    .map((es) => `{${es.map(([k, v]) => `${k}: ${v}`).join(', ')}}`);
}

const negate = (a: string): string => (a.startsWith('-') ? `-[${a}][0]` : `-${a}`);

/**
 * Keys for `in` and indexing of maps, and indexes of lists: values of a key type, never read from `x`. On a
 * bytes key or a bool index @bufbuild/cel differs from cel-go (`b"a" in {"a": 1}` is an overload error there,
 * `[1, 2][true]` is 2), and CEL as Kubernetes compiles it rejects both when type-checking.
 */
const mapKey = () => fc.oneof(leaf('int'), leaf('uint'), leaf('string'), leaf('bool'), fc.constantFrom('"a"', '"k"', '1', '1u', '1.0', '2', '1.5', '-1'));
const listIndex = () => fc.oneof(fc.constantFrom('0', '1', '2', '-1', '0u', '1u', '1.0', '0.5', '3'), leaf('int'));

function binary(sub: Sub, a: CelTy, ops: readonly string[], b: CelTy = a): fc.Arbitrary<string> {
  return fc.tuple(sub(a), fc.constantFrom(...ops), sub(b)).map(([l, op, r]) => `(${l} ${op} ${r})`);
}

function specific(t: CelTy, sub: Sub, anyTy: fc.Arbitrary<string>, scalar: fc.Arbitrary<string>): fc.Arbitrary<string>[] {
  const list = sub('list');
  const nonNull = fc.constantFrom(...TYPES.filter((u) => u !== 'null')).chain((u) => sub(u));
  const iterVar = fc.constantFrom('v', 'w');
  switch (t) {
    case 'int':
      return [
        binary(sub, 'int', ['+', '-', '*', '/', '%']),
        sub('int').map(negate),
        sub('int').map((a) => (a.startsWith('-') ? a : `--${a}`)),
        fc.oneof(sub('string'), sub('bytes'), sub('list'), sub('map')).map((a) => `size(${a})`),
        sub('string').map((a) => `${a}.size()`),
        fc.oneof(sub('uint'), sub('double'), sub('int'), decimalString).map((a) => `int(${a})`),
      ];
    case 'uint':
      return [binary(sub, 'uint', ['+', '-', '*', '/', '%']), fc.oneof(sub('int'), sub('double'), sub('uint'), decimalString).map((a) => `uint(${a})`)];
    case 'double':
      return [
        binary(sub, 'double', ['+', '-', '*', '/']),
        sub('double').map(negate),
        fc.oneof(sub('int'), sub('uint'), sub('double'), decimalString).map((a) => `double(${a})`),
      ];
    case 'string':
      return [
        binary(sub, 'string', ['+']),
        fc.oneof(sub('int'), sub('uint'), sub('double'), sub('bool'), sub('string'), sub('bytes')).map((a) => `string(${a})`),
      ];
    case 'bytes':
      return [binary(sub, 'bytes', ['+']), fc.oneof(sub('string'), sub('bytes')).map((a) => `bytes(${a})`)];
    case 'bool':
      return [
        fc.constantFrom(...SCALARS, 'null', 'list', 'map').chain((u) => binary(sub, u, ['==', '!='])),
        fc.constantFrom(...SCALARS).chain((u) => binary(sub, u, ['<', '<=', '>', '>='])),
        // Numbers compare across int, uint and double (cel-spec "Heterogeneous numeric comparison").
        fc.tuple(fc.constantFrom(...NUMERIC), fc.constantFrom(...NUMERIC)).chain(([a, b]) => binary(sub, a, ['==', '!=', '<', '<=', '>', '>='], b)),
        binary(sub, 'bool', ['&&', '||']),
        // `!-x` is a syntax error in cel-go's grammar (unary: `!`+ member | `-`+ member) that @bufbuild/cel accepts.
        sub('bool').map((a) => (a.startsWith('-') ? `!(${a})` : `!${a}`)),
        fc.tuple(mapKey(), list).map(([a, l]) => `${a} in ${l}`),
        // bytes only against a list literal: `list` may turn out to be a map read from `x` (see mapKey).
        fc.tuple(sub('bytes'), fc.array(sub('bytes'), { maxLength: 3 })).map(([a, l]) => `${a} in [${l.join(', ')}]`),
        fc.tuple(mapKey(), sub('map')).map(([a, m]) => `${a} in ${m}`),
        fc.tuple(sub('string'), fc.constantFrom('startsWith', 'endsWith', 'contains'), sub('string')).map(([s, f, a]) => `${s}.${f}(${a})`),
        fc.tuple(sub('string'), fc.constantFrom(...REGEXES)).map(([s, re]) => `${s}.matches(${re})`),
        fc.tuple(fc.oneof(list, sub('map')), fc.constantFrom('all', 'exists', 'exists_one'), iterVar, sub('bool'), fc.constantFrom('==', '<', '>=')).map(
          ([r, m, v, b, op]) => `${r}.${m}(${v}, ${v} ${op} 1 || ${b})`,
        ),
        fc.tuple(fc.oneof(list, sub('map')), fc.constantFrom('all', 'exists', 'exists_one'), iterVar).map(([r, m, v]) => `${r}.${m}(${v}, 10 / ${v} > 2)`),
        fc.tuple(fc.oneof(mapLiteral(nonNull), fc.constantFrom('x', 'x.m')), fc.constantFrom('a', 'b', 'k', 'z')).map(([m, f]) => `has(${m}.${f})`),
        fc.constantFrom('has(x.a)', 'has(x.l)', 'has(x.m.a)', 'has(x.m.b)', 'has(x.z)'),
      ];
    case 'null':
      return [fc.constant('null')];
    case 'list':
      return [
        fc.array(anyTy, { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
        binary(sub, 'list', ['+']),
        fc.tuple(list, iterVar, fc.constantFrom('*', '+', '-')).map(([l, v, op]) => `${l}.map(${v}, ${v} ${op} 2)`),
        fc.tuple(list, iterVar).map(([l, v]) => `${l}.filter(${v}, ${v} > 1)`),
        fc.tuple(list, iterVar, sub('int')).map(([l, v, n]) => `${l}.map(${v}, ${v} != ${n}, [${v}])`),
        fc.tuple(list, listIndex()).map(([l, i]) => `${l}[${i}]`),
      ];
    case 'map':
      return [
        mapLiteral(nonNull),
        // No bool key: `sub('map')` may be a list read from `x`, and `[1, 2][true]` is 2 in @bufbuild/cel.
        fc.tuple(sub('map'), mapKey().filter((k) => k !== 'true' && k !== 'false')).map(([m, k]) => `${m}[${k}]`),
      ];
  }
}

/** A top-level expression of a random type. */
export const celExpression: fc.Arbitrary<string> = fc.constantFrom(...TYPES, 'bool', 'int', 'string').chain((t) => celExpr(t as CelTy, 3));
