/**
 * The JMESPath built-ins as go-jmespath implements them (functions.go): float64 numbers, strings
 * ordered byte-wise, `length` counting runes, `to_string` through encoding/json. Kyverno replaces
 * `sum` (see arithmetic.ts).
 */
import { defineOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { failure, JmesFailure } from '../types.js';
import { compareGoStrings, goJsonMarshal, objsEqual, runeCount, typeName, type JsonMap } from '../values.js';
import { ExpRef, type Env, type FunctionSpec } from './registry.js';

function num(v: unknown): number {
  return v as number;
}

/** Evaluates the key expression of *_by functions; every key must have the first key's type. */
function keysOf(items: unknown[], ref: ExpRef, env: Env, fn: string): { keys: (number | string)[]; kind: 'number' | 'string' } | JmesFailure {
  const keys: (number | string)[] = [];
  let kind: 'number' | 'string' | undefined;
  for (const item of items) {
    const k = ref.evaluate(item, env);
    if (k instanceof JmesFailure) return k;
    if (kind === undefined) {
      if (typeof k === 'number') kind = 'number';
      else if (typeof k === 'string') kind = 'string';
      else return failure('InvalidType', 'Invalid type, must be number of string.');
    } else if (typeof k !== kind) {
      return fn === 'sort_by' ? failure('Runtime', 'Error in sort_by comparison') : failure('InvalidType', `Invalid type, must be ${kind}`);
    }
    keys.push(k as number | string);
  }
  return { keys, kind: kind ?? 'number' };
}

function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number') return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  return compareGoStrings(a, b as string);
}

function extremumBy(args: unknown[], env: Env, fn: string, wantMax: boolean): unknown {
  const items = args[0] as unknown[];
  if (items.length === 0) return null;
  if (items.length === 1) return items[0];
  const r = keysOf(items, args[1] as ExpRef, env, fn);
  if (r instanceof JmesFailure) return r;
  let best = 0;
  for (let i = 1; i < items.length; i++) {
    const c = compareKeys(r.keys[i]!, r.keys[best]!);
    if (wantMax ? c > 0 : c < 0) best = i;
  }
  return items[best];
}

function extremum(items: unknown[], wantMax: boolean): unknown {
  if (items.length === 0) return null;
  let best = items[0] as number | string;
  for (let i = 1; i < items.length; i++) {
    const x = items[i] as number | string;
    const c = compareKeys(x, best);
    if (wantMax ? c > 0 : c < 0) best = x;
  }
  return best;
}

/** strconv.ParseFloat's accepted decimal forms; anything else makes to_number return null. */
const GO_FLOAT = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?$/;

function toNumber(v: unknown): unknown {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (!GO_FLOAT.test(v) || v.includes('_')) return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export const STANDARD_FUNCTIONS: FunctionSpec[] = [
  { name: 'abs', args: [['number']], handler: ([n]) => Math.abs(num(n)) },
  {
    name: 'avg',
    args: [['array[number]']],
    handler: ([a]) => {
      const items = a as number[];
      if (items.length === 0) return null;
      let s = 0;
      for (const x of items) s += x;
      return s / items.length;
    },
  },
  { name: 'ceil', args: [['number']], handler: ([n]) => Math.ceil(num(n)) },
  { name: 'floor', args: [['number']], handler: ([n]) => Math.floor(num(n)) },
  {
    name: 'contains',
    args: [['array', 'string'], ['any']],
    handler: ([subject, search]) => {
      if (typeof subject === 'string') return typeof search === 'string' ? subject.includes(search) : false;
      return (subject as unknown[]).some((x) => objsEqual(x, search));
    },
  },
  { name: 'ends_with', args: [['string'], ['string']], handler: ([s, x]) => (s as string).endsWith(x as string) },
  { name: 'starts_with', args: [['string'], ['string']], handler: ([s, x]) => (s as string).startsWith(x as string) },
  { name: 'join', args: [['string'], ['array[string]']], handler: ([sep, items]) => (items as string[]).join(sep as string) },
  { name: 'keys', args: [['object']], handler: ([o]) => Object.keys(o as object) },
  { name: 'values', args: [['object']], handler: ([o]) => Object.keys(o as object).map((k) => (o as JsonMap)[k]) },
  {
    name: 'length',
    args: [['string', 'array', 'object']],
    handler: ([v]) => (typeof v === 'string' ? runeCount(v) : Array.isArray(v) ? v.length : Object.keys(v as object).length),
  },
  {
    name: 'map',
    args: [['expref'], ['array']],
    handler: ([ref, items], env) => {
      const out: unknown[] = [];
      for (const item of items as unknown[]) {
        const r = (ref as ExpRef).evaluate(item, env);
        if (r instanceof JmesFailure) return r;
        out.push(r ?? null);
      }
      return out;
    },
  },
  { name: 'max', args: [['array[number]', 'array[string]']], handler: ([a]) => extremum(a as unknown[], true) },
  { name: 'min', args: [['array[number]', 'array[string]']], handler: ([a]) => extremum(a as unknown[], false) },
  { name: 'max_by', args: [['array'], ['expref']], handler: (args, env) => extremumBy(args, env, 'max_by', true) },
  { name: 'min_by', args: [['array'], ['expref']], handler: (args, env) => extremumBy(args, env, 'min_by', false) },
  {
    name: 'merge',
    args: [['object']],
    variadic: true,
    checkVariadic: true,
    handler: (args) => {
      const out: JsonObject = {};
      for (const m of args) for (const k of Object.keys(m as object)) defineOwn(out, k, (m as JsonObject)[k] as JsonValue);
      return out;
    },
  },
  {
    name: 'not_null',
    args: [['any']],
    variadic: true,
    handler: (args) => {
      for (const a of args) if (a !== null && a !== undefined) return a;
      return null;
    },
  },
  {
    name: 'reverse',
    args: [['array', 'string']],
    handler: ([v]) => (typeof v === 'string' ? Array.from(v).reverse().join('') : [...(v as unknown[])].reverse()),
  },
  {
    name: 'sort',
    args: [['array[string]', 'array[number]']],
    handler: ([a]) => [...(a as (number | string)[])].sort(compareKeys),
  },
  {
    name: 'sort_by',
    args: [['array'], ['expref']],
    handler: ([a, ref], env) => {
      const items = a as unknown[];
      if (items.length <= 1) return [...items];
      const r = keysOf(items, ref as ExpRef, env, 'sort_by');
      if (r instanceof JmesFailure) return r;
      const order = items.map((_, i) => i);
      // Array.prototype.sort is stable, as Go's sort.Stable is.
      order.sort((i, j) => compareKeys(r.keys[i]!, r.keys[j]!));
      return order.map((i) => items[i]);
    },
  },
  { name: 'to_array', args: [['any']], handler: ([v]) => (Array.isArray(v) ? v : [v]) },
  { name: 'to_string', args: [['any']], handler: ([v]) => (typeof v === 'string' ? v : goJsonMarshal(v)) },
  { name: 'to_number', args: [['any']], handler: ([v]) => toNumber(v) },
  { name: 'type', args: [['any']], handler: ([v]) => typeName(v) },
];

