/**
 * Differential properties: transmute's engines against an independent oracle on the inputs both support.
 * Both must give the same value, or both an error (error-ness is compared, never messages).
 *
 * - CEL: src/cel against @bufbuild/cel, in plain CEL (no Kubernetes libraries, no MAP mutation types, and
 *   aggregate literals may mix types: kube-apiserver's HomogeneousAggregateLiterals is a Kubernetes
 *   environment option plain CEL does not have). Generator and its restrictions: cel-gen.ts.
 * - JMESPath: src/jmespath against the `jmespath` package's own `search`. Normalised where Kyverno's fork
 *   differs on a documented point (see jmesAgrees); generator and its restrictions: jmespath-gen.ts.
 */
import * as buf from '@bufbuild/cel';
import jmespath from 'jmespath';
import { compile } from '../../src/cel/index.js';
import { CelDouble, CelUint } from '../../src/cel/values.js';
import { compileJmes } from '../../src/jmespath/index.js';
import { showBuf, showOurs } from '../cel/differential-gen.js';
import type { CelVal } from './cel-gen.js';

export type Outcome = { kind: 'value'; text: string } | { kind: 'error'; message: string };

// ------------------------------------------------------------------------------------------ CEL
/** transmute's representation: JSON-shaped (safe integers are ints), boxes where JSON cannot say the type. */
export function toOurs(v: CelVal): unknown {
  switch (v.t) {
    case 'int':
      return v.v >= BigInt(Number.MIN_SAFE_INTEGER) && v.v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v.v) : v.v;
    case 'uint':
      return new CelUint(v.v);
    case 'double':
      return Number.isSafeInteger(v.v) || Object.is(v.v, -0) ? new CelDouble(v.v) : v.v;
    case 'null':
      return null;
    case 'list':
      return v.v.map(toOurs);
    case 'map': {
      const o: Record<string, unknown> = {};
      for (const [k, x] of v.v) Object.defineProperty(o, k, { value: toOurs(x), enumerable: true, writable: true, configurable: true });
      return o;
    }
    default:
      return v.v;
  }
}

/** @bufbuild/cel's input representation: bigint ints, number doubles, CelUint uints. */
export function toBuf(v: CelVal): buf.CelInput {
  switch (v.t) {
    case 'int':
      return v.v;
    case 'uint':
      return buf.celUint(v.v);
    case 'null':
      return null;
    case 'list':
      return v.v.map(toBuf);
    case 'map':
      return new Map(v.v.map(([k, x]) => [k, toBuf(x)]));
    default:
      return v.v;
  }
}

export function celOurs(expr: string, x: CelVal): Outcome {
  const p = compile(expr, { homogeneousAggregateLiterals: false, mutationTypes: false });
  if (!p.ok) return { kind: 'error', message: p.diagnostics[0]!.message };
  const r = p.value.eval({ x: toOurs(x) }, { costLimit: Infinity });
  return r.ok ? { kind: 'value', text: showOurs(r.value) } : { kind: 'error', message: r.error };
}

/**
 * @bufbuild/cel with the overloads where it departs from cel-go replaced by cel-go's behaviour, so random
 * data reaching them (`double(x.a)` of any string) compares meaningfully:
 * - `_/_(uint, uint)` fails "int overflow during divide by 1" for a dividend of 2^63 or more (std/math.js
 *   checks the quotient against the int range);
 * - `int`, `uint`, `double` of a string use BigInt() / Number(), which take spaces, `0x`, `""`; cel-go
 *   calls strconv.ParseInt / ParseUint / ParseFloat (common/types/string.go). The generator's strings
 *   hold no `x` or `p`, so the decimal and special forms below are all ParseFloat can meet;
 * - `string(double)` is Number#toString; cel-go prints `fmt.Sprintf("%g")` (common/types/double.go), the
 *   shortest digits in exponent form below 1e-4 and from 1e6 on, `-0`, `+Inf`, `NaN`.
 */
