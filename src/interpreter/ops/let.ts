import type { LetOp } from '../../ir/nodes.js';
import { lazyBinding } from '../scope.js';
import { compileValue } from '../values.js';
import type { OpFn } from './types.js';

export function compileLet(op: LetOp): OpFn {
  const value = compileValue(op.value);
  if (op.lazy) return (st, scope) => scope.with(op.name, lazyBinding(value, st, scope));
  return (st, scope) => scope.with(op.name, { value: value(st, scope) });
}
