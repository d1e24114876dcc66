import { jsonEqual, type JsonValue } from '../../ir/json.js';
import type { SetMembersOp } from '../../ir/nodes.js';
import { evalFailure } from '../failure.js';
import { compileValue } from '../values.js';
import { TOUCHED, UNCHANGED, type Leaf } from '../walk.js';
import { writePath, type PathWalker } from '../write.js';
import type { OpFn } from './types.js';

/** Go's `%v` of a decoded JSON value, close enough for the error message. */
function goValue(v: JsonValue | undefined): string {
  return v === null || v === undefined ? '<nil>' : typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * The leaf of a ModifySet with its values computed. Gatekeeper ModifySet (modifyset/modify_set_mutator.go setter.SetValue): `merge` appends each value not
 * already present (deep, type-sensitive equality, values appended in this pass included); `prune` keeps the
 * elements equal to none of the values. A present value that is not a list (`null` included) is an error.
 * Upstream quirks kept: merge into a missing key stores the values verbatim, duplicates and all; prune of a
 * missing key writes nothing but still counts as a mutation, so the parents created on the way stay.
 */
export function setMembersLeaf(op: SetMembersOp, members: readonly JsonValue[]): Leaf {
  return (old, exists) => {
    if (!exists) return op.mode === 'merge' ? members.slice() : TOUCHED;
    if (!Array.isArray(old)) throw evalFailure('TM3001', `${goValue(old)} is not a list of values, cannot treat it as a set`, op.origin);
    if (op.mode === 'merge') {
      let out: JsonValue[] | undefined;
      for (const m of members) {
        const list = out ?? old;
        // A scalar equals exactly the identical scalars (jsonEqual), which indexOf finds without a closure.
        const present = m === null || typeof m !== 'object' ? list.indexOf(m) >= 0 : list.some((el) => jsonEqual(el, m));
        if (!present) (out ??= old.slice()).push(m);
      }
      return out ?? UNCHANGED;
    }
    const kept = old.filter((el) => !members.some((m) => jsonEqual(el, m)));
    return kept.length === old.length ? UNCHANGED : kept;
  };
}

export function compileSetMembers(op: SetMembersOp, walker?: PathWalker): OpFn {
  const values = op.values.map(compileValue);
  return (st, scope) => {
    const members = values.map((v) => v(st, scope));
    writePath(st, scope, op.path, setMembersLeaf(op, members), true, op.origin, walker);
    return scope;
  };
}
