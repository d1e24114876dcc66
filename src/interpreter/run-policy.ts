import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isJsonObject, jsonEqual, type JsonValue } from '../ir/json.js';
import { newEpoch } from './walk.js';
import type { Policy } from '../ir/nodes.js';
import { objectChangedInPlace } from '../k8s/facts.js';
import type { CompiledMatch, MatchOutcome } from '../k8s/match.js';
import type { AdmissionRequest } from '../k8s/request.js';
import type { TraceEvent } from './api.js';
import { describeGuard, type CompiledGuard, type CompiledPolicy } from './compile.js';
import { EvalFailure, evalFailure } from './failure.js';
import { Scope } from './scope.js';
import { evalMemo, type EvalState } from './state.js';

/** Raised (as a value) when an error must stop the whole request: failurePolicy Fail. */
export class RequestDenied {
  constructor(readonly failure: EvalFailure) {}
}

/** Records a trace event; callers build the event only when tracing (`if (st.trace)`), it runs per policy. */
function event(st: EvalState, pass: number | undefined, e: Omit<TraceEvent, 'policy' | 'pass'>): void {
  st.trace?.push(pass === undefined ? { policy: st.policyId, ...e } : { policy: st.policyId, ...e, pass });
}

/**
 * The request as the current object makes it: matching sees what earlier policies wrote. Built once per object
 * identity, so the matcher's per-request facts are computed once, not once per policy. An in-place write
 * (which clears `matchRequest`) keeps the identity: the request built for it is used again, its memoised facts
 * checked against the fields they were read from instead of derived again per policy (a fix-point pass writes
 * in place from its second changing policy on).
 */
function currentRequest(st: EvalState): AdmissionRequest {
  if (st.object === st.request.object) return st.request;
  if (st.matchRequest?.object === st.object) return st.matchRequest;
  const kept = st.matchRequestKept;
  if (kept?.object === st.object) objectChangedInPlace(kept);
  st.matchRequest = st.matchRequestKept = kept?.object === st.object ? kept : { ...st.request, object: st.object };
  return st.matchRequest;
}

/**
 * Match outcomes kept for the whole run of a fix-point unit, one per slot (semantics.ts Unit.matchSlots).
 * An outcome that could not be decided is not kept: its diagnostic spans its own policy's match block.
 */
export class SharedMatches {
  private readonly outcomes: (MatchOutcome | undefined)[] = [];

  constructor(private readonly slots: readonly number[]) {}

  outcome(i: number, cp: CompiledPolicy, st: EvalState): MatchOutcome {
    const slot = this.slots[i]!;
    if (slot < 0) return cp.match.test(currentRequest(st));
    const kept = this.outcomes[slot];
    if (kept !== undefined) return kept;
    const m = cp.match.test(currentRequest(st));
    if (!m.error) this.outcomes[slot] = m;
    return m;
  }
}

export function isNonEmptyObject(v: JsonValue | null): boolean {
  if (!isJsonObject(v)) return false;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) return true;
  return false;
}

/**
 * A rule's match outcome, kept in `kept[slot]` for the rest of the policy's run when its slot says the
 * policy's rules cannot change what it reads (CompiledPolicy.ruleMatchSlots). The proof assumes a non-empty
 * object (an empty one is matched as absent, src/k8s/facts.ts, and a kyaml merge may prune an object of nulls
 * to nothing), so an outcome is kept and reused only while the object is non-empty; an undecided one is not
 * kept (its diagnostic is the rule's own).
 */
export function ruleMatch(match: CompiledMatch, slot: number, kept: (MatchOutcome | undefined)[], st: EvalState): MatchOutcome {
  if (slot < 0) return match.test(currentRequest(st));
  const nonEmpty = isNonEmptyObject(st.object);
  if (nonEmpty) {
    const k = kept[slot];
    if (k !== undefined) return k;
  }
  const m = match.test(currentRequest(st));
  if (nonEmpty && !m.error) kept[slot] = m;
  return m;
}

function firstError(ds: readonly Diagnostic[]): Diagnostic | undefined {
  for (const d of ds) if (d.severity === 'error') return d;
  return undefined;
}

export function firstFalse(st: EvalState, guards: readonly CompiledGuard[], scope: Scope): CompiledGuard | undefined {
  for (const g of guards) if (!g.fn(st, scope)) return g;
  return undefined;
}

/**
 * kube-apiserver's matchConditions (matchconditions/matcher.go): every condition is evaluated; any false skips
 * the policy, even when another one failed; only when none is false does a failure count.
 */