const fail = (message: string): never => {
  throw new Error(message);
};
const { BOOL, DOUBLE, DYN, INT, STRING, UINT } = buf.CelScalar;
const ORACLE_ENV: NonNullable<Parameters<typeof buf.run>[2]> = {
  funcs: [
    buf.celFunc('_/_', [UINT, UINT], UINT, (l, r) => (r.value === 0n ? fail('divide by zero') : buf.celUint(l.value / r.value))),
    buf.celFunc('int', [STRING], INT, (s) => {
      const n = /^[+-]?\d+$/.test(s) ? BigInt(s) : fail('bad int');
      return n < -(2n ** 63n) || n >= 2n ** 63n ? fail('int range') : n;
    }),
    buf.celFunc('uint', [STRING], UINT, (s) => {
      const n = /^\d+$/.test(s) ? BigInt(s) : fail('bad uint');
      return n >= 2n ** 64n ? fail('uint range') : buf.celUint(n);
    }),
    buf.celFunc('double', [STRING], DOUBLE, (s) => {
      if (/^nan$/i.test(s)) return NaN;
      if (/^[+-]?inf(inity)?$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
      const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : fail('bad double');
      return Number.isFinite(n) ? n : fail('double range');
    }),
    buf.celFunc('string', [DOUBLE], STRING, goPercentG),
    ...mixedEquality(),
  ],
};

/**
 * `==` and `!=` between a double and an int or uint: @bufbuild/cel compares exactly (`number == bigint`);
 * cel-go converts the integer to double first unless the double is outside the int64 / uint64 range
 * (common/types/compare.go compareDoubleInt, compareDoubleUint), so `double(9223372036854775807) ==
 * 9223372036854775807` holds there. Other operands go to @bufbuild/cel's own equality (evaluated in its
 * default environment). Equality nested in lists, maps and `in` stays @bufbuild/cel's; the generator makes
 * those collisions rare.
 */
function mixedEquality(): buf.CelFunc[] {
  const integer = (v: unknown): bigint | undefined => (typeof v === 'bigint' ? v : buf.isCelUint(v) ? v.value : undefined);
  const equal = (l: unknown, r: unknown): boolean => {
    const [d, i] = typeof l === 'number' ? [l, integer(r)] : typeof r === 'number' ? [r, integer(l)] : [undefined, undefined];
    if (d !== undefined && i !== undefined) {
      const [min, max] = buf.isCelUint(l) || buf.isCelUint(r) ? [0, 2 ** 64] : [-(2 ** 63), 2 ** 63];
      return d >= min && d <= max && d === Number(i);
    }
    return buf.run('l == r', { l: l as buf.CelInput, r: r as buf.CelInput }) === true;
  };
  return [buf.celFunc('_==_', [DYN, DYN], BOOL, equal), buf.celFunc('_!=_', [DYN, DYN], BOOL, (l, r) => !equal(l, r))];
}

function goPercentG(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? '+Inf' : '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [digits, exp] = d.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e >= -4 && e < 6) return String(d);
  return `${digits}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

export function celOracle(expr: string, x: CelVal): Outcome {
  const r = buf.run(expr, { x: toBuf(x) }, ORACLE_ENV);
  return buf.isCelError(r) ? { kind: 'error', message: r.message } : { kind: 'value', text: showBuf(r) };
}

export function sameOutcome(a: Outcome, b: Outcome): boolean {
  return a.kind === 'value' && b.kind === 'value' ? a.text === b.text : a.kind === b.kind;
}

/** The CEL differential property: transmute and @bufbuild/cel agree on `expr` with `x` bound. */
export function celAgrees(expr: string, x: CelVal): boolean {
  return sameOutcome(celOurs(expr, x), celOracle(expr, x));
}

// ------------------------------------------------------------------------------------------ JMESPath
/** JSON text with sorted keys: comparable whatever order the two evaluators built an object in. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return JSON.stringify(v);
}

export function jmesOurs(expr: string, data: unknown): Outcome {
  const p = compileJmes(expr);
  if (!p.ok) return { kind: 'error', message: p.diagnostics[0]!.message };
  const r = p.value.search(data);
  if (r.ok) return { kind: 'value', text: canonicalJson(r.value) };
  // Kyverno's fork reports a missing key as a NotFound error where JMESPath gives null; every consumer
  // inside an expression swallows it into null (kyverno.md §1, "Unknown key"), so at the top it is null.
  if (r.error.kind === 'NotFound') return { kind: 'value', text: 'null' };
  return { kind: 'error', message: r.error.message };
}

export function jmesOracle(expr: string, data: unknown): Outcome {
  try {
    return { kind: 'value', text: canonicalJson(jmespath.search(data as Parameters<typeof jmespath.search>[0], expr)) };
  } catch (e) {
    return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * The JMESPath differential property: transmute and the `jmespath` package agree on `expr` over `data`.
 * Normalisation: only the inputs on which jmespath.js gives a value are compared (ours must give the same
 * value; an error of ours there is a failure). Where jmespath.js fails, Kyverno may rightly give a value:
 * go-jmespath, which Kyverno's fork follows, turns an error of the left side of `[]`, `[?...]` and `.*` into
 * null (interpreter.go ASTFlatten, ASTFilterProjection, ASTValueProjection) where jmespath.js propagates it
 * (`floor(a)[]` is null in Kyverno, a type error in jmespath.js), and jmespath.js also throws on inputs the
 * spec defines (`obj.hasOwnProperty is not a function`).
 */
export function jmesAgrees(expr: string, data: unknown): boolean {
  const oracle = jmesOracle(expr, data);
  if (oracle.kind === 'error') return true;
  const ours = jmesOurs(expr, data);
  if (sameOutcome(ours, oracle)) return true;
  // Go's encoding/json writes negative zero as -0 (strconv.AppendFloat), JSON.stringify as 0: inside the text
  // `to_string` makes, the two are the same number.
  const zero = (o: Outcome): Outcome => (o.kind === 'value' ? { kind: 'value', text: o.text.replace(/(?<![\d.])-0(?![\d.e])/g, '0') } : o);
  return expr.includes('to_string(') && sameOutcome(zero(ours), zero(oracle));
}
