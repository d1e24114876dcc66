/**
 * The JMESPath built-ins as go-jmespath implements them (functions.go), in CEL. Arguments arrive bound and
 * type-checked (signature.ts), so each emitter only has to produce the value.
 */
import { cond, dyn, frag, isNumeric, NULL, op, tfrag, tyOf, type Frag } from './frag.js';
import { mayBeNull, stypeOf, T, type Ty } from './types.js';
import { spliceText } from './json-text.js';
import { both, exact, assume, yet, type FnDef } from './table.js';

const ORDER_NOTE =
  "keys(), values() and `*` list a map in an unspecified order in Kyverno (Go map iteration is random); the CEL lists it in the map's iteration order";

const GO_FLOAT = '^[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?$';

/** floor/ceil of a double beyond 2^52 is the value itself (every such double is integral). */
const BIG = '4.503599627370496e15';

function floorCeil(v: Frag, ceil: boolean): Frag {
  const d = v.cel;
  const t = `double(int(${d}))`;
  const adjusted = ceil
    ? `${d} < 0.0 && ${d} > -1.0 ? -0.0 : ${t} == ${d} ? ${d} : ${d} > 0.0 ? ${t} + 1.0 : ${t}`
    : `${t} == ${d} ? ${d} : ${d} < 0.0 ? ${t} - 1.0 : ${t}`;
  const dbl = `${d} >= ${BIG} || ${d} <= -${BIG} ? ${d} : (${adjusted})`;
  if (v.t === 'int') return v;
  if (v.t === 'double') return frag(dbl, 'double');
  return frag(`type(${d}) == int ? ${d} : (${dbl})`, 'dyn');
}

/** Sorting numbers or strings (all of one kind, checked by the signature). */
function sorted(l: Frag, listsExt: boolean, names: { fresh(h?: string): string }): Frag {
  const x = names.fresh('x');
  if (listsExt) {
    // Mixed ints and doubles do not sort in cel-go; as float64 (Kyverno's numbers) they do.
    const nums = `${l.cel}.map(${x}, double(${x})).sort()`;
    const strs = `${l.cel}.sort()`;
    return frag(`size(${l.cel}) == 0 || type(${l.cel}[0]) == string ? ${strs} : ${nums}`, 'list');
  }
  // Without ext.Lists sort(): place each element at its rank (elements before it that are smaller, plus
  // equal ones earlier in the list), then read the ranks back with indexOf. Stable and O(n²).
  const i = names.fresh('i');
  const y = names.fresh('y');
  const j = names.fresh('j');
  const r = names.fresh('r');
  const p = names.fresh('p');
  const ranks = `${l.cel}.transformList(${i}, ${x}, ${l.cel}.filter(${y}, ${y} < ${x}).size() + ${l.cel}.transformList(${j}, ${y}, ${j} < ${i} && ${y} == ${x}, ${y}).size())`;
  return frag(`[${ranks}].map(${r}, ${l.cel}.transformList(${p}, ${x}, ${l.cel}[${r}.indexOf(${p})]))[0]`, 'list', { atom: true });
}

