/**
 * List and set functions: cel-go ext.Sets (ext/sets.go), ext.Lists version 3 (ext/lists.go) and the
 * Kubernetes lists library (apiserver/pkg/cel/library/lists.go).
 */
import { add } from '../operators.js';
import { global, member, type FunctionDef } from '../registry.js';
import { CelDouble, CelOptional, CelUint, celCompare, celEquals, err, kindOf, mkDouble, noOverload } from '../values.js';
import { CelDuration } from '../values.js';

function list(fn: string, v: unknown, ...rest: unknown[]): unknown[] {
  if (!Array.isArray(v)) noOverload(fn, v, ...rest);
  return v;
}

function contains(a: unknown[], x: unknown): boolean {
  for (const y of a) if (celEquals(x, y)) return true;
  return false;
}

// ------------------------------------------------------------------------------------------ sets
export const setFunctions: FunctionDef[] = [
  global('sets', 'sets.contains', 2, (a: unknown, b: unknown) => {
    const x = list('sets.contains', a, b);
    return list('sets.contains', b, a).every((e) => contains(x, e));
  }),
  global('sets', 'sets.equivalent', 2, (a: unknown, b: unknown) => {
    const x = list('sets.equivalent', a, b);
    const y = list('sets.equivalent', b, a);
    return y.every((e) => contains(x, e)) && x.every((e) => contains(y, e));
  }),
  global('sets', 'sets.intersects', 2, (a: unknown, b: unknown) => {
    const x = list('sets.intersects', a, b);
    return list('sets.intersects', b, a).some((e) => contains(x, e));
  }),
];

// ------------------------------------------------------------------------------------------ ext.Lists
function intArg(fn: string, v: unknown): number {
  if (kindOf(v) !== 'int') noOverload(fn, v);
  return Number(v);
}

function flatten(l: unknown[], depth: number): unknown[] {
  const out: unknown[] = [];
  for (const x of l) {
    if (Array.isArray(x) && depth > 0) out.push(...flatten(x, depth - 1));
    else out.push(x);
  }
  return out;
}

function sameKindOrThrow(l: unknown[]): void {
  if (l.length === 0) return;
  const k = kindOf(l[0]);
  for (const x of l) if (kindOf(x) !== k) err('list elements must have the same type');
  if (k !== 'int' && k !== 'uint' && k !== 'double' && k !== 'string' && k !== 'bool' && k !== 'bytes' && k !== 'timestamp' && k !== 'duration') {
    err(`list elements must be comparable, got ${k}`);
  }
}

export function sortList(l: unknown[]): unknown[] {
  sameKindOrThrow(l);
  return l.slice().sort((a, b) => celCompare(a, b, 'sort'));
}

export const listExtFunctions: FunctionDef[] = [
  global('lists.ext', 'lists.range', 1, (n: unknown) => {
    const k = intArg('lists.range', n);
    const out: number[] = [];
    for (let i = 0; i < k; i++) out.push(i);
    return out;
  }),
  member('lists.ext', 'flatten', [0, 1], (l: unknown, d?: unknown) => {
    const depth = d === undefined ? 1 : intArg('flatten', d);
    if (depth < 0) err('level must be non-negative');
    return flatten(list('flatten', l), depth);
  }),
  member('lists.ext', 'slice', 2, (l: unknown, s: unknown, e: unknown) => {
    const x = list('slice', l, s, e);
    const start = intArg('slice', s);
    const end = intArg('slice', e);
    if (start < 0 || end < 0) err(`cannot slice(${start}, ${end}), negative indexes not supported`);
    if (start > end) err(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
    if (end > x.length) err(`cannot slice(${start}, ${end}), list is length ${x.length}`);
    return x.slice(start, end);
  }),
  member('lists.ext', 'distinct', 0, (l: unknown) => {
    const out: unknown[] = [];
    for (const x of list('distinct', l)) if (!contains(out, x)) out.push(x);
    return out;
  }),
  member('lists.ext', 'reverse', 0, (l: unknown) => list('reverse', l).slice().reverse(), { recv: ['list'] }),
  member('lists.ext', 'sort', 0, (l: unknown) => sortList(list('sort', l))),
  member('lists.ext', 'first', 0, (l: unknown) => {
    const x = list('first', l);
    return x.length === 0 ? CelOptional.NONE : CelOptional.of(x[0]);
  }),
  member('lists.ext', 'last', 0, (l: unknown) => {
    const x = list('last', l);
    return x.length === 0 ? CelOptional.NONE : CelOptional.of(x[x.length - 1]);
  }),
];

// ------------------------------------------------------------------------------------------ Kubernetes lists
function numericKind(l: unknown[], fn: string): string | undefined {
  if (l.length === 0) return undefined;
  const k = kindOf(l[0]);
  for (const x of l) if (kindOf(x) !== k) noOverload(fn, l);
  return k;
}

export const k8sListFunctions: FunctionDef[] = [
  member('k8s.lists', 'isSorted', 0, (l: unknown) => {
    const x = list('isSorted', l);
    numericKind(x, 'isSorted');
    for (let i = 1; i < x.length; i++) if (celCompare(x[i - 1], x[i], 'isSorted') > 0) return false;
    return true;
  }),
  member('k8s.lists', 'sum', 0, (l: unknown) => {
    const x = list('sum', l);
    const k = numericKind(x, 'sum');
    if (k === undefined) return 0;
    if (k !== 'int' && k !== 'uint' && k !== 'double' && k !== 'duration') noOverload('sum', l);
    let acc: unknown = k === 'int' ? 0 : k === 'uint' ? new CelUint(0n) : k === 'double' ? new CelDouble(0) : new CelDuration(0n);
    for (const v of x) acc = add(acc, v);
    return k === 'double' ? mkDouble(typeof acc === 'number' ? acc : (acc as CelDouble).v) : acc;
  }),
  member('k8s.lists', 'min', 0, (l: unknown) => {
    const x = list('min', l);
    if (x.length === 0) err('min called on empty list');
    numericKind(x, 'min');
    return x.reduce((a, b) => (celCompare(b, a, 'min') < 0 ? b : a));
  }),
  member('k8s.lists', 'max', 0, (l: unknown) => {
    const x = list('max', l);
    if (x.length === 0) err('max called on empty list');
    numericKind(x, 'max');
    return x.reduce((a, b) => (celCompare(b, a, 'max') > 0 ? b : a));
  }),
  member('k8s.lists', 'indexOf', 1, (l: unknown, v: unknown) => list('indexOf', l, v).findIndex((x) => celEquals(x, v)), { recv: ['list'] }),
  member(
    'k8s.lists',
    'lastIndexOf',
    1,
    (l: unknown, v: unknown) => {
      const x = list('lastIndexOf', l, v);
      for (let i = x.length - 1; i >= 0; i--) if (celEquals(x[i], v)) return i;
      return -1;
    },
    { recv: ['list'] },
  ),
];