function anyFalse(st: EvalState, guards: readonly CompiledGuard[], scope: Scope): CompiledGuard | undefined {
  let failure: EvalFailure | undefined;
  for (const g of guards) {
    try {
      if (!g.fn(st, scope)) return g;
    } catch (e) {
      if (!(e instanceof EvalFailure)) throw e;
      failure ??= e;
    }
  }
  if (failure) throw failure;
  return undefined;
}

/**
 * Runs one policy once against the state. Returns whether it changed the object. A rule error either denies the
 * request (failurePolicy fail, the default) or discards that rule's changes and goes on (ignore).
 *
 * `keepOwned` (fix-point passes): go on writing in place into the containers earlier policies of the pass
 * created, instead of copying the root again per policy and rule. The policy and rule starts are then not
 * snapshots, so the result only says whether this policy changed the object identity: a change made in place
 * is reported by the policy that first copied the root in this pass, which is all a pass needs. Real
 * snapshots are kept where they are used: traced runs (per-op outcomes) and failurePolicy ignore (rollback).
 */
export function runPolicy(cp: CompiledPolicy, st: EvalState, pass?: number, keepOwned = false, shared?: SharedMatches, index = -1): boolean {
  const policy = cp.policy;
  st.policyId = policy.id;
  st.ruleName = undefined;
  const start = st.object;
  if (st.kyvernoContextPerPolicy && policy.origin.dialect === 'kyverno') st.imagesSource = start ?? st.request.oldObject ?? null;
  const snapshots = !keepOwned || st.trace !== undefined || policy.semantics.failurePolicy === 'ignore';
  if (snapshots) st.owned = newEpoch();
  // A rule's start is a snapshot only where `before` is used: traced outcomes, the rollback of failurePolicy
  // ignore and `applyRules: One`. Otherwise rules go on writing in place into what earlier rules of the policy
  // created; the policy's start stays a snapshot, so the policy's result still tells a change by identity.
  const ruleSnapshots = st.trace !== undefined || policy.semantics.failurePolicy === 'ignore' || policy.semantics.applyRules === 'one';
  let scope = Scope.EMPTY;
  try {
    // A match block that could not be compiled (an invalid selector) fails when the policy is used.
    const invalid = firstError(cp.match.diagnostics);
    if (invalid) throw new EvalFailure(invalid);
    const m = shared ? shared.outcome(index, cp, st) : cp.match.test(currentRequest(st));
    if (m.error) throw new EvalFailure(m.error);
    if (!m.matched) {
      if (st.trace) event(st, pass, { node: 'policy', outcome: 'not-matched', reason: m.reason, origin: policy.origin });
      return false;
    }
    if (cp.lets) scope = cp.lets(st, scope);
    const blocked = policy.semantics.order === 'ordered' ? anyFalse(st, cp.guards, scope) : firstFalse(st, cp.guards, scope);
    if (blocked) {
      if (st.trace) event(st, pass, { node: 'policy', outcome: 'skipped', reason: `guard ${describeGuard(blocked.guard)} is false`, origin: blocked.guard.origin });
      return false;
    }
  } catch (e) {
    if (e instanceof EvalFailure) return failed(cp, st, e, start, pass);
    throw e;
  }
  const slots = cp.ruleMatchSlots;
  const kept = slots ? new Array<MatchOutcome | undefined>(cp.ruleMatchSlotCount) : undefined;
  const runs = ruleSnapshots ? undefined : cp.ruleRuns;
  for (let i = 0; i < cp.rules.length; i++) {
    if (runs !== undefined && runs[i] !== undefined) {
      try {
        i = runs[i]!(st, i, kept, false, scope);
      } catch (e) {
        // A rule guard the run evaluated failed (runs are not used under failurePolicy ignore).
        if (e instanceof EvalFailure) throw denial(policy, e);
        throw e;
      }
      if (i >= cp.rules.length) break;
    }
    const cr = cp.rules[i]!;
    st.ruleName = cr.rule.name;
    const before = st.object;
    if (ruleSnapshots) st.owned = newEpoch();
    try {
      if (cr.match) {
        const m = kept ? ruleMatch(cr.match, slots![i]!, kept, st) : cr.match.test(currentRequest(st));
        if (m.error) throw new EvalFailure(m.error);
        if (!m.matched) {
          if (st.trace) event(st, pass, { rule: cr.rule.name, node: 'rule', outcome: 'not-matched', reason: m.reason, origin: cr.rule.origin });
          continue;
        }
      }
      const blocked = firstFalse(st, cr.guards, scope);
      if (blocked) {
        if (st.trace) event(st, pass, { rule: cr.rule.name, node: 'rule', outcome: 'skipped', reason: `guard ${describeGuard(blocked.guard)} is false`, origin: blocked.guard.origin });
        continue;
      }
      if (st.trace) {
        let opScope = scope;
        for (const op of cr.ops) {
          const opBefore = st.object;
          st.owned = newEpoch();
          opScope = op.fn(st, opScope);
          if (st.trace) event(st, pass, { rule: cr.rule.name, node: op.kind, outcome: st.object === opBefore ? 'unchanged' : 'applied', origin: op.origin });
        }
      } else {
        // A rule of a run that waited for its guards (src/compile/smp-rule-runs.ts) goes on with the run.
        const next = runs !== undefined && runs[i] !== undefined ? runs[i]!(st, i, kept, true, scope) : i;
        if (next > i) {
          i = next - 1;
          continue;
        }
        cr.body(st, scope);
      }
      // Built only when traced: this runs once per rule and request.
      if (st.trace) event(st, pass, { rule: cr.rule.name, node: 'rule', outcome: st.object === before ? 'unchanged' : 'applied', origin: cr.rule.origin });
      if (policy.semantics.applyRules === 'one' && ruleApplied(before, st.object)) break;
    } catch (e) {
      if (!(e instanceof EvalFailure)) throw e;
      if (policy.semantics.failurePolicy === 'ignore') {
        st.object = before;
        st.diagnostics.push(
          diagnostic('TM3009', {
            phase: 'eval',
            severity: 'warning',
            message: `rule "${cr.rule.name}" of policy "${policy.id}" failed and was ignored (failurePolicy ignore): ${e.diagnostic.message}`,
            span: e.diagnostic.span,
          }),
        );
        if (st.trace) event(st, pass, { rule: cr.rule.name, node: 'rule', outcome: 'error', reason: e.diagnostic.message, origin: cr.rule.origin });
        continue;
      }
      if (st.trace) event(st, pass, { rule: cr.rule.name, node: 'rule', outcome: 'error', reason: e.diagnostic.message, origin: e.diagnostic.span ? undefined : cr.rule.origin });
      throw denial(policy, e);
    }
  }
  if (policy.origin.dialect === 'kyverno-mpol' && st.object !== start) webhookDecoded(st, start, policy);
  return st.object !== start;
}

