/**
 * `kyverno test`'s verdict on one result entry and resource (commands/test output.go printTestResult,
 * command.go checkResult / compareExpectedRuleResult), for every combination of the expected result, the
 * patched-resource file and what the policy did:
 *
 * - no rule response (the rule or policy does not match the resource): the row is "Excluded" and passes,
 *   whatever the expected result and without looking at the patched resource;
 * - a response: with `patchedResources`, the file must hold the resource (apiVersion, kind, namespace,
 *   name): when it does not, the CLI leaves the row out (failOnMissingResources false; with true it fails),
 *   so it cannot fail the run; a file that differs fails ("Resource diff") whatever the result; then the
 *   rule's result must equal the expected one ("Want X, got Y"), a `skip` that was expected included.
 *
 * A mutate rule's result is `pass` when it changed the object, `skip` when its preconditions are false, a
 * PolicyException exempts it or its patch changed nothing (mutate.Mutate "no patches applied"), `error` when
 * it failed. A MutatingPolicy or MutatingAdmissionPolicy that matched and ran is `pass` even when its patch
 * left the object as it was (mpol engine handlePolicy, admissionpolicy mutate.go); `skip` when a
 * matchCondition is false or a PolicyException exempts it. (`unchangedPasses` false judges such a policy as a
 * mutate rule: transmute migrate's proof compares a rule with its MutatingPolicy on what they did to the
 * resource, which that reporting difference would hide.)
 */
import type { TraceEvent } from '../../../interpreter/api.js';
import { needsOutsideData, OFFLINE } from '../../../cel/lib/kyverno-context.js';
import type { RowStatus } from './model.js';

export type RuleResponse =
  | { kind: 'excluded'; reason: string }
  /** The policy never ran on the resource (`deniedBefore`: the request was denied earlier in the chain, as `reason` says). */
  | { kind: 'none'; reason: string; deniedBefore: boolean }
  | { kind: 'response'; result: 'pass' | 'skip' | 'error'; message: string };

export type PatchedState =
  | { kind: 'none' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'missing'; reason: string }
  | { kind: 'differs'; reason: string; diff?: string }
  | { kind: 'equal' };

export interface Verdict {
  status: RowStatus;
  reason: string;
  diff?: string;
}

export interface VerdictOptions {
  /** `kyverno test` passes an excluded row; transmute's own proofs (migrate) want it to fail unless `skip` was expected. */
  excludedPasses: boolean;
  /** The entry's `failOnMissingResources`. */
  failOnMissingResources: boolean;
}

/**
 * The rule responses of the policy for the entry, from the trace (lookupRuleResponses); `names` undefined for
 * a rule-less policy. A policy read as several IR policies (autogen variants, MAP bindings) responds when any
 * of them does: error before pass before skip.
 */
export function ruleResponse(trace: readonly TraceEvent[], policyIds: ReadonlySet<string>, names: readonly string[] | undefined, unchangedPasses = true): RuleResponse {
  const byPolicy = new Map<string, TraceEvent[]>();
  for (const e of trace) if (policyIds.has(e.policy)) (byPolicy.get(e.policy) ?? byPolicy.set(e.policy, []).get(e.policy)!).push(e);
  if (byPolicy.size === 0) {
    const denied = trace.find((e) => e.outcome === 'error');
    if (denied?.reason) return { kind: 'none', reason: `the policy did not run on the resource: the request was denied before it (${denied.policy}: ${denied.reason})`, deniedBefore: true };
    return { kind: 'none', reason: 'the policy did not run on the resource', deniedBefore: false };
  }
  const each = [...byPolicy.values()].map((events) => policyResponse(events, names, unchangedPasses));
  const responses = each.filter((r): r is Extract<RuleResponse, { kind: 'response' }> => r.kind === 'response');
  if (responses.length === 0) return each[0]!;
  for (const result of ['error', 'pass', 'skip'] as const) {
    const r = responses.find((x) => x.result === result);
    if (r) return r;
  }
  return responses[0]!;
}

