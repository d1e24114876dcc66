/**
 * fast-check arbitraries for the JMESPath differential property (differential.ts): random expressions over
 * the standard functions, projections, filters, slices, pipes, multiselects and literals, and random JSON
 * data to search. Field names come from a small pool the data also uses, so paths usually find something.
 *
 * Restrictions, each because the two evaluators legitimately differ on that shape:
 * - Strings hold no characters outside the Basic Multilingual Plane and nothing in U+E000..U+FFFF: Kyverno's
 *   go-jmespath counts runes (`length`), reverses runes and orders strings byte-wise in UTF-8, while
 *   jmespath.js counts, reverses and compares UTF-16 code units; the two orders agree below U+D800 only.
 * - `sum` only gets non-empty arrays of numbers: Kyverno replaces it with its own (numbers, quantities,
 *   durations; kyverno.md §2), so `sum(['1Ki'])` means something in Kyverno and is a type error in JMESPath,
 *   and `sum([])` is an error in Kyverno ("at least one element") and 0 in JMESPath.
 * - Ordering comparisons (`<`, `<=`, `>`, `>=`) only get numbers: go-jmespath (interpreter.go ASTComparator)
 *   and the JMESPath spec give null for any other operand, jmespath.js applies JavaScript's `<` (coercing
 *   strings and arrays, throwing on objects).
 * - `min_by` and `max_by` get two elements and a number key: on an empty array jmespath.js returns undefined
 *   (which `||` then keeps) where go-jmespath returns nil; on one element go-jmespath returns it without
 *   evaluating the key (functions.go jpfMinBy); and jmespath.js gives null for string keys, which the spec
 *   and go-jmespath order.
 * - `avg` is not generated: on `[]` go-jmespath divides 0 by 0 (NaN) where ours returns null; an open
 *   divergence of ours (see the closing report of the fuzzing work), and jmespath.js gives NaN as Go does.
 * - Raw strings hold no `'`: jmespath.js unescapes only the first `\'` of one (src/jmespath/parse.ts).
 * - `to_string` only gets arrays of numbers, booleans and nulls: Go's encoding/json writes object keys
 *   sorted and escapes `&`, `<`, `>` as \u0026..., JSON.stringify keeps key order and those characters.
 * - `max` and `min` only get numbers: jmespath.js orders strings with localeCompare.
 * - `merge` only gets objects: jmespath.js does not type-check its variadic arguments.
 * - `sort` only gets strings: jmespath.js calls Array.prototype.sort with no comparator, which orders numbers
 *   as strings (`[-1, -2]` stays as it is, `[10, 9]` too); go-jmespath orders them numerically.
 * - `starts_with` is not generated: jmespath.js tests `lastIndexOf(prefix) === 0`, false whenever the prefix
 *   occurs again later (`starts_with('array', 'a')`) or is empty, where Go's strings.HasPrefix is true.
 * - `contains` only searches for strings: jmespath.js uses `indexOf`, so `contains('null', null)` and
 *   `contains('a1', \`1\`)` are true (JavaScript converts the search to a string) and an object is found in an
 *   array only by identity; go-jmespath (functions.go jpfContains) gives false and compares with DeepEqual.
 * - `to_number` only gets numbers, non-strings and a few numeric strings: jmespath.js converts strings with
 *   JavaScript's `+` (`''` → 0, `' 9'` → 9, `'0x10'` → 16), go-jmespath with strconv.ParseFloat (null for each).
 * - Slices only get arrays (`to_array(e)[1:2]`): go-jmespath also slices strings, by runes; jmespath.js and
 *   the spec give null.
 */
import fc from 'fast-check';

const NAMES = ['a', 'b', 'c', 'foo', 'bar', 'n', 's'];
/** BMP characters below the surrogates (see the header), with JSON and JMESPath quoting characters. */
const CHARS = [...'abcAZ09 _-.:/"\'\\`|*?@&[]{}', 'é', 'ß', '✓', '中', '\u0000', '\n'];