/**
 * Kyverno registers a webhook per MutatingPolicy, which patches the unstructured object with every mutation
 * of the policy and answers with the patch of them all; kube-apiserver (webhook/mutating/dispatcher.go)
 * decodes the patched object once (Runtime.webhookDecoder: undeclared fields dropped, a value of the wrong
 * Go type an InternalError, which no failure policy ignores). So a mutation sees what an earlier one of the
 * same policy wrote, decoded or not, and only the policy's result must decode.
 */
function webhookDecoded(st: EvalState, start: EvalState['object'], policy: Policy): void {
  const decoder = st.runtime.webhookDecoder;
  if (decoder === undefined || st.object === null) return;
  const decoded = decoder(st.object, { request: st.request, runtime: st.runtime, memo: evalMemo(st) }, start ?? undefined);
  if (!decoded.ok) throw new RequestDenied(evalFailure('TM3006', decoded.message, policy.rules[0]?.origin ?? policy.origin));
  if (decoded.value !== st.object) {
    st.object = decoded.value;
    st.owned = newEpoch();
  }
}

/**
 * Kyverno `applyRules: One` stops once RulesAppliedCount > 0 (engine mutation.go); a mutate rule counts when its
 * status is pass, which mutate.Mutate gives only when the patched bytes differ from the resource ("no patches
 * applied" is a skip). Identity tells "untouched" cheaply; a rewrite to an equal value is still no change.
 */
function ruleApplied(before: EvalState['object'], after: EvalState['object']): boolean {
  return before !== after && !jsonEqual(before, after);
}

function failed(cp: CompiledPolicy, st: EvalState, e: EvalFailure, start: EvalState['object'], pass: number | undefined): boolean {
  if (st.trace) event(st, pass, { node: 'policy', outcome: 'error', reason: e.diagnostic.message, origin: cp.policy.origin });
  if (cp.policy.semantics.failurePolicy === 'ignore') {
    st.object = start;
    return false;
  }
  throw denial(cp.policy, e);
}

/**
 * kube-apiserver's MAP dispatcher (policy/mutating/dispatcher.go) denies with "policy '<policy>' with binding
 * '<binding>' denied request: <err>". Ordered policies are MAP invocations, identified "<policy>/<binding>[/...]"
 * (Kubernetes names cannot hold a slash); other policies keep the error as is.
 */
function denial(policy: Policy, e: EvalFailure): RequestDenied {
  const [name, binding] = policy.id.split('/');
  if (policy.semantics.order !== 'ordered' || binding === undefined) return new RequestDenied(e);
  const message = `policy '${name}' with binding '${binding}' denied request: ${e.diagnostic.message}`;
  return new RequestDenied(new EvalFailure({ ...e.diagnostic, message }));
}