/**
 * One policy id's events; several IR policies may share it (a MutatingPolicy's autogen variants), so a policy
 * event only decides when no rule of the same id responded.
 */
function policyResponse(own: readonly TraceEvent[], names: readonly string[] | undefined, unchangedPasses: boolean): RuleResponse {
  const rules = own.filter((e) => e.node === 'rule' && (names === undefined || names.includes(e.rule ?? '')));
  const responding = rules.filter((e) => e.outcome !== 'not-matched');
  const policyEvents = own.filter((e) => e.node === 'policy');
  if (responding.length === 0) {
    const error = policyEvents.find((e) => e.outcome === 'error');
    if (error) return { kind: 'response', result: 'error', message: error.reason ?? 'the policy failed' };
    const skipped = policyEvents.find((e) => e.outcome === 'skipped');
    if (skipped) return { kind: 'response', result: 'skip', message: skipped.reason ?? 'the policy was skipped' };
    const notMatched = policyEvents.find((e) => e.outcome === 'not-matched');
    if (notMatched) return { kind: 'excluded', reason: `the policy does not match the resource${notMatched.reason ? ` (${notMatched.reason})` : ''}` };
    const why = rules.find((e) => e.reason)?.reason;
    return { kind: 'excluded', reason: `the rule does not match the resource${why ? ` (${why})` : ''}` };
  }
  const error = responding.find((e) => e.outcome === 'error');
  if (error) return { kind: 'response', result: 'error', message: error.reason ?? 'the rule failed' };
  if (responding.some((e) => e.outcome === 'applied')) return { kind: 'response', result: 'pass', message: 'resource patched' };
  // A rule-less policy that matched and ran passes, changed or not.
  if (unchangedPasses && names === undefined && responding.some((e) => e.outcome === 'unchanged')) return { kind: 'response', result: 'pass', message: 'the policy ran and left the resource as it was' };
  const skipped = responding.find((e) => e.outcome === 'skipped');
  if (skipped) return { kind: 'response', result: 'skip', message: skipped.reason ?? 'skipped' };
  return { kind: 'response', result: 'skip', message: 'no patches applied: the patch left the resource as it was' };
}

export function judge(expected: string, response: RuleResponse, patched: PatchedState, options: VerdictOptions): Verdict {
  const want = expected || '(none)';
  if (response.kind === 'none') return { status: 'failed', reason: response.reason };
  if (response.kind === 'excluded') {
    if (options.excludedPasses || expected === 'skip') return { status: 'passed', reason: `Excluded: ${response.reason}` };
    return { status: 'failed', reason: `the rule did not run: ${response.reason} (want ${want})` };
  }
  // A rule that needed data kyverno test fetches from outside the cluster (a registry's image metadata, a
  // network service), which no offline run has, did not run: the row is not run, not failed.
  if (response.result === 'error' && needsOutsideData(response.message)) {
    return { status: 'skipped', reason: `not run: ${response.message.slice(response.message.indexOf(OFFLINE))}` };
  }
  const outcome = `${response.result}${response.message ? ` (${response.message})` : ''}`;
  switch (patched.kind) {
    case 'unreadable':
      return { status: 'failed', reason: `patched resource: ${patched.reason}` };
    case 'missing':
      if (options.failOnMissingResources) return { status: 'failed', reason: `patched resource: ${patched.reason}` };
      return { status: 'passed', reason: `not compared: ${patched.reason}; kyverno test leaves such a result out (failOnMissingResources is false); the rule's result was ${outcome}` };
    case 'differs': {
      const didNotApply = response.result === 'pass' ? '' : `; the rule's result was ${outcome}`;
      return { status: 'failed', reason: `${patched.reason}${didNotApply}`, ...(patched.diff ? { diff: patched.diff } : {}) };
    }
    default:
      break;
  }
  if (response.result !== expected) return { status: 'failed', reason: `want ${want}, got ${response.result}: ${response.message}` };
  return { status: 'passed', reason: 'Ok' };
}
