import type { Op, SetOp } from '../../ir/nodes.js';
import { compileFusedSets, isFusableSet } from './fused-sets.js';
import { compileOp } from './index.js';
import type { OpFn } from './types.js';

/** Compiles ops in order, running each stretch of two or more literal sets as one fused walk. */
export function compileOps(ops: readonly Op[]): OpFn[] {
  const fns: OpFn[] = [];
  for (let k = 0; k < ops.length; ) {
    let j = k;
    while (j < ops.length && isFusableSet(ops[j]!)) j++;
    if (j - k >= 2) {
      fns.push(compileFusedSets(ops.slice(k, j) as SetOp[]));
      k = j;
    } else fns.push(compileOp(ops[k++]!));
  }
  return fns;
}

/** A sequence of ops; `let` bindings are visible to the ops after them. */
export function compileBlock(ops: readonly Op[]): OpFn {
  return sequence(compileOps(ops));
}

/** Compiled ops run in order, each seeing the scope the one before it returned; the block's own scope is returned. */
export function sequence(fns: readonly OpFn[]): OpFn {
  if (fns.length === 1) {
    const only = fns[0]!;
    return (st, scope) => {
      only(st, scope);
      return scope;
    };
  }
  return (st, scope) => {
    let s = scope;
    for (const fn of fns) s = fn(st, s);
    return scope;
  };
}
