import fastJsonPatch from 'fast-json-patch';
import { newEpoch } from './walk.js';
import type { Policy } from '../ir/nodes.js';
import type { AdmissionRequest, ApplyOptions, ApplyResult, Patch6902 } from './api.js';
import { CLOSURES, compilePolicy, type OpCompiler } from './compile.js';
import { GENERATED } from '../compile/index.js';
import { singlePassConverges } from '../compile/fixpoint.js';
import { stableMatchSlots } from '../compile/stable-match.js';
import { fusedPasses } from '../compile/fused-pass.js';
import { resolvePlaceholders } from './external.js';
import { EvalFailure } from './failure.js';
import { candidatesFor } from '../optimizer/kind-index.js';
import { createRuntime } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import { RequestDenied } from './run-policy.js';
import { withRequestNamespace } from '../k8s/request.js';
import { deniedDiagnostic, plan, runUnit, type Unit } from './semantics.js';
import type { EvalState, ExternalData, FixpointConverged } from './state.js';

export type { AdmissionRequest, ApplyOptions, ApplyResult, TraceEvent, Patch6902 } from './api.js';
export type { ExternalData, FixpointConverged } from './state.js';

/**
 * The execution plan for a set of candidate policies, compiled and planned once: the kind index returns the
 * same candidate array for every object of a kind, so objects of one kind share one plan.
 */
const plansGenerated = new WeakMap<readonly Policy[], WeakMap<readonly Policy[], Unit[]>>();
const plansInterpreted = new WeakMap<readonly Policy[], WeakMap<readonly Policy[], Unit[]>>();
function unitsFor(policies: readonly Policy[], candidates: readonly Policy[], compiler: OpCompiler): Unit[] {
  // A stream of objects of one kind asks for the same plan each time: one comparison instead of two
  // WeakMap look-ups (issue 17). Plans never change once made, so the slot is a pure memo.
  const last = lastUnits;
  if (last !== undefined && last.policies === policies && last.candidates === candidates && last.compiler === compiler) return last.units;
  const units = plannedUnits(policies, candidates, compiler);
  lastUnits = { policies, candidates, compiler, units };
  return units;
}

let lastUnits: { policies: readonly Policy[]; candidates: readonly Policy[]; compiler: OpCompiler; units: Unit[] } | undefined;

function plannedUnits(policies: readonly Policy[], candidates: readonly Policy[], compiler: OpCompiler): Unit[] {
  const plans = compiler === CLOSURES ? plansInterpreted : plansGenerated;
  let byCandidates = plans.get(policies);
  if (!byCandidates) plans.set(policies, (byCandidates = new WeakMap()));
  let units = byCandidates.get(candidates);
  if (!units) {
    units = plan(policies, candidates.map((p) => compilePolicy(p, compiler)));
    // Generated runs skip a fix-point system's idle confirmation pass when it is proven idle, test the matches
    // it cannot change once per run and run its passes as one walk; the closure interpreter, the reference,
    // does none of these.
    if (compiler !== CLOSURES) {
      for (const u of units) {
        if (u.kind !== 'fixpoint') continue;
        const ps = u.policies.map((cp) => cp.policy);
        u.singlePass = singlePassConverges(ps);
        u.matchSlots = stableMatchSlots(ps);
        u.fused = fusedPasses(u.policies, u.matchSlots);
      }
    }
    byCandidates.set(candidates, units);
  }
  return units;
}

/**
 * The runtime of the calls that bring none. One for all: a default runtime is frozen through and through
 * (src/runtime/create.ts), so nothing of one evaluation can reach the next through it, and building one per
 * call cost more than matching the request (issue 17).
 */
const DEFAULT_RUNTIME = createRuntime();

export interface ApplyEnv extends ApplyOptions {
  /**
   * The engines, schemas and outside data to evaluate with (src/runtime). Default: `createRuntime()`, the
   * shipped engines with the built-in kinds and no outside data (built once and shared: it is immutable).
   */
  runtime?: Runtime;
  /** @deprecated put it in the runtime (`createRuntime({ externalData })`); when given, it wins over the runtime's. */
  externalData?: ExternalData;
  /** Runs when a fix-point system converged after changing the object (Gatekeeper's mutation annotations). */
  onFixpointConverged?: FixpointConverged;
}

/**
 * Runs a policy set against one admission request. Never mutates its inputs: the result object shares every
 * part the policies did not change. Policies are compiled once and cached per policy object, and the plan per
 * policy array: treat a policy array as immutable once it has been applied.
 */
export function apply(policies: readonly Policy[], given: AdmissionRequest, opts: ApplyEnv = {}): ApplyResult {
  // Every engine sees the object as kube-apiserver hands it to admission (the request's namespace placed on it).
  const request = withRequestNamespace(given);
  const runtime = opts.runtime ?? DEFAULT_RUNTIME;
  const st: EvalState = {
    object: request.object,
    request,
    runtime,
    trace: opts.trace === false ? undefined : [],
    diagnostics: [],
    externalData: opts.externalData ?? runtime.externalData,
    placeholders: 0,
    writes: 0,
    onFixpointConverged: opts.onFixpointConverged,
    owned: newEpoch(),
    policyId: '',
    ruleName: undefined,
    kyvernoContextPerPolicy: opts.kyvernoContextObject === undefined && opts.kyvernoContext === 'cli',
    imagesSource: opts.kyvernoContextObject !== undefined ? opts.kyvernoContextObject : (request.object ?? null),
    // Set later, declared here: a state that grows members goes through several hidden classes, and every
    // site reading it then sees them all (one evaluation's state is read at hundreds of sites).
    matchRequest: undefined,
    matchRequestKept: undefined,
    merges: undefined,
    memo: undefined,
  };
  const units = unitsFor(policies, candidatesFor(policies, request), opts.interpret === true ? CLOSURES : GENERATED);
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
