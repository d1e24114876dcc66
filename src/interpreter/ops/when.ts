import type { WhenOp } from '../../ir/nodes.js';
import { compileGuard } from '../guards.js';
import type { OpFn } from './types.js';
import { compileBlock } from './block.js';

export function compileWhen(op: WhenOp): OpFn {
  const guard = compileGuard(op.guard);
  const then = compileBlock(op.then);
  const otherwise = op.else ? compileBlock(op.else) : undefined;
  return (st, scope) => {
    if (guard(st, scope)) then(st, scope);
    else if (otherwise) otherwise(st, scope);
    return scope;
  };
}
