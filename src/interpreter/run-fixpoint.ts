import { jsonEqual } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import { EvalFailure, evalFailure } from './failure.js';
import { isNonEmptyObject, RequestDenied, runPolicy, SharedMatches } from './run-policy.js';
import type { Unit } from './semantics.js';
import type { EvalState } from './state.js';
import { newEpoch } from './walk.js';

type FixpointUnit = Extract<Unit, { kind: 'fixpoint' }>;

/**
 * One whole pass of a fix-point unit (src/compile/fused-pass.ts): runs every policy of the pass in order on
 * `st`, marking in `applied` (when given) the index of each policy whose ops reached their place. An
 * EvalFailure it raises leaves `st` to be restored by the caller.
 */
export type FusedPass = (st: EvalState, pass: number, shared: SharedMatches, applied: Uint8Array | undefined) => void;

export interface FusedPasses {
  /** The pass program for this run's match outcomes, or undefined when the run must go policy by policy. */
  program(shared: SharedMatches, st: EvalState): FusedPass | undefined;
}

/** A pass policy by policy, the reference. Returns whether some policy changed the object. */
function passByPolicy(unit: FixpointUnit, st: EvalState, pass: number, shared: SharedMatches | undefined, appliedNow: Policy[] | undefined): boolean {
  let changed = false;
  for (let i = 0; i < unit.policies.length; i++) {
    const cp = unit.policies[i]!;
    const writes = st.writes;
    changed = runPolicy(cp, st, pass, true, shared, i) || changed;
    if (appliedNow && st.writes !== writes) appliedNow.push(cp.policy);
  }
  return changed;
}

/**
 * A pass as one generated program; false when it raised an error, with the state as the pass found it, so
 * that the pass runs again policy by policy and the error (or its rollback under failurePolicy ignore) is
 * the reference's.
 */
function fusedPass(unit: FixpointUnit, fused: FusedPass, st: EvalState, pass: number, shared: SharedMatches, appliedNow: Policy[] | undefined): boolean {
  const object = st.object;
  const writes = st.writes;
  const diagnostics = st.diagnostics.length;
  const placeholders = st.placeholders;
  const marks = appliedNow ? new Uint8Array(unit.policies.length) : undefined;
  try {
    fused(st, pass, shared, marks);
  } catch (e) {
    if (!(e instanceof EvalFailure)) throw e;
    st.object = object;
    st.writes = writes;
    st.diagnostics.length = diagnostics;
    st.placeholders = placeholders;
    st.owned = newEpoch();
    st.matchRequest = undefined;
    return false;
  }
  if (marks) marks.forEach((m, i) => m && appliedNow!.push(unit.policies[i]!.policy));
  return true;
}

/**
 * Repeats all fix-point policies in order until a pass leaves the object as it found it (deep comparison,
 * pkg/mutation/system.go); exceeding the bound is an error that fails the request.
 */
export function runFixpoint(unit: FixpointUnit, st: EvalState): void {
  // Policies whose ops reached their place in a non-final pass: Gatekeeper's appliedMutations, which name the
  // mutators in the `gatekeeper.sh/mutations` annotation (a setter call counts, changed or not).
  const applied = st.onFixpointConverged ? new Set<Policy>() : undefined;
  // The proof assumes an object that stays non-empty: an empty one is matched as absent (src/k8s/facts.ts).
  const shared = unit.matchSlots && isNonEmptyObject(st.object) ? new SharedMatches(unit.matchSlots) : undefined;
  const fused = shared && st.trace === undefined ? unit.fused?.program(shared, st) : undefined;
  for (let pass = 1; pass <= unit.maxPasses; pass++) {
    const snapshot = st.object;
    // The snapshot is compared after the pass, so nothing in it may be written in place: the pass starts a
    // new epoch, which its policies then share (runPolicy keepOwned). Any change in the pass therefore
    // replaces the root, and the first policy to change something reports it.
    st.owned = newEpoch();
    const appliedNow: Policy[] | undefined = applied ? [] : undefined;
    // A pass changed the object exactly when its root was replaced (see above).
    const changed =
      fused && fusedPass(unit, fused, st, pass, shared!, appliedNow) ? st.object !== snapshot : passByPolicy(unit, st, pass, shared, appliedNow);
    st.trace?.push({ policy: '*', node: 'pass', outcome: changed ? 'applied' : 'unchanged', pass });
    if (!changed || jsonEqual(snapshot, st.object)) {
      if (pass > 1 && applied && st.onFixpointConverged && st.object !== null) st.object = st.onFixpointConverged(st.object, [...applied]);
      return;
    }
    for (const p of appliedNow ?? []) applied?.add(p);
    // The next pass is proven idle: it would find nothing to change and converge (untraced runs only, so a
    // trace still shows every pass).
    if (pass === 1 && unit.singlePass === true && unit.maxPasses >= 2 && st.trace === undefined) {
      if (applied && st.onFixpointConverged && st.object !== null) st.object = st.onFixpointConverged(st.object, [...applied]);
      return;
    }
  }
  const ids = unit.policies.map((p) => p.policy.id).join(', ');
  throw new RequestDenied(
    evalFailure('TM3002', `mutation system did not converge after ${unit.maxPasses} passes (policies: ${ids})`, unit.policies[0]?.policy.origin),
  );
}
