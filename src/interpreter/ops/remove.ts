import type { RemoveOp } from '../../ir/nodes.js';
import { REMOVE, UNCHANGED, type Leaf } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';

const removeLeaf: Leaf = (_old, exists) => (exists ? REMOVE : UNCHANGED);

export function compileRemove(op: RemoveOp, walker?: PathWalker): OpFn {
  return (st, scope) => {
    writePath(st, scope, op.path, removeLeaf, false, op.origin, walker);
    return scope;
  };
}