const text = fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 5 });
const number = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.constantFrom(0, -0, 0.5, -1.5, 2.25, 1e21, 1e-7, 123456789, 2 ** 53, -(2 ** 53) - 2, 1e300, 0.1),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Random JSON: every JSON type, nested a little, objects keyed from the name pool. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.constantFrom(...NAMES),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('v'), { maxKeys: 4 }),
    fc.array(fc.dictionary(fc.constantFrom(...NAMES), tie('v'), { maxKeys: 3 }), { maxLength: 3 }),
    fc.array(number, { maxLength: 4 }),
    fc.array(text, { maxLength: 4 }),
  ),
})).v;

/** The data searched: an object (most expressions start with a field), sometimes any JSON. */
export const jmesData: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...NAMES), jsonValue, { maxKeys: 6 }) },
  { weight: 1, arbitrary: jsonValue },
);

// ------------------------------------------------------------------------------------------ expressions
const identifier = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('"foo"', '"a"', '"with space"', '"\\u0061"', 'missing') },
);

function jsonLiteral(v: unknown): string {
  // Inside backticks a backtick is escaped as \`.
  return `\`${JSON.stringify(v).replaceAll('`', '\\`')}\``;
}

/** A raw string literal; no `'` inside: jmespath.js unescapes only the first `\'` (parse.ts fixes ours to Go's). */
function rawString(s: string): string {
  return `'${s.replaceAll("'", '').replaceAll('\\', '\\\\')}'`;
}

const literal = fc.oneof(
  jsonValue.map(jsonLiteral),
  text.map(rawString),
  fc.constantFrom('`null`', '`true`', '`[]`', '`{}`', '`"a"`', '`1`', '`-1`', '`[1, 2, 3]`', '`["b", "a"]`', "'a'", "''"),
);

const sliceIndex = fc.option(fc.integer({ min: -4, max: 4 }), { nil: undefined }).map((n) => (n === undefined ? '' : String(n)));
const slice = fc
  .tuple(sliceIndex, sliceIndex, fc.option(fc.constantFrom(1, 2, -1, -2), { nil: undefined }))
  .map(([a, b, c]) => `[${a}:${b}${c === undefined ? '' : `:${c}`}]`);
const index = fc.integer({ min: -4, max: 4 }).map((n) => `[${n}]`);

const literalObject = fc.dictionary(fc.constantFrom(...NAMES), jsonValue, { maxKeys: 3 }).map(jsonLiteral);

const COMPARATORS = ['==', '!=', '<', '<=', '>', '>='];

/** Standard functions by arity; expression-reference arguments are written `&expr`. */
const UNARY = ['abs', 'ceil', 'floor', 'keys', 'length', 'not_null', 'reverse', 'to_array', 'type', 'values'];
/** Strings both `to_number`s read alike (see the header); anything else goes through asNumber. */
const NUMERIC_STRINGS = ["'12'", "'-1.5'", "'1e3'", "'abc'", "'0.25'", '`"7"`'];
const BINARY = ['ends_with', 'join', 'not_null'];

const memo = new Map<number, fc.Arbitrary<string>>();

/** A JMESPath expression at most `depth` levels of operators deep. */
export function jmesExpr(depth: number): fc.Arbitrary<string> {
  let a = memo.get(depth);
  if (a === undefined) {
    a = build(depth);
    memo.set(depth, a);
  }
  return a;
}

