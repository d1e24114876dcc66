import fastJsonPatch from 'fast-json-patch';
import { newEpoch } from './walk.js';
import type { Policy } from '../ir/nodes.js';
import type { AdmissionRequest, ApplyOptions, ApplyResult, Patch6902 } from './api.js';
import { compilePolicy } from './compile.js';
import { resolvePlaceholders } from './external.js';
import { EvalFailure } from './failure.js';
import { candidatesFor } from '../optimizer/kind-index.js';
import { RequestDenied } from './run-policy.js';
import { deniedDiagnostic, plan, runUnit, type Unit } from './semantics.js';
import type { EvalState, ExternalData, FixpointConverged } from './state.js';

export type { AdmissionRequest, ApplyOptions, ApplyResult, TraceEvent, Patch6902 } from './api.js';
export type { ExternalData, FixpointConverged } from './state.js';

/**
 * The execution plan for a set of candidate policies, compiled and planned once: the kind index returns the
 * same candidate array for every object of a kind, so objects of one kind share one plan.
 */
const plans = new WeakMap<readonly Policy[], WeakMap<readonly Policy[], Unit[]>>();
function unitsFor(policies: readonly Policy[], candidates: readonly Policy[]): Unit[] {
  let byCandidates = plans.get(policies);
  if (!byCandidates) plans.set(policies, (byCandidates = new WeakMap()));
  let units = byCandidates.get(candidates);
  if (!units) byCandidates.set(candidates, (units = plan(policies, candidates.map(compilePolicy))));
  return units;
}

export interface ApplyEnv extends ApplyOptions {
  externalData?: ExternalData;
  /** Runs when a fix-point system converged after changing the object (Gatekeeper's mutation annotations). */
  onFixpointConverged?: FixpointConverged;
}

/**
 * Runs a policy set against one admission request. Never mutates its inputs: the result object shares every
 * part the policies did not change. Policies are compiled once and cached per policy object, and the plan per
 * policy array: treat a policy array as immutable once it has been applied.
 */
export function apply(policies: readonly Policy[], request: AdmissionRequest, opts: ApplyEnv = {}): ApplyResult {
  const st: EvalState = {
    object: request.object,
    request,
    trace: opts.trace === false ? undefined : [],
    diagnostics: [],
    externalData: opts.externalData,
    placeholders: 0,
    writes: 0,
    onFixpointConverged: opts.onFixpointConverged,
    owned: newEpoch(),
    policyId: '',
    ruleName: undefined,
  };
  const units = unitsFor(policies, candidatesFor(policies, request));
  let allowed = true;
  try {
    for (const unit of units) runUnit(unit, st);
    if (st.placeholders > 0 && st.object !== null) st.object = resolvePlaceholders(st.object, st);
  } catch (e) {
    if (e instanceof EvalFailure) e = new RequestDenied(e);
    if (!(e instanceof RequestDenied)) throw e;
    st.diagnostics.push(deniedDiagnostic(e));
    allowed = false;
    st.object = request.object;
  }
  const changed = st.object !== request.object;
  const patch: Patch6902[] =
    changed && opts.patch !== false ? (fastJsonPatch.compare((request.object ?? {}) as object, (st.object ?? {}) as object) as Patch6902[]) : [];
  return { object: st.object, patch, trace: st.trace ?? [], diagnostics: st.diagnostics, allowed };
}
