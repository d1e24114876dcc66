/**
 * Kyverno's arithmetic (arithmetic.go). Numbers are float64, so operands are converted with double() and
 * CEL's double arithmetic is Go's. Operands may also be Kubernetes quantities ("100Mi") or Go durations
 * ("1h"), whose results Kyverno prints in their canonical string forms. add and subtract of two quantity
 * strings are computed with the Kubernetes quantity library and printed as Quantity.String() does, for a
 * whole-number result within int64 (quantity.ts); other quantity and duration operands make the CEL fail,
 * with a note.
 */
import type { Cx } from './context.js';
import { cond, fail, frag, isNumeric, type Frag } from './frag.js';
import { quantityArithmetic, QUANTITY_NOTE } from './quantity.js';
import { assume, both, yet, type FnDef } from './table.js';
import { cannot } from './refuse.js';

const QD_NOTE =
  'Kyverno arithmetic (add, subtract, multiply, divide, modulo, sum) also takes Kubernetes quantities and Go durations as strings; the CEL computes numbers only and fails on those';

function isNum(v: Frag): string | boolean {
  if (isNumeric(v.t)) return true;
  if (v.t !== 'dyn') return false;
  return `(type(${v.cel}) == int || type(${v.cel}) == double)`;
}

/** A CEL test that a (bound) operand is a quantity string, or false when its static type rules it out. */
function isQuantityString(v: Frag): string | false {
  if (v.t === 'string') return `isQuantity(${v.cel})`;
  return v.t === 'dyn' ? `(type(${v.cel}) == string && isQuantity(${v.cel}))` : false;
}

/**
 * add/subtract (arithmetic.go): number ± number is a number, quantity ± quantity a quantity string (a
 * string operand is a quantity first, a duration second); any other pair is an error in Kyverno too.
 */
function additive(a: Frag, b: Frag, cx: Cx, fn: 'add' | 'subtract', body: () => Frag): Frag {
  const ta = isNum(a);
  const tb = isNum(b);
  if (ta === true && tb === true) return body();
  const qa = isQuantityString(a);
  const qb = isQuantityString(b);
  const mismatch = fail(`${fn}(): only numbers and quantity strings are computed in CEL (not durations), both of one kind`);
  const quantities = qa === false || qb === false ? mismatch : cond(`${qa} && ${qb}`, quantityArithmetic(a, b, fn === 'add' ? 'add' : 'sub', cx), mismatch);
  cx.notes.add(QUANTITY_NOTE);
  if (ta === false || tb === false) return quantities;
  const tests = [ta, tb].filter((t): t is string => typeof t === 'string');
  return cond(tests.join(' && '), body(), quantities);
}

function numeric(a: Frag, b: Frag, cx: Cx, fn: string, body: () => Frag): Frag {
  const ta = isNum(a);
  const tb = isNum(b);
  if (ta === true && tb === true) return body();
  if (a.t === 'string' || b.t === 'string') {
    // A string operand is a quantity or a duration (or an error): its result is a canonical string CEL cannot print.
    cannot(`${fn}() of a quantity or duration string: the Kubernetes CEL environment cannot print a quantity (or a Go duration) in Kyverno's canonical text`);
  }
  cx.notes.add(QD_NOTE);
  const failure = fail(`${fn}(): only numbers are computed in CEL (quantities and durations are not)`);
  if (ta === false || tb === false) return failure;
  const tests = [ta, tb].filter((t): t is string => typeof t === 'string');
  return cond(tests.join(' && '), body(), failure);
}

const d = (v: Frag): string => (v.t === 'double' ? v.cel : `double(${v.cel})`);

const ARITH = assume('double() arithmetic on numbers (float64, as Kyverno)', 'the operands are numbers, not quantity or duration strings (the CEL fails on those)');
const ADDITIVE = assume(
  'double() arithmetic on numbers (float64, as Kyverno); quantity strings with the quantity library, printed in canonical form',
  'the operands are numbers, or quantity strings whose result is a whole number within int64 (the CEL fails on other quantities and on durations)',
);

export const ARITHMETIC: FnDef[] = [
  { name: 'add', ...both(ADDITIVE), emit: ([a, b], { cx }) => additive(a!, b!, cx, 'add', () => frag(`${d(a!)} + ${d(b!)}`, 'double')) },
  { name: 'subtract', ...both(ADDITIVE), emit: ([a, b], { cx }) => additive(a!, b!, cx, 'subtract', () => frag(`${d(a!)} - ${d(b!)}`, 'double')) },
  { name: 'multiply', ...both(ARITH), emit: ([a, b], { cx }) => numeric(a!, b!, cx, 'multiply', () => frag(`${d(a!)} * ${d(b!)}`, 'double')) },
  {
    name: 'divide',
    ...both(ARITH),
    emit: ([a, b], { cx }) => numeric(a!, b!, cx, 'divide', () => cond(`${d(b!)} == 0.0`, fail("divide(): Zero divisor passed"), frag(`${d(a!)} / ${d(b!)}`, 'double'))),
  },
  {
    name: 'modulo',
    ...both(ARITH),
    emit: ([a, b], { cx }) =>
      numeric(a!, b!, cx, 'modulo', () =>
        cond(
          `double(int(${a!.cel})) != ${d(a!)} || double(int(${b!.cel})) != ${d(b!)}`,
          fail('modulo(): Non-integer argument(s) passed for modulo'),
          cond(`int(${b!.cel}) == 0`, fail('modulo(): Zero divisor passed'), frag(`int(${a!.cel}) % int(${b!.cel})`, 'int')),
          true,
        ),
      ),
  },
  {
    name: 'sum',
    ...both(assume('sum() of the doubles in order; a one-element list is its element, an empty list an error (as Kyverno)', 'the elements are numbers, not quantity or duration strings (the CEL fails on those)')),
    emit: ([l], { cx }) => {
      const x = cx.names.fresh('x');
      cx.notes.add(QD_NOTE);
      return cond(
        `size(${l!.cel}) == 0`,
        fail('sum(): at least one element in the array is required'),
        cond(
          `size(${l!.cel}) == 1`,
          frag(`${l!.cel}[0]`, 'dyn', { atom: true }),
          cond(`${l!.cel}.all(${x}, type(${x}) == int || type(${x}) == double)`, frag(`${l!.cel}.map(${x}, double(${x})).sum()`, 'double', { atom: true }), fail('sum(): only numbers are computed in CEL (quantities and durations are not)')),
        ),
      );
    },
  },
  { name: 'round', ...both(yet('math.Round to n digits (no math.round in the Kubernetes environment; expressible with int() truncation)')) },
];
