import { diagnostic } from '../diagnostics/diagnostic.js';
import type { Policy } from '../ir/nodes.js';
import type { CompiledPolicy } from './compile.js';
import { RequestDenied, runPolicy } from './run-policy.js';
import { runFixpoint, type FusedPasses } from './run-fixpoint.js';
import type { EvalState } from './state.js';

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
      /**
       * Per policy, the slot its match outcome is kept in for the whole run of the unit, or -1 (proven by
       * src/compile/stable-match.ts: nothing in the unit writes what the match reads; equal matches share a slot).
       */
      matchSlots?: readonly number[];
      /** Whole passes as generated walks (src/compile/fused-pass.ts), where the matches allow. */
      fused?: FusedPasses;
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
 * Runs policies once in order, then reinvokes, once, the `ifNeeded` policies that ran before a later change
 * (kube-apiserver mutating dispatcher bookkeeping: previouslyInvoked / reinvokeSet, MAP brief §3.5).
 */
function runOrdered(unit: Extract<Unit, { kind: 'ordered' }>, st: EvalState): void {
  // Bookkeeping only when the unit holds `ifNeeded` policies (rarely): the usual unit runs its policies
  // in a plain loop that allocates nothing.
  if (!unit.policies.some(reinvokedIfNeeded)) {
    for (const cp of unit.policies) runPolicy(cp, st, 1);
    return;
  }
  const reinvoke = new Set<CompiledPolicy>();
  let previouslyInvoked = new Set<CompiledPolicy>();
  const step = (cp: CompiledPolicy, pass: number) => {
    const changed = runPolicy(cp, st, pass);
    if (changed && previouslyInvoked.size > 0) {
      for (const p of previouslyInvoked) reinvoke.add(p);
      previouslyInvoked = new Set();
    }
    if (reinvokedIfNeeded(cp)) previouslyInvoked.add(cp);
  };
  for (const cp of unit.policies) step(cp, 1);
  if (reinvoke.size === 0) return;
  for (const cp of unit.policies) if (reinvoke.has(cp)) step(cp, 2);
}

function reinvokedIfNeeded(cp: CompiledPolicy): boolean {
  return cp.policy.semantics.reinvocation === 'ifNeeded';
}

export function deniedDiagnostic(denied: RequestDenied) {
  const d = denied.failure.diagnostic;
  return diagnostic(d.code, { phase: 'eval', message: d.message, span: d.span, dialect: d.dialect, severity: 'error' });
}
