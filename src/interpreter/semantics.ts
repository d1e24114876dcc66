import { diagnostic } from '../diagnostics/diagnostic.js';
import { jsonEqual } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import type { CompiledPolicy } from './compile.js';
import { evalFailure } from './failure.js';
import { RequestDenied, runPolicy } from './run-policy.js';
import type { EvalState } from './state.js';
import { newEpoch } from './walk.js';

/**
 * A unit of execution. Each engine's system runs as a whole at the position of its first policy:
 * Kyverno policies one by one, all Gatekeeper (fix-point) policies together, all MAP (ordered) policies together.
 */
export type Unit =
  | { kind: 'sequential'; policy: CompiledPolicy }
  | {
      kind: 'fixpoint';
      policies: CompiledPolicy[];
      maxPasses: number;
      /** Proven (src/compile/fixpoint.ts) that a pass after one that changed the object changes nothing. */
      singlePass?: boolean;
    }
  | { kind: 'ordered'; policies: CompiledPolicy[] };

/** Groups policies into units. `all` is the full set (for the fix-point bound); `candidates` those that may match. */
export function plan(all: readonly Policy[], candidates: readonly CompiledPolicy[]): Unit[] {
  const units: Unit[] = [];
  let fixpoint: Extract<Unit, { kind: 'fixpoint' }> | undefined;
  let ordered: Extract<Unit, { kind: 'ordered' }> | undefined;
  for (const cp of candidates) {
    switch (cp.policy.semantics.order) {
      case 'sequential':
        units.push({ kind: 'sequential', policy: cp });
        break;
      case 'fixpoint':
        if (!fixpoint) {
          // Gatekeeper's system allows (installed mutators + 1) iterations (pkg/mutation/system.go).
          const size = all.filter((p) => p.semantics.order === 'fixpoint').length;
          const explicit = all.find((p) => p.semantics.order === 'fixpoint' && p.semantics.maxPasses !== undefined)?.semantics.maxPasses;
          fixpoint = { kind: 'fixpoint', policies: [], maxPasses: explicit ?? size + 1 };
          units.push(fixpoint);
        }
        fixpoint.policies.push(cp);
        break;
      case 'ordered':
        if (!ordered) {
          ordered = { kind: 'ordered', policies: [] };
          units.push(ordered);
        }
        ordered.policies.push(cp);
        break;
    }
  }
  return units;
}

export function runUnit(unit: Unit, st: EvalState): void {
  switch (unit.kind) {
    case 'sequential':
      runPolicy(unit.policy, st);
      return;
    case 'fixpoint':
      return runFixpoint(unit, st);
    case 'ordered':
      return runOrdered(unit, st);
  }
}

/**
 * Repeats all fix-point policies in order until a pass leaves the object as it found it (deep comparison,
 * pkg/mutation/system.go); exceeding the bound is an error that fails the request.
 */
function runFixpoint(unit: Extract<Unit, { kind: 'fixpoint' }>, st: EvalState): void {
  // Policies whose ops reached their place in a non-final pass: Gatekeeper's appliedMutations, which name the
  // mutators in the `gatekeeper.sh/mutations` annotation (a setter call counts, changed or not).
  const applied = st.onFixpointConverged ? new Set<Policy>() : undefined;
  for (let pass = 1; pass <= unit.maxPasses; pass++) {
    const snapshot = st.object;
    // The snapshot is compared after the pass, so nothing in it may be written in place: the pass starts a
    // new epoch, which its policies then share (runPolicy keepOwned). Any change in the pass therefore
    // replaces the root, and the first policy to change something reports it.
    st.owned = newEpoch();
    let changed = false;
    const appliedNow: Policy[] = [];
    for (const cp of unit.policies) {
      const writes = st.writes;
      changed = runPolicy(cp, st, pass, true) || changed;
      if (applied && st.writes !== writes) appliedNow.push(cp.policy);
    }
    st.trace?.push({ policy: '*', node: 'pass', outcome: changed ? 'applied' : 'unchanged', pass });
    if (!changed || jsonEqual(snapshot, st.object)) {
      if (pass > 1 && applied && st.onFixpointConverged && st.object !== null) st.object = st.onFixpointConverged(st.object, [...applied]);
      return;
    }
    for (const p of appliedNow) applied?.add(p);
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

/**
 * Runs policies once in order, then reinvokes, once, the `ifNeeded` policies that ran before a later change
 * (kube-apiserver mutating dispatcher bookkeeping: previouslyInvoked / reinvokeSet, MAP brief §3.5).
 */
function runOrdered(unit: Extract<Unit, { kind: 'ordered' }>, st: EvalState): void {
  let previouslyInvoked = new Set<CompiledPolicy>();
  const reinvoke = new Set<CompiledPolicy>();
  let shouldReinvoke = false;
  const step = (cp: CompiledPolicy, pass: number) => {
    const changed = runPolicy(cp, st, pass);
    if (changed) {
      for (const p of previouslyInvoked) reinvoke.add(p);
      previouslyInvoked = new Set();
      shouldReinvoke = true;
    }
    if (cp.policy.semantics.reinvocation === 'ifNeeded') previouslyInvoked.add(cp);
  };
  for (const cp of unit.policies) step(cp, 1);
  if (!shouldReinvoke || reinvoke.size === 0) return;
  for (const cp of unit.policies) if (reinvoke.has(cp)) step(cp, 2);
}

export function deniedDiagnostic(denied: RequestDenied) {
  const d = denied.failure.diagnostic;
  return diagnostic(d.code, { phase: 'eval', message: d.message, span: d.span, dialect: d.dialect, severity: 'error' });
}
