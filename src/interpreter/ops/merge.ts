import { copyObject, defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch } from '../walk.js';
import type { MergeOp } from '../../ir/nodes.js';
import { EvalFailure, evalFailure } from '../failure.js';
import { compileValue } from '../values.js';
import { UNCHANGED } from '../walk.js';
import { evalMemo, type EvalState } from '../state.js';
import { writePath } from '../write.js';
import type { OpFn } from './types.js';

/** RFC 7386 JSON merge patch: maps merge recursively, `null` deletes, everything else replaces. */
export function jsonMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const base: JsonObject = isJsonObject(target) ? target : {};
  let out: JsonObject | undefined;
  for (const k of Object.keys(patch)) {
    const pv = patch[k]!;
    if (pv === null) {
      if (hasOwn(base, k)) {
        out ??= copyObject(base);
        delete out[k];
      }
      continue;
    }
    const cur = hasOwn(base, k) ? base[k] : undefined;
    const merged = jsonMergePatch(cur, pv);
    if (cur !== undefined && jsonEqual(cur, merged)) continue;
    out ??= copyObject(base);
    defineOwn(out, k, merged);
  }
  return out ?? (isJsonObject(target) ? target : base);
}

/** The merged value, or UNCHANGED when it equals `old`. */
function mergeWith(op: MergeOp, old: JsonValue | undefined, patch: JsonValue, st: EvalState): JsonValue | typeof UNCHANGED {
  if (op.strategy === 'json') {
    const merged = jsonMergePatch(old, patch);
    return old !== undefined && sameJson(merged, old) ? UNCHANGED : merged;
  }
  const engine = st.runtime.merges[op.strategy];
  if (!engine) throw evalFailure('TM3005', `the ${op.strategy === 'smp' ? 'strategic merge' : 'structured merge'} engine is not available`, op.origin);
  const r = engine(old, patch, { op, request: st.request, runtime: st.runtime, memo: evalMemo(st) });
  if (!r.ok) throw new EvalFailure(r.diagnostic);
  const merged = r.value;
  if (old === undefined) return merged;
  return merged === old || (engine.identityExact !== true && sameJson(merged, old)) ? UNCHANGED : merged;
}

export function compileMerge(op: MergeOp): OpFn {
  const value = compileValue(op.value);
  const atRoot = op.path.root === 'object' && op.path.segments.length === 0;
  return (st, scope) => {
    const patch = value(st, scope);
    try {
      if (atRoot) {
        // A merge into the whole object (MAP ApplyConfiguration, patch/smd.go) has no parent to write through.
        const merged = mergeWith(op, st.object ?? undefined, patch, st);
        // MAP's dispatcher re-defaults the typed object after each mutation (Runtime.defaulter).
        const redefault = op.strategy === 'ssa' && op.origin.dialect === 'map' ? st.runtime.defaulter : undefined;
        if (merged !== UNCHANGED) st.object = redefault ? redefault(merged) : merged;
        return scope;
      }
      writePath(
        st,
        scope,
        op.path,
        // `old` is undefined exactly when the place does not exist (walk.ts).
        (old) => mergeWith(op, old, patch, st),
        true,
        op.origin,
      );
      return scope;
    } finally {
      // Merge results share subtrees with the patch value and the target: nothing is owned any more. Also
      // when the merge failed: the engine saw the target's containers, and engines may keep facts about them
      // for the whole evaluation (EvalMemo), so they must never be written in place again.
      st.owned = newEpoch();
    }
  };
}
