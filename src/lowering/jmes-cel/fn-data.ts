/**
 * Kyverno's data-shaping functions (functions.go jpParseJson, jpParseYAML, jpLookup, jpItems, jpObjectFromLists).
 * parse_json and parse_yaml need a decoder the Kubernetes environment does not have; Kyverno's CEL environment
 * has the same two (kyverno/sdk libs/json, libs/yaml: encoding/json and sigs.k8s.io/yaml into `any`).
 */
import type { Cx } from './context.js';
import { cond, fail, frag, litString, op, type Frag } from './frag.js';
import { assume, both, cannot, exact, type FnDef } from './table.js';

/** go-jmespath intNumber's limit: beyond 2^53 a float64 index is an error. */
const SAFE = 9007199254740991;

function lookup([input, key]: Frag[]): Frag {
  const m = op(input!);
  const k = key!.cel;
  const inMap = cond(`type(${k}) == string`, cond(`${k} in ${m}`, frag(`${m}[${k}]`, 'dyn', { atom: true }), frag('null', 'null')), fail('lookup(): argument #2 is not of type String'));
  const inList = cond(
    `type(${k}) == string`,
    fail('lookup(): argument #2 is not of type Number'),
    cond(
      `${k} > ${SAFE}.0 || ${k} < -${SAFE}.0 || double(int(${k})) != double(${k})`,
      fail('lookup(): argument #2 is not an integer number'),
      cond(`int(${k}) < 0 || int(${k}) >= size(${m})`, frag('null', 'null'), frag(`${m}[int(${k})]`, 'dyn', { atom: true })),
    ),
  );
  if (input!.t === 'map') return inMap;
  if (input!.t === 'list') return inList;
  return cond(`type(${input!.cel}) == map`, inMap, inList);
}

/** One `{keyName: k, valName: v}` item; Go's map literal keeps the value when both names are equal. */
function item(kn: Frag, vn: Frag, k: string, v: string): string {
  const a = litString(kn);
  const b = litString(vn);
  if (a !== undefined && b !== undefined) return a === b ? `{${kn.cel}: ${v}}` : `{${kn.cel}: dyn(${k}), ${vn.cel}: dyn(${v})}`;
  return `(${kn.cel} == ${vn.cel} ? {${kn.cel}: dyn(${v})} : {${kn.cel}: dyn(${k}), ${vn.cel}: dyn(${v})})`;
}

function items([input, kn, vn]: Frag[], cx: Cx): Frag {
  const m = op(input!);
  const k = cx.names.fresh('k');
  const i = cx.names.fresh('i');
  const x = cx.names.fresh('x');
  let keys = `${m}.map(${k}, ${k})`;
  if (cx.caps.listsExt) keys = `${keys}.sort()`;
  else {
    // Rank sort (no ext.Lists before 1.34): keys are distinct, so a key's rank is the number of smaller keys.
    const r = cx.names.fresh('r');
    const p = cx.names.fresh('p');
    const y = cx.names.fresh('y');
    keys = `[${keys}].map(${r}, ${r}.transformList(${p}, ${x}, ${r}.filter(${y}, ${r}.filter(${k}, ${k} < ${y}).size() == ${p})[0]))[0]`;
  }
  const fromMap = frag(`${keys}.map(${k}, ${item(kn!, vn!, k, `${m}[${k}]`)})`, 'list', { atom: true });
  const fromList = frag(`${m}.transformList(${i}, ${x}, ${item(kn!, vn!, i, x)})`, 'list', { atom: true });
  if (input!.t === 'map') return fromMap;
  if (input!.t === 'list') return fromList;
  return cond(`type(${input!.cel}) == map`, fromMap, fromList);
}

/** functions.go ifaceToString for a key: strings, booleans; numbers print as float32 (integers up to 2^24 here). */
function keyText(k: string): string {
  const asInt = `${k} >= -16777216 && ${k} <= 16777216 && (type(${k}) == int || ${k} == double(int(${k})))`;
  return (
    `type(${k}) == string ? ${k} : type(${k}) == bool ? string(${k}) : ` +
    `(type(${k}) == int || type(${k}) == double) && ${asInt} ? string(int(${k})) : ` +
    `(type(${k}) == int || type(${k}) == double) ? ${fail('object_from_lists(): a number key that is not an integer up to 2^24 is formatted as float32 by Kyverno').cel} : ` +
    `${fail('object_from_lists(): argument #1 is not of type StringArray').cel}`
  );
}

function objectFromLists([keys, values]: Frag[], cx: Cx): Frag {
  cx.notes.add('object_from_lists(): a non-integral number key (or one beyond 2^24) is printed as float32 by Kyverno; the CEL fails on it');
  const ks = cx.names.fresh('ks');
  const k = cx.names.fresh('k');
  const i = cx.names.fresh('i');
  const j = cx.names.fresh('j');
  const k2 = cx.names.fresh('k');
  const vs = op(values!);
  // Later duplicates win in Go's map assignment; transformMapEntry rejects duplicates, so earlier ones are skipped.
  const entry = `${ks}.transformList(${j}, ${k2}, ${j} > ${i} && ${k2} == ${k}, ${j}).size() > 0 ? dyn({}) : dyn({${k}: ${i} < size(${vs}) ? ${vs}[${i}] : null})`;
  return frag(`[${op(keys!)}.map(${k}, ${keyText(k)})].map(${ks}, ${ks}.transformMapEntry(${i}, ${k}, ${entry}))[0]`, 'map', { atom: true, err: true });
}

export const DATA: FnDef[] = [
  {
    name: 'parse_json',
    map: cannot('the Kubernetes CEL environment has no JSON decoder'),
    mpol: exact('json.unmarshal(s): encoding/json into `any` in both, every number a float64'),
    emit: ([s]) => frag(`json.unmarshal(${s!.cel})`, 'dyn', { atom: true, err: true }),
  },
  {
    name: 'parse_yaml',
    map: cannot('the Kubernetes CEL environment has no YAML decoder'),
    mpol: exact('yaml.parse(s): sigs.k8s.io/yaml into `any` in both (YAML 1.1 scalars, every number a float64)'),
    emit: ([s]) => frag(`yaml.parse(${s!.cel})`, 'dyn', { atom: true, err: true }),
  },
  { name: 'lookup', ...both(exact('`in` and index for a map; an integral in-range index for a list, else null')), emit: (args) => lookup(args) },
  {
    name: 'items',
    ...both(exact('one map per entry, map keys sorted byte-wise (ext.Lists sort() from 1.34, a rank sort before), list items by index')),
    emit: (args, { cx }) => items(args, cx),
  },
  {
    name: 'object_from_lists',
    ...both(assume('transformMapEntry over the keys (later duplicates win), missing values null', 'number keys are integers up to 2^24 (Kyverno prints others as float32)')),
    emit: (args, { cx }) => objectFromLists(args, cx),
  },
];
