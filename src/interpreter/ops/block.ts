import type { Op } from '../../ir/nodes.js';
import { compileOp } from './index.js';
import type { OpFn } from './types.js';

/** A sequence of ops; `let` bindings are visible to the ops after them. */
export function compileBlock(ops: readonly Op[]): OpFn {
  const fns = ops.map(compileOp);
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
