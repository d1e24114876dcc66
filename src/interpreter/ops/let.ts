import type { LetOp } from '../../ir/nodes.js';
import { compileValue } from '../values.js';
import type { OpFn } from './types.js';

export function compileLet(op: LetOp): OpFn {
  const value = compileValue(op.value);
  if (op.lazy) return (st, scope) => scope.withLazy(op.name, value, st);
  return (st, scope) => scope.with(op.name, { value: value(st, scope) });
}
