/**
 * Kyverno's arithmetic (pkg/engine/jmespath/arithmetic.go): operands are numbers (scalars),
 * Kubernetes quantities ("100Mi") or Go durations ("1h"), tried in that order for strings.
 * add/subtract/modulo need operands of one kind; multiply takes a scalar on one side; divide gives a
 * scalar for q/q and d/d. Quantities and durations come back as their canonical strings.
 */
import { JmesFailure } from '../types.js';
import { goFormatFloatG } from '../values.js';
import {
  durationFromFloatNs,
  durationSeconds,
  formatDuration,
  parseDuration,
  SECOND,
} from './duration.js';
import {
  addQuantities,
  divideQuantityRoundDown,
  formatQuantity,
  multiplyQuantities,
  parseQuantity,
  quantityFromInteger,
  quantityToFloat,
  type Quantity,
} from './quantity.js';
import { expectNumber, withTwo, intNumber, kyvernoError, type FunctionSpec } from './registry.js';

type Operand = { kind: 'scalar'; n: number } | { kind: 'quantity'; q: Quantity } | { kind: 'duration'; d: bigint };

function toOperand(v: unknown): Operand | undefined {
  if (typeof v === 'number') return { kind: 'scalar', n: v };
  if (typeof v === 'string') {
    const q = parseQuantity(v);
    if (q !== undefined) return { kind: 'quantity', q };
    const d = parseDuration(v);
    if (d.ok) return { kind: 'duration', d: d.ns };
  }
  return undefined;
}

function operands(args: unknown[], fn: string): [Operand, Operand] | JmesFailure {
  const a = toOperand(args[0]);
  const b = toOperand(args[1]);
  if (a === undefined || b === undefined) return kyvernoError(fn, 'invalid operands');
  return [a, b];
}

const mismatch = (fn: string): JmesFailure => kyvernoError(fn, 'Types mismatch');
const zeroDivisor = (fn: string): JmesFailure => kyvernoError(fn, 'Zero divisor passed');
const nonIntModulo = (): JmesFailure => kyvernoError('modulo', 'Non-integer argument(s) passed for modulo');

/** A scalar turned into a quantity the way arithmetic.go does it: ParseQuantity(fmt.Sprintf("%v", f)). */
function scalarQuantity(n: number): Quantity | undefined {
  return parseQuantity(goFormatFloatG(n));
}

function add(a: Operand, b: Operand, fn: string, negate: boolean): unknown {
  if (a.kind === 'scalar' && b.kind === 'scalar') return negate ? a.n - b.n : a.n + b.n;
  if (a.kind === 'quantity' && b.kind === 'quantity') return formatQuantity(addQuantities(a.q, b.q, negate));
  if (a.kind === 'duration' && b.kind === 'duration') return formatDuration(clampInt64(negate ? a.d - b.d : a.d + b.d));
  return mismatch(fn);
}

/** Go int64 arithmetic wraps around; keep results in range the same way. */
function clampInt64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

function multiply(a: Operand, b: Operand): unknown {
  if (a.kind === 'scalar' && b.kind === 'scalar') return a.n * b.n;
  if (a.kind === 'scalar') return multiply(b, a);
  if (b.kind !== 'scalar') return mismatch('multiply');
  if (a.kind === 'quantity') {
    const q = scalarQuantity(b.n);
    if (q === undefined) return kyvernoError('multiply', 'quantities must match the regular expression');
    return formatQuantity(multiplyQuantities(a.q, q));
  }
  const seconds = durationSeconds(a.d) * b.n;
  return formatDuration(durationFromFloatNs(seconds * 1e9));
}

