import { hasOwn, isJsonObject, jsonEqual, type JsonValue } from '../../ir/json.js';
import type { SetOp } from '../../ir/nodes.js';
import { EvalFailure, evalFailure } from '../failure.js';
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

const NOT_READ: unique symbol = Symbol('not read');

export function compileSet(op: SetOp, walker?: PathWalker): OpFn {
  const value = compileValue(op.value);
  const dependsOnCurrent = op.value.kind === 'external';
  // A value read from the documents (a ref, an expression, a template) may hold the containers this write goes
  // through, which the walk would write in place, storing a container inside itself. Reading it ends in-place
  // writes (values.ts compileValue), so it is read before the walk starts, which then copies them; its failure
  // is the leaf's, as if it were read there (a walk that reaches no place never fails for its value).
  const readFirst = op.value.kind !== 'literal' && op.value.kind !== 'fromMetadata' && !dependsOnCurrent;
  // The leaf is built once per op; the state of the execution in progress lives in these cells (an op never
  // runs inside its own leaf, so they are never shared by two executions at once).
  let curSt: EvalState;
  let curScope: Scope;
  let cached: JsonValue | typeof NOT_READ = NOT_READ;
  let failure: EvalFailure | undefined;
  const leaf = setLeaf(op, (current) => {
    if (dependsOnCurrent) return value(curSt, curScope, current);
    if (failure !== undefined) throw failure;
    if (cached === NOT_READ) cached = value(curSt, curScope);
    return cached;
  });
  return (st, scope) => {
    curSt = st;
    curScope = scope;
    cached = NOT_READ;
    failure = undefined;
    if (readFirst) {
      try {
        cached = value(st, scope);
      } catch (e) {
        if (!(e instanceof EvalFailure)) throw e;
        failure = e;
      }
    }
    writePath(st, scope, op.path, leaf, true, op.origin, walker);
    return scope;
  };
}