function build(depth: number): fc.Arbitrary<string> {
  const leaf = fc.oneof(
    { weight: 5, arbitrary: identifier },
    { weight: 2, arbitrary: literal },
    { weight: 1, arbitrary: fc.constantFrom('@', '*', '[]', '[*]', '*.a', 'foo[*].a', 'a.b', 'foo[0]', 'n[]') },
  );
  if (depth <= 0) return leaf;
  const e = jmesExpr(depth - 1);
  const numbers = fc.oneof(e, fc.constantFrom('n', 'n[]', '`[1, 2.5, -3]`', '`[]`', '[a, b]'));
  const forms = [
    fc.tuple(e, identifier).map(([l, r]) => `${l}.${r}`),
    fc.tuple(e, index).map(([l, r]) => `${l}${r}`),
    fc.tuple(e, slice).map(([l, r]) => `to_array(${l})${r}`),
    fc.tuple(e, e).map(([l, r]) => `${l}[*].${wrapRight(r)}`),
    fc.tuple(e, e).map(([l, r]) => `${l}.*.${wrapRight(r)}`),
    fc.tuple(e, e).map(([l, r]) => `${l}[].${wrapRight(r)}`),
    e.map((l) => `${l}[]`),
    fc.tuple(e, e, fc.constantFrom(...COMPARATORS), e).map(([l, a, op, b]) => `${l}[?${compare(a, op, b)}]`),
    fc.tuple(e, e).map(([l, c]) => `${l}[?${c}]`),
    fc.tuple(e, e).map(([l, r]) => `${l} | ${r}`),
    fc.tuple(e, e).map(([l, r]) => `(${l} || ${r})`),
    fc.tuple(e, e).map(([l, r]) => `(${l} && ${r})`),
    e.map((l) => `!${l}`),
    fc.tuple(e, fc.constantFrom(...COMPARATORS), e).map(([l, op, r]) => `(${compare(l, op, r)})`),
    fc.array(e, { minLength: 1, maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), e), { minLength: 1, maxLength: 3, selector: (p) => p[0] }).map(
      (ps) => `{${ps.map(([k, v]) => `${k}: ${v}`).join(', ')}}`,
    ),
    fc.tuple(fc.constantFrom(...UNARY), e).map(([f, a]) => `${f}(${a})`),
    fc.tuple(fc.constantFrom(...BINARY), e, e).map(([f, a, b]) => `${f}(${a}, ${b})`),
    fc.tuple(e, fc.oneof(text.map(rawString), fc.constantFrom(...NAMES).map((n) => `'${n}'`))).map(([a, b]) => `contains(${a}, ${b})`),
    fc.tuple(e, e).map(([a, b]) => `sort_by(${a}, &${b})`),
    fc.tuple(fc.constantFrom('max_by', 'min_by'), e, e, e).map(([f, a, b, k]) => `${f}([${a}, ${b}], &${asNumber(k)})`),
    fc.oneof(fc.constantFrom(...NUMERIC_STRINGS), e.map(asNumber), literal.filter((l) => l.startsWith('`') && !l.startsWith('`"'))).map((a) => `to_number(${a})`),
    // merge's later arguments are objects: jmespath.js checks the type of the first one only.
    // `{a: v}` is null where the current node is null (a multiselect on null), hence the not_null.
    fc.array(fc.oneof(literalObject, e.map((v) => `not_null({a: ${v}}, \`{}\`)`)), { minLength: 1, maxLength: 3 }).map((args) => `merge(${args.join(', ')})`),
    fc.tuple(e, e).map(([f, a]) => `map(&${f}, ${a})`),
    numbers.map((a) => `sum([\`0\`, not_null(${a}[?type(@) == 'number'], \`[]\`)][])`),
    // to_string of objects: Go's encoding/json sorts the keys, JSON.stringify keeps their order.
    fc.tuple(e, fc.constantFrom('number', 'boolean', 'null')).map(([a, t]) => `to_string(${a}[?type(@) == '${t}'])`),
    numbers.map((a) => `${a === 'n' ? 'max' : 'min'}(${a}[?type(@) == 'number'])`),
    fc.tuple(fc.constantFrom('abs', 'ceil', 'floor'), numbers).map(([f, a]) => `${f}(${a})`),
    e.map((a) => `sort(${a}[?type(@) == 'string'])`),
  ];
  return fc.oneof({ weight: 2, arbitrary: leaf }, { weight: 5, arbitrary: fc.oneof(...forms) });
}

/** `a op b`, with both sides made numbers for an ordering operator (see the header). */
function compare(a: string, op: string, b: string): string {
  if (op === '==' || op === '!=') return `${a} ${op} ${b}`;
  return `${asNumber(a)} ${op} ${asNumber(b)}`;
}

/**
 * `x` when it is a number, else 0, without `to_number`: jmespath.js reads strings with JavaScript's `+`
 * (`''` and `' 9'` are numbers, `'0x10'` is 16) where go-jmespath uses strconv.ParseFloat (null for all three).
 * Numbers are truthy in JMESPath, so `&&`/`||` pick x or 0.
 */
function asNumber(x: string): string {
  return `(type(${x}) == 'number' && (${x}) || \`0\`)`;
}

/** The right side of a projection must be a sub-expression that can follow `.`: wrap anything else. */
function wrapRight(r: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$|^"/.test(r) ? r : `[${r}]`;
}

export const jmesExpression: fc.Arbitrary<string> = jmesExpr(3);
