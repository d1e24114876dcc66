import type { ImageOp } from '../../ir/nodes.js';
import { joinImage, splitImage } from '../../k8s/image-ref.js';
import { evalFailure } from '../failure.js';
import { UNCHANGED } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';

/** Replaces the components of an image reference that the op sets; an absent field starts as "". */
export function compileImage(op: ImageOp, walker?: PathWalker): OpFn {
  return (st, scope) => {
    writePath(
      st,
      scope,
      op.path,
      (old, exists) => {
        if (exists && typeof old !== 'string') throw evalFailure('TM3001', 'expected value at AssignImage location to be a string', op.origin);
        const current = typeof old === 'string' ? old : '';
        const parts = splitImage(current);
        const next = joinImage({
          domain: op.domain ?? parts.domain,
          path: op.repo ?? parts.path,
          tag: op.tag ?? parts.tag,
        });
        return exists && next === current ? UNCHANGED : next;
      },
      true,
      op.origin,
      walker,
    );
    return scope;
  };
}
