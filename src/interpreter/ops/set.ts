import { hasOwn, isJsonObject, jsonEqual, type JsonValue } from '../../ir/json.js';
import type { SetOp } from '../../ir/nodes.js';
import { evalFailure } from '../failure.js';
import { compileValue } from '../values.js';
import { UNCHANGED, type Leaf } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';
import type { Scope } from '../scope.js';
import type { EvalState } from '../state.js';

/**
 * The leaf of a set: the value it writes (computed at most once per execution, or per place for values that
 * depend on what is there) checked against Gatekeeper's keyed-list rules.
 */
export function setLeaf(op: SetOp, valueFor: (current: JsonValue | undefined) => JsonValue): Leaf {
  return (old, exists, seg) => {
    if (seg.kind === 'keyedGlob') throw evalFailure('TM3001', 'last path entry can not be globbed', op.origin);
    const v = valueFor(old);
    if (seg.kind === 'keyed') {
      // Gatekeeper replaces or appends the whole element and refuses to change its key
      // (core/mutation_function.go setListElementToValue).
      if (!isJsonObject(v)) throw evalFailure('TM3001', `the value for a keyed list entry must be an object, got ${JSON.stringify(v)}`, op.origin);
      if (!hasOwn(v, seg.key) || v[seg.key] !== seg.value) {
        throw evalFailure('TM3001', `key value of replaced object must not change: ${seg.key} must be ${JSON.stringify(seg.value)}`, op.origin);
      }
    }
    if (exists && jsonEqual(old, v)) return UNCHANGED;
    return v;
  };
}

export function compileSet(op: SetOp, walker?: PathWalker): OpFn {
  const value = compileValue(op.value);
  const dependsOnCurrent = op.value.kind === 'external';
  // The leaf is built once per op; the state of the execution in progress lives in these cells (an op never
  // runs inside its own leaf, so they are never shared by two executions at once).
  let curSt: EvalState;
  let curScope: Scope;
  let cached: JsonValue | undefined;
  const leaf = setLeaf(op, (current) => {
    if (dependsOnCurrent) return value(curSt, curScope, current);
    return (cached ??= value(curSt, curScope));
  });
  return (st, scope) => {
    curSt = st;
    curScope = scope;
    cached = undefined;
    writePath(st, scope, op.path, leaf, true, op.origin, walker);
    return scope;
  };
}
