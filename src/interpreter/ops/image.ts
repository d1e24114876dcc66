import type { ImageOp } from '../../ir/nodes.js';
import { isDomain, joinImage, splitImage } from '../../k8s/image-ref.js';
import { evalFailure } from '../failure.js';
import { UNCHANGED, type Leaf } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';

/** Replaces the components of an image reference that the op sets; an absent field starts as "". */
export function imageLeaf(op: ImageOp): Leaf {
  // A domain-only edit of a reference that already starts with `<domain>/` splits that domain back and joins
  // to the same string: it is known unchanged without splitting (the common case from a fix-point's second
  // AssignImage on, and in every later pass).
  const d = op.domain;
  const keptPrefix = d !== undefined && d !== '' && op.repo === undefined && op.tag === undefined && !d.includes('/') && isDomain(d) ? d + '/' : undefined;
  return (old, exists) => {
    if (exists && typeof old !== 'string') throw evalFailure('TM3001', 'expected value at AssignImage location to be a string', op.origin);
    if (keptPrefix !== undefined && exists && (old as string).startsWith(keptPrefix)) return UNCHANGED;
    const current = typeof old === 'string' ? old : '';
    const parts = splitImage(current);
    const next = joinImage({
      domain: op.domain ?? parts.domain,
      path: op.repo ?? parts.path,
      tag: op.tag ?? parts.tag,
    });
    return exists && next === current ? UNCHANGED : next;
  };
}

export function compileImage(op: ImageOp, walker?: PathWalker): OpFn {
  const leaf = imageLeaf(op);
  return (st, scope) => {
    writePath(st, scope, op.path, leaf, true, op.origin, walker);
    return scope;
  };
}
