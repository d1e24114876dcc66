import type { RemoveOp } from '../../ir/nodes.js';
import { REMOVE, UNCHANGED } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';

export function compileRemove(op: RemoveOp, walker?: PathWalker): OpFn {
  return (st, scope) => {
    writePath(st, scope, op.path, (_old, exists) => (exists ? REMOVE : UNCHANGED), false, op.origin, walker);
    return scope;
  };
}