function divide(a: Operand, b: Operand): unknown {
  if (a.kind === 'quantity') {
    if (b.kind === 'quantity') {
      const divisor = quantityToFloat(b.q);
      if (divisor === 0) return zeroDivisor('divide');
      return quantityToFloat(a.q) / divisor;
    }
    if (b.kind === 'scalar') {
      if (b.n === 0) return zeroDivisor('divide');
      const q = scalarQuantity(b.n);
      if (q === undefined) return kyvernoError('divide', 'quantities must match the regular expression');
      return formatQuantity(divideQuantityRoundDown(a.q, q));
    }
    return mismatch('divide');
  }
  if (a.kind === 'duration') {
    if (b.kind === 'duration') {
      if (durationSeconds(b.d) === 0) return zeroDivisor('divide');
      return durationSeconds(a.d) / durationSeconds(b.d);
    }
    if (b.kind === 'scalar') {
      if (b.n === 0) return zeroDivisor('divide');
      const seconds = durationSeconds(a.d) / b.n;
      return formatDuration(durationFromFloatNs(seconds * Number(SECOND)));
    }
    return mismatch('divide');
  }
  if (b.kind !== 'scalar') return mismatch('divide');
  if (b.n === 0) return zeroDivisor('divide');
  return a.n / b.n;
}

/** Go's int64(f): truncation; values out of range are reported as non-integers here. */
function asInt64(f: number): bigint | undefined {
  if (!Number.isFinite(f) || Math.trunc(f) !== f) return undefined;
  return BigInt(f);
}

function modulo(a: Operand, b: Operand): unknown {
  if (a.kind === 'quantity' && b.kind === 'quantity') {
    const i1 = asInt64(quantityToFloat(a.q));
    const i2 = asInt64(quantityToFloat(b.q));
    if (i1 === undefined || i2 === undefined) return nonIntModulo();
    if (i2 === 0n) return zeroDivisor('modulo');
    return formatQuantity(quantityFromInteger(i1 % i2, a.q.format));
  }
  if (a.kind === 'duration' && b.kind === 'duration') {
    if (b.d === 0n) return zeroDivisor('modulo');
    return formatDuration(a.d % b.d);
  }
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    const i1 = asInt64(a.n);
    const i2 = asInt64(b.n);
    if (i1 === undefined || i2 === undefined) return nonIntModulo();
    if (i2 === 0n) return zeroDivisor('modulo');
    return Number(i1 % i2);
  }
  return mismatch('modulo');
}

/** math.Round: half away from zero, exact for every float64. */
function goRound(x: number): number {
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

function binary(name: string, op: (a: Operand, b: Operand) => unknown): FunctionSpec {
  return {
    name,
    args: [['any'], ['any']],
    handler: (args) => {
      const ops = operands(args, name);
      if (ops instanceof JmesFailure) return ops;
      return op(ops[0], ops[1]);
    },
  };
}

export const ARITHMETIC_FUNCTIONS: FunctionSpec[] = [
  binary('add', (a, b) => add(a, b, 'add', false)),
  binary('subtract', (a, b) => add(a, b, 'subtract', true)),
  binary('multiply', multiply),
  binary('divide', divide),
  binary('modulo', modulo),
  {
    name: 'sum',
    args: [['array']],
    handler: ([items]) => {
      const list = items as unknown[];
      if (list.length === 0) return kyvernoError('sum', 'at least one element in the array is required');
      let result: unknown = list[0];
      for (let i = 1; i < list.length; i++) {
        const ops = operands([result, list[i]], 'sum');
        if (ops instanceof JmesFailure) return ops;
        result = add(ops[0], ops[1], 'sum', false);
        if (result instanceof JmesFailure) return result;
      }
      return result;
    },
  },
  {
    name: 'round',
    args: [['number'], ['number']],
    handler: withTwo('round', expectNumber, expectNumber, (x, digits) => {
      const n = intNumber(digits);
      if (typeof n === 'string') return kyvernoError('round', 'Non-integer argument(s) passed for round off');
      // error.go argOutOfBoundsError is formatted without its values upstream, hence Go's %!d(MISSING).
      if (n < 0) return kyvernoError('round', '%!d(MISSING) argument is out of bounds (%!d(MISSING))');
      const shift = Math.pow(10, n);
      return goRound(x * shift) / shift;
    }),
  },
];
