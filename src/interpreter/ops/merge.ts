import { copyObject, defineOwn, hasOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch, type Owned } from '../walk.js';
import type { MergeOp } from '../../ir/nodes.js';
import { EvalFailure, evalFailure } from '../failure.js';
import { compileValue, compileValueNode } from '../values.js';
import { UNCHANGED } from '../walk.js';
import { evalMemo, type EvalState } from '../state.js';
import { writePath } from '../write.js';
import type { OpFn } from './types.js';
import { applyConfigurationTemplate } from '../../compile/apply-template.js';
import { celSyntax } from '../../compile/cel-syntax.js';
import { PatchShape } from '../../merge/ssa/fused-plan.js';

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

/** Returned by mergeWith when the engine changed `old` in place (owned maps) and kept its identity. */
const IN_PLACE: unique symbol = Symbol('in place');

/** The merged value, UNCHANGED when it equals `old`, or IN_PLACE (only with `owned`). */
function mergeWith(op: MergeOp, old: JsonValue | undefined, patch: JsonValue, st: EvalState, owned?: Owned, patchShape?: PatchShape): JsonValue | typeof UNCHANGED | typeof IN_PLACE {
  if (op.strategy === 'json') {
    const merged = jsonMergePatch(old, patch);
    return old !== undefined && sameJson(merged, old) ? UNCHANGED : merged;
  }
  const engine = st.runtime.merges[op.strategy];
  if (!engine) throw evalFailure('TM3005', `the ${op.strategy === 'smp' ? 'strategic merge' : 'structured merge'} engine is not available`, op.origin);
  const r = engine(old, patch, owned ? { op, request: st.request, runtime: st.runtime, memo: evalMemo(st), owned, patchShape } : { op, request: st.request, runtime: st.runtime, memo: evalMemo(st), patchShape });
  if (!r.ok) throw new EvalFailure(r.diagnostic);
  const merged = r.value;
  if (old === undefined) return merged;
  if (merged === old) return r.inPlace === true ? IN_PLACE : UNCHANGED;
  return engine.identityExact !== true && sameJson(merged, old) ? UNCHANGED : merged;
}

/**
 * The maps earlier root merges created that this one may write in place (EngineContext.owned): those of the
 * current epoch, unless the patch holds one of them (a value read from the object and put in the patch would
 * then have two parents). Evaluating the patch may itself end the epoch (a lazy variable storing a read value).
 */
function ownedMaps(st: EvalState, epoch: Owned, patch: JsonValue, literal: boolean): Owned {
  const merges = st.merges;
  if (merges !== undefined && merges.epoch === epoch && st.owned === epoch && (literal || !holdsAny(patch, merges.owned))) return merges.owned;
  return newEpoch();
}

/**
 * Whether `v` is or holds one of the `owned` containers. A frozen container holds none: what is frozen was
 * frozen whole before the evaluation made any map (compiled constants, src/cel/mutation.ts constantObjectJson;
 * inputs a caller froze), and owned maps are written in place, so never frozen.
 */
export function holdsAny(v: JsonValue, owned: Owned): boolean {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return false;
  if (owned.has(v)) return true;
  // Scalars are tested here rather than in a call each: most of a patch's values are strings.
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (x !== null && typeof x === 'object' && holdsAny(x, owned)) return true;
    }
    return false;
  }
  for (const k in v) {
    const x = v[k]!;
    if (x !== null && typeof x === 'object' && holdsAny(x, owned)) return true;
  }
  return false;
}

/**
 * The keys of the patch of a structured merge at the root whose CEL expression is an `Object{...}` literal
 * (a MAP ApplyConfiguration), for the engine to plan its walk by (merge/ssa/fused-plan.ts); one per op, so
 * that its plan is made once.
 */
export function patchShapeOf(op: MergeOp): PatchShape | undefined {
  if (op.strategy !== 'ssa' || op.value.kind !== 'cel') return undefined;
  const template = applyConfigurationTemplate(celSyntax(op.value.expr));
  return template === undefined ? undefined : new PatchShape(template);
}

export function compileMerge(op: MergeOp): OpFn {
  const atRoot = op.path.root === 'object' && op.path.segments.length === 0;
  // At the root, the patch's own end of in-place writes (compileValue) comes after the merge, in `finally`.
  const value = atRoot && op.strategy !== 'json' ? compileValueNode(op.value) : compileValue(op.value);
  const literal = op.value.kind === 'literal';
  const shape = atRoot ? patchShapeOf(op) : undefined;
  return (st, scope) => {
    const epoch = st.owned;
    const patch = value(st, scope);
    if (atRoot) {
      mergeIntoRoot(op, st, epoch, patch, literal, shape);
      return scope;
    }
    try {
      writePath(
        st,
        scope,
        op.path,
        // `old` is undefined exactly when the place does not exist (walk.ts).
        (old) => mergeWith(op, old, patch, st) as JsonValue | typeof UNCHANGED,
        true,
        op.origin,
      );
      return scope;
    } finally {
      st.owned = newEpoch();
      st.merges = undefined;
    }
  };
}

/**
 * The merge op at the root once its patch is evaluated: `epoch` is `st.owned` from before the evaluation
 * (which may have ended it), `literal` whether the patch is the op's literal value. Also the general path of
 * src/compile/smp-for-each.ts, for an element its compiled merges do not take. `shape`: the keys the patch
 * was built with (patchShapeOf).
 */
export function mergeIntoRoot(op: MergeOp, st: EvalState, epoch: Owned, patch: JsonValue, literal: boolean, shape?: PatchShape): void {
  let owned: Owned | undefined;
  try {
    // A merge into the whole object (MAP ApplyConfiguration, patch/smd.go) has no parent to write through.
    if (op.strategy !== 'json' && st.runtime.merges[op.strategy]?.writesOwned === true) owned = ownedMaps(st, epoch, patch, literal);
    const merged = mergeWith(op, st.object ?? undefined, patch, st, owned, shape);
    // MAP's dispatcher re-defaults the typed object after each mutation (Runtime.defaulter).
    const redefault = op.strategy === 'ssa' && op.origin.dialect === 'map' ? st.runtime.defaulter : undefined;
    if (merged === IN_PLACE) {
      // Same identity, new content: what was derived from the object by identity is stale.
      st.matchRequest = undefined;
      if (redefault) st.object = redefault(st.object!);
    } else if (merged !== UNCHANGED) st.object = redefault ? redefault(merged) : merged;
  } finally {
    // Merge results share subtrees with the patch value and the target: nothing is owned any more. Also
    // when the merge failed: the engine saw the target's containers, and engines may keep facts about them
    // for the whole evaluation (EvalMemo), so they must never be written in place again. Only the merge
    // engine writes in place into the maps it created itself (EngineContext.owned), until the next epoch.
    st.owned = newEpoch();
    st.merges = owned === undefined ? undefined : { epoch: st.owned, owned };
  }
}