export const STANDARD: FnDef[] = [
  {
    name: 'abs',
    ...both(exact('negation of negative numbers (an int stays an int; -0.0 becomes 0.0 as in math.Abs)')),
    emit: ([v]) => {
      const x = v!.cel;
      const int = `${x} < 0 ? -${x} : ${x}`;
      const dbl = `${x} < 0.0 ? -${x} : ${x} + 0.0`;
      if (v!.t === 'int') return frag(int, 'int');
      if (v!.t === 'double') return frag(dbl, 'double');
      return frag(`type(${x}) == int ? (${int}) : (${dbl})`, 'dyn');
    },
  },
  {
    name: 'avg',
    ...both(exact('sum of the doubles in order, divided by the size (null for an empty list)')),
    emit: ([l], { cx }) => {
      const x = cx.names.fresh('x');
      return cond(`size(${l!.cel}) == 0`, NULL, frag(`${l!.cel}.map(${x}, double(${x})).sum() / double(size(${l!.cel}))`, 'double'));
    },
  },
  { name: 'ceil', ...both(exact('int(x) truncation adjusted by one; integral doubles and ints unchanged')), emit: ([v]) => floorCeil(v!, true) },
  { name: 'floor', ...both(exact('int(x) truncation adjusted by one; integral doubles and ints unchanged')), emit: ([v]) => floorCeil(v!, false) },
  {
    name: 'contains',
    // On a list, `x in l` and exists() fail on a null list; on a string the test may not read it.
    nullFails: ([s]) => s!.t === 'list',
    ...both(exact('string contains() for a string subject, exists() with deep equality for a list')),
    emit: ([s, x], { cx }) => {
      const e = cx.names.fresh('e');
      const inString = x!.t === 'string' ? frag(`${op(s!)}.contains(${x!.cel})`, 'bool') : x!.t === 'dyn' ? frag(`type(${x!.cel}) == string ? ${op(s!)}.contains(${x!.cel}) : false`, 'bool') : frag('false', 'bool');
      // `x in l` where the item type is x's own scalar type (kube-apiserver type-checks both sides).
      const item = tyOf(s!).k === 'list' ? (tyOf(s!) as { of: Ty }).of : T.dyn;
      const scalar = ['string', 'bool', 'int'].includes(x!.t) && item.k === x!.t;
      const inList = scalar ? frag(`${op(x!)} in ${op(s!)}`, 'bool') : frag(`${op(s!)}.exists(${e}, dyn(${e}) == ${dyn(x!)})`, 'bool', { atom: true });
      if (s!.t === 'string') return inString;
      if (s!.t === 'list') return inList;
      return cond(`type(${s!.cel}) == string`, inString, inList);
    },
  },
  { name: 'ends_with', nullFails: true, ...both(exact('endsWith()')), emit: ([s, x]) => frag(`${op(s!)}.endsWith(${x!.cel})`, 'bool', { atom: true }) },
  { name: 'starts_with', nullFails: true, ...both(exact('startsWith()')), emit: ([s, x]) => frag(`${op(s!)}.startsWith(${x!.cel})`, 'bool', { atom: true }) },
  { name: 'join', nullFails: true, ...both(exact('strings ext join()')), emit: ([sep, l]) => frag(`${op(l!)}.join(${sep!.cel})`, 'string', { atom: true }) },
  {
    name: 'keys',
    nullFails: true,
    ...both(assume('map comprehension over the keys', 'Kyverno lists keys in random order (Go map iteration); the CEL keeps the map order')),
    emit: ([m], { cx }) => {
      cx.notes.add(ORDER_NOTE);
      const k = cx.names.fresh('k');
      return tfrag(`${op(m!)}.map(${k}, ${k})`, T.list(T.string), { atom: true });
    },
  },
  {
    name: 'values',
    nullFails: true,
    ...both(assume('transformList over the entries', 'Kyverno lists values in random order (Go map iteration); the CEL keeps the map order')),
    emit: ([m], { cx }) => {
      cx.notes.add(ORDER_NOTE);
      const k = cx.names.fresh('k');
      const v = cx.names.fresh('v');
      const mt = tyOf(m!);
      const values = mt.k === 'map' && Object.keys(mt.fields).length === 0 ? mt.rest : T.dyn;
      return tfrag(`${op(m!)}.transformList(${k}, ${v}, ${v})`, T.list(values), { atom: true });
    },
  },
  { name: 'length', nullFails: true, ...both(exact('size(): code points of a string, items of a list or map')), emit: ([v]) => tfrag(`size(${v!.cel})`, T.smallInt, { atom: true }) },
  {
    name: 'map',
    ...both(exact('map() comprehension; nulls are kept')),
    emit: ([, l], site) => {
      const x = site.cx.names.fresh('x');
      const body = site.ref(0, frag(x, 'dyn', { simple: true, atom: true }));
      return frag(`${op(l!)}.map(${x}, ${body.cel})`, 'list', { atom: true, err: body.err });
    },
  },
  {
    name: 'max',
    nullFails: true,
    ...both(exact('Kubernetes lists max() (numbers as doubles); null for an empty list')),
    emit: ([l], { cx }) => extremum(l!, 'max', cx.names),
  },
  {
    name: 'min',
    nullFails: true,
    ...both(exact('Kubernetes lists min() (numbers as doubles); null for an empty list')),
    emit: ([l], { cx }) => extremum(l!, 'min', cx.names),
  },
  { name: 'max_by', ...both(yet('key-ordered extremum over an expression reference')) },
  { name: 'min_by', ...both(yet('key-ordered extremum over an expression reference')) },
  { name: 'sort_by', ...both(yet('stable sort by the key of an expression reference')) },
  {
    name: 'merge',
    ...both(exact('the entries of every map, each key from the last map holding it, rebuilt with transformMapEntry (Kubernetes 1.32 two-variable comprehensions)')),
    emit: (ms, { cx }) => {
      if (ms.length === 1) return ms[0]!;
      const parts = ms.map((m, i) => {
        const k = cx.names.fresh('k');
        const v = cx.names.fresh('v');
        const later = ms.slice(i + 1).map((n) => `!(${k} in ${op(n)})`);
        const filter = later.length === 0 ? '' : `${later.join(' && ')}, `;
        return `${op(m)}.transformList(${k}, ${v}, ${filter}[dyn(${k}), dyn(${v})])`;
      });
      const i = cx.names.fresh('i');
      const e = cx.names.fresh('e');
      return frag(`(${parts.join(' + ')}).transformMapEntry(${i}, ${e}, {${e}[0]: ${e}[1]})`, 'map', { atom: true });
    },
  },
  {
    name: 'not_null',
    ...both(exact('the first non-null argument (every argument is evaluated first, as in go-jmespath)')),
    emit: (args) => {
      let out: Frag = NULL;
      for (let i = args.length - 1; i >= 0; i--) {
        const a = args[i]!;
        const o = a.optional;
        // A value never null ends the search; an optional path (null only where missing) falls back with orValue().
        if (!mayBeNull(tyOf(a))) out = a;
        else if (o && !mayBeNull(o.ty) && !out.err && (out.t === stypeOf(o.ty) || out.t === 'null')) out = tfrag(`${o.cel}.orValue(${out.cel})`, out.t === 'null' ? T.nullable(o.ty) : o.ty, { atom: true });
        else out = cond(`type(${a.cel}) != null_type`, a, out);
      }
      return out;
    },
  },
  {
    name: 'reverse',
    ...both(exact('transformList reading from the end (lists), the same over split("") (strings, by runes)')),
    emit: ([v], { cx }) => {
      const rev = (l: string): string => {
        const i = cx.names.fresh('i');
        const x = cx.names.fresh('x');
        return `${l}.transformList(${i}, ${x}, ${l}[size(${l}) - 1 - ${i}])`;
      };
      const list = frag(rev(op(v!)), 'list', { atom: true });
      const chars = cx.names.fresh('c');
      const str = frag(`[${op(v!)}.split("")].map(${chars}, ${rev(chars)}.join(""))[0]`, 'string', { atom: true });
      if (v!.t === 'list') return list;
      if (v!.t === 'string') return str;
      return cond(`type(${v!.cel}) == list`, list, str);
    },
  },
  {
    name: 'sort',
    ...both(exact('ext.Lists sort() (numbers as doubles) from Kubernetes 1.34; before, a stable rank sort with transformList and indexOf')),
    emit: ([l], { cx }) => sorted(l!, cx.caps.listsExt, cx.names),
  },
  {
    name: 'to_array',
    ...both(exact('the list itself, or a one-element list')),
    emit: ([v]) => (v!.t === 'list' ? v! : v!.t === 'dyn' ? cond(`type(${v!.cel}) == list`, v!, frag(`[${v!.cel}]`, 'list', { atom: true })) : frag(`[${v!.cel}]`, 'list', { atom: true })),
  },
  {
    name: 'to_string',
    ...both(
      assume(
        "strings as they are; numbers re-spelled from string(double) to Go's encoding/json form; bools, null; lists and maps JSON-encoded in CEL",
        'lists and maps nested more than 2 levels (maps at all before Kubernetes 1.34) make the CEL fail',
      ),
    ),
    emit: ([v], { cx }) => spliceText(v!, cx),
  },
  {
    name: 'to_number',
    ...both(
      assume(
        "numbers as they are; strings of strconv.ParseFloat's decimal form through double(); anything else null",
        'a decimal string beyond the float64 range (1e400) is null in Kyverno and an error in CEL',
      ),
    ),
    emit: ([v], { cx }) => {
      const x = v!.cel;
      if (isNumeric(v!.t)) return v!;
      cx.notes.add('to_number() of a decimal string beyond the float64 range is null in Kyverno; the CEL fails');
      const fromString = cond(`${op(v!)}.matches(${JSON.stringify(GO_FLOAT)})`, frag(`double(${x})`, 'double', { atom: true }), NULL);
      if (v!.t === 'string') return fromString;
      if (v!.t !== 'dyn') return NULL;
      return cond(`type(${x}) == int || type(${x}) == double`, v!, cond(`type(${x}) == string`, fromString, NULL));
    },
  },
  {
    name: 'type',
    ...both(exact('type() tests mapped to JMESPath type names')),
    emit: ([v]) => {
      const x = v!.cel;
      const names: Record<string, string> = { string: 'string', int: 'number', double: 'number', number: 'number', bool: 'boolean', null: 'null', list: 'array', map: 'object' };
      if (v!.t !== 'dyn') return frag(JSON.stringify(names[v!.t]), 'string', { simple: true, atom: true });
      return frag(
        `type(${x}) == string ? "string" : type(${x}) == int || type(${x}) == double ? "number" : type(${x}) == bool ? "boolean" : type(${x}) == list ? "array" : type(${x}) == map ? "object" : "null"`,
        'string',
      );
    },
  },
];

function extremum(l: Frag, fn: 'max' | 'min', names: { fresh(h?: string): string }): Frag {
  const x = names.fresh('x');
  const nums = `${op(l)}.map(${x}, double(${x})).${fn}()`;
  const strs = `${op(l)}.${fn}()`;
  return frag(`size(${l.cel}) == 0 ? null : type(${op(l)}[0]) == string ? ${strs} : ${nums}`, 'dyn');
}
