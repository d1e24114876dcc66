/**
 * Function dispatch as go-jmespath's functionCaller does it: arity, then per-argument type checks,
 * then the handler. The quirks are kept: functions declared without arguments accept any number
 * (functions.go resolveArgs returns early), and variadic functions only check the minimum count.
 */
import { failure, JmesFailure, type JmesContext } from '../types.js';
import { goFormatValue, isMap } from '../values.js';

export interface Env {
  readonly ctx: JmesContext;
}

/** A compiled sub-expression; returns a value or a JmesFailure. */
export type Evaluator = (value: unknown, env: Env) => unknown;

/** The value of `&expr`: evaluated later by functions such as sort_by. */
export class ExpRef {
  constructor(readonly evaluate: Evaluator) {}
}

export type ArgType = 'number' | 'string' | 'array' | 'object' | 'array[number]' | 'array[string]' | 'expref' | 'any';

export interface FunctionSpec {
  name: string;
  /** Accepted types per argument (go-jmespath argSpec.types). */
  args: ArgType[][];
  /** The last argument may repeat (argSpec.variadic). */
  variadic?: boolean;
  /** Variadic arguments are not type-checked upstream; set to check them anyway instead of panicking. */
  checkVariadic?: boolean;
  handler: (args: unknown[], env: Env) => unknown;
}

export type FunctionTable = ReadonlyMap<string, FunctionSpec>;

function matches(t: ArgType, v: unknown): boolean {
  switch (t) {
    case 'any':
      return true;
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isMap(v) && !(v instanceof ExpRef);
    case 'array[number]':
      return Array.isArray(v) && v.every((x) => typeof x === 'number');
    case 'array[string]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'expref':
      return v instanceof ExpRef;
  }
}

/** functions.go typeCheck message: `Invalid type for: %v, expected: %#v` ([]jmespath.JpType{...}). */
function typeError(arg: unknown, types: ArgType[]): JmesFailure {
  const shown = arg instanceof ExpRef ? '{expref}' : goFormatValue(arg);
  const expected = `[]jmespath.JpType{${types.map((t) => JSON.stringify(t)).join(', ')}}`;
  return failure('InvalidType', `Invalid type for: ${shown}, expected: ${expected}`);
}

function matchesAny(types: readonly ArgType[], v: unknown): boolean {
  for (let i = 0; i < types.length; i++) if (matches(types[i]!, v)) return true;
  return false;
}

export function checkArgs(spec: FunctionSpec, args: unknown[]): JmesFailure | undefined {
  const declared = spec.args.length;
  if (declared === 0) return undefined;
  if (!spec.variadic) {
    if (args.length !== declared) return failure('InvalidArity', 'Incorrect number of args.');
    for (let i = 0; i < declared; i++) {
      const types = spec.args[i]!;
      if (!matchesAny(types, args[i])) return typeError(args[i], types);
    }
    return undefined;
  }
  if (args.length < declared) return failure('InvalidArity', 'Invalid arity.');
  if (spec.checkVariadic) {
    for (let i = 0; i < args.length; i++) {
      const types = spec.args[Math.min(i, declared - 1)]!;
      if (!matchesAny(types, args[i])) return typeError(args[i], types);
    }
  }
  return undefined;
}

export function callFunction(table: FunctionTable, name: string, args: unknown[], env: Env): unknown {
  const spec = table.get(name);
  if (spec === undefined) return failure('UnknownFunction', `Unknown function: ${name}`);
  return callSpec(spec, args, env);
}

/** callFunction with the function looked up already (a compiled call site: tables are read-only maps). */
export function callSpec(spec: FunctionSpec, args: unknown[], env: Env): unknown {
  const bad = checkArgs(spec, args);
  if (bad !== undefined) return bad;
  return spec.handler(args, env);
}

/* Kyverno pkg/engine/jmespath/error.go message formats. */
export function kyvernoTypeError(fn: string, argNumber: number, type: string): JmesFailure {
  return failure('InvalidType', `JMESPath function '${fn}': argument #${argNumber} is not of type ${type}`);
}

export function kyvernoError(fn: string, message: string): JmesFailure {
  return failure('Runtime', `JMESPath function '${fn}': ${message}`);
}

/** utils.go validateArg: nil or the wrong Go kind ("string", "float64"). */
export function expectString(fn: string, args: unknown[], index: number): string | JmesFailure {
  const v = args[index];
  if (typeof v !== 'string') return kyvernoTypeError(fn, index + 1, 'string');
  return v;
}

/** The first `count` arguments, each a string; the first that is not is the error. */
export function expectStrings(fn: string, args: unknown[], count: number): string[] | JmesFailure {
  const vals: string[] = [];
  for (let i = 0; i < count; i++) {
    const v = expectString(fn, args, i);
    if (v instanceof JmesFailure) return v;
    vals.push(v);
  }
  return vals;
}

type Expect<T> = (fn: string, args: unknown[], index: number) => T | JmesFailure;

/** A handler of two arguments, each checked by its expectation (expectString, expectNumber) before `body` runs. */
export function withTwo<A, B>(fn: string, first: Expect<A>, second: Expect<B>, body: (a: A, b: B) => unknown): FunctionSpec['handler'] {
  return (args) => {
    const a = first(fn, args, 0);
    if (a instanceof JmesFailure) return a;
    const b = second(fn, args, 1);
    if (b instanceof JmesFailure) return b;
    return body(a, b);
  };
}

export function expectNumber(fn: string, args: unknown[], index: number): number | JmesFailure {
  const v = args[index];
  if (typeof v !== 'number') return kyvernoTypeError(fn, index + 1, 'float64');
  return v;
}

/** utils.go intNumber. */
export function intNumber(n: number): number | string {
  if (!Number.isFinite(n) || Math.trunc(n) !== n) return `expected an integer number but got: ${goFormatValue(n)}`;
  if (!Number.isSafeInteger(n)) return `number is outside the range of integer numbers: ${goFormatValue(n)}`;
  return n;
}
