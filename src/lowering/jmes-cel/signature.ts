/**
 * go-jmespath checks a call before running it (functions.go resolveArgs): arity, then each argument against
 * its declared types. Kyverno's signatures come from src/jmespath's table, the same one the evaluator
 * uses. Here each check becomes either a compile-time verdict or a CEL test over the bound argument
 * (type() never fails, so the tests can be combined with `&&` safely).
 */
import type { ArgType, FunctionSpec } from '../../jmespath/index.js';
import { isNumeric, tyOf, type Frag } from './frag.js';
import { stypeOf } from './types.js';

/** An argument as the call sees it: a value, or an expression reference (`&expr`). */
export type Arg = { kind: 'value'; f: Frag } | { kind: 'ref'; index: number };

/** true / false when known statically, else a CEL condition. */
export type Verdict = boolean | string;

function isNum(cel: string): string {
  return `(type(${cel}) == int || type(${cel}) == double)`;
}

function test(t: ArgType, a: Arg): Verdict {
  if (t === 'any') return true;
  if (a.kind === 'ref') return t === 'expref';
  if (t === 'expref') return false;
  const f = a.f;
  const known = f.t !== 'dyn';
  const v = f.cel;
  switch (t) {
    case 'number':
      return known ? isNumeric(f.t) : isNum(v);
    case 'string':
      return known ? f.t === 'string' : `type(${v}) == string`;
    case 'array':
      return known ? f.t === 'list' : `type(${v}) == list`;
    case 'object':
      return known ? f.t === 'map' : `type(${v}) == map`;
    case 'array[number]':
    case 'array[string]': {
      if (known && f.t !== 'list') return false;
      // A list whose item type is known needs no test of each item.
      const lt = tyOf(f);
      const item = lt.k === 'list' ? stypeOf(lt.of) : undefined;
      if (item !== undefined && (t === 'array[number]' ? isNumeric(item) : item === 'string')) return true;
      const x = '_t';
      const each = t === 'array[number]' ? isNum(x) : `type(${x}) == string`;
      return `${known ? '' : `type(${v}) == list && `}${v}.all(${x}, ${each})`;
    }
  }
}

function any(vs: Verdict[]): Verdict {
  if (vs.some((v) => v === true)) return true;
  const dyn = vs.filter((v): v is string => typeof v === 'string');
  return dyn.length === 0 ? false : dyn.length === 1 ? dyn[0]! : `(${dyn.join(' || ')})`;
}

export function all(vs: Verdict[]): Verdict {
  if (vs.some((v) => v === false)) return false;
  const dyn = vs.filter((v): v is string => typeof v === 'string');
  return dyn.length === 0 ? true : dyn.join(' && ');
}

/** Arity error message, or undefined when the count is accepted (functions.go resolveArgs). */
export function arityError(spec: FunctionSpec, count: number): string | undefined {
  const declared = spec.args.length;
  if (declared === 0) return undefined;
  if (!spec.variadic) return count === declared ? undefined : 'Incorrect number of args.';
  return count < declared ? 'Invalid arity.' : undefined;
}

/** The verdict that every argument has one of its declared types. */
export function typesOk(spec: FunctionSpec, args: Arg[]): Verdict {
  const declared = spec.args.length;
  if (declared === 0) return true;
  const checked = spec.variadic && !spec.checkVariadic ? declared : args.length;
  const verdicts: Verdict[] = [];
  for (let i = 0; i < checked && i < args.length; i++) {
    const types = spec.args[Math.min(i, declared - 1)]!;
    verdicts.push(any(types.map((t) => test(t, args[i]!))));
  }
  return all(verdicts);
}
