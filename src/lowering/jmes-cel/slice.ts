/**
 * `[start:stop:step]` as go-jmespath slices (util.go capSlice): bounds are capped to the length, negative
 * ones count from the end, and the default start/stop depend on the step's sign. Lists and strings (as
 * runes, Kyverno's fork) are sliced; anything else is null; a zero step fails on a list and is null on a
 * string. Every slice is one two-variable comprehension over the list itself, `l.transformList(j, _,
 * j < count, l[from + j*step])`, which works for any step and needs no ext.Lists (Kubernetes 1.32).
 */
import { bind, cond, fail, frag, NULL, type Frag } from './frag.js';
import type { Cx } from './context.js';

/** CEL for capSlice(len, n, step) with a static n (null: the default for that end). */
function cap(len: string, n: number | null, step: number, end: 'start' | 'stop'): string {
  if (n === null) {
    if (end === 'start') return step < 0 ? `${len} - 1` : '0';
    return step < 0 ? '-1' : len;
  }
  if (n < 0) return `(${len} + ${n} < 0 ? ${step < 0 ? -1 : 0} : ${len} + ${n})`;
  return `(${n} >= ${len} ? ${step < 0 ? `${len} - 1` : len} : ${n})`;
}

function sliceList(l: string, start: number | null, stop: number | null, step: number, cx: Cx): string {
  const len = `size(${l})`;
  const from = cap(len, start, step, 'start');
  const to = cap(len, stop, step, 'stop');
  const j = cx.names.fresh('j');
  const x = cx.names.fresh('x');
  if (step === 1 && start === null) return `${l}.transformList(${j}, ${x}, ${j} < ${to}, ${x})`;
  const count =
    step > 0
      ? `(${from} < ${to} ? (${to} - ${from} - 1) / ${step} + 1 : 0)`
      : `(${from} > ${to} ? (${from} - ${to} - 1) / ${-step} + 1 : 0)`;
  return `${l}.transformList(${j}, ${x}, ${j} < ${count}, ${l}[${from} + ${j} * ${step}])`;
}

export function slice(v: Frag, parts: [number | null, number | null, number | null], cx: Cx): Frag {
  const [start, stop, stepPart] = parts;
  const step = stepPart ?? 1;
  return bind(v, cx.names, (x) => {
    const o = x.atom ? x.cel : `(${x.cel})`;
    const asList = step === 0 ? fail('Invalid slice, step cannot be 0') : frag(sliceList(o, start, stop, step, cx), 'list', { atom: true });
    const chars = `${o}.split("")`;
    const asString = step === 0 ? NULL : frag(`${sliceList(chars, start, stop, step, cx)}.join("")`, 'string', { atom: true });
    if (x.t === 'list') return asList;
    if (x.t === 'string') return asString;
    if (x.t !== 'dyn') return NULL;
    return cond(`type(${x.cel}) == list`, asList, cond(`type(${x.cel}) == string`, asString, NULL));
  });
}
