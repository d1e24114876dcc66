/**
 * The runner for cases that are admission requests against a policy set (Gatekeeper, MAP, Kyverno CLI,
 * Kyverno unit, kyverno-test.yaml results): prepare the policies (parse, or translate with `--via`), apply
 * each request with the interpreter, and check the expectation.
 */
import { UNSUPPORTED_OFFLINE } from '../../cel/lib/kyverno-context.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { apply, type ApplyEnv } from '../../interpreter/index.js';
import type { ApplyResult, TraceEvent } from '../../interpreter/api.js';
import { isJsonObject, jsonEqual, type JsonValue } from '../../ir/json.js';
import { builtinDecodeError, undecodedReason } from '../../engines/ssa.js';
import type { Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { compareObjects, describeDifference, firstDifference, jsonNormalize, partialDifference } from '../compare.js';
import { firstError, harnessAdmission, missingDialect, preparePolicies, type Prepared } from '../policies.js';
import type { AdmissionCase, CaseResult, Expectation, RuleExpectation } from '../types.js';
import type { RunContext } from './context.js';

const PASSED: CaseResult = { status: 'passed' };

export function runAdmissionCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  const missing = missingDialect(c.dialect, ctx.via, ctx.dialects);
  if (missing) return missing;
  if (c.mutateExisting) {
    return { status: 'unsupported', reason: 'mutate-existing: target resources are not simulated by the default runner' };
  }
  if (c.expect.kind === 'unchecked') return { status: 'unsupported', reason: c.expect.reason };
  const prepared = prepare(c, c.policyDocs, ctx);
  if (prepared.kind === 'stop') return prepared.result;
  const expect = c.expect;
  if (prepared.kind === 'rejected') {
    if (expect.kind === 'error' && expect.stage !== 'apply') return matchError(expect, prepared.diagnostics, [], false);
    const unsupported = prepared.diagnostics.find((d) => d.code === 'TM4001');
    if (unsupported) return { status: 'unsupported', reason: `dialect ${c.dialect}: ${unsupported.message}` };
    return { status: 'failed', reason: `policies rejected: ${firstError(prepared.diagnostics)}` };
  }
  if (expect.kind === 'valid') return PASSED;
  if (expect.kind === 'error' && expect.stage === 'parse') {
    return { status: 'failed', reason: `expected the policies to be rejected${expect.contains ? ` with "${expect.contains}"` : ''}, but they were accepted` };
  }
  if (!c.request) return { status: 'error', reason: 'TM7003: the case has no request to apply' };
  const invalid = invalidForCelTarget(c, ctx);
  if (invalid) return invalid;

  const main = runSubject(prepared.policies, c.request, expect, c.ruleResults ?? [], c, ctx);
  if (main.status !== 'passed') return main;
  for (const subject of c.extraSubjects ?? []) {
    let policies = prepared.policies;
    if (subject.policyDocs) {
      const variant = prepare(c, subject.policyDocs, ctx);
      if (variant.kind === 'stop') return variant.result;
      if (variant.kind === 'rejected') return { status: 'failed', reason: `${subject.label}: policies rejected: ${firstError(variant.diagnostics)}` };
      policies = variant.policies;
    }
    const r = runSubject(policies, subject.request, subject.expect, subject.ruleResults ?? [], c, ctx);
    if (r.status !== 'passed') return { status: r.status, reason: `${subject.label}: ${r.reason ?? ''}` };
  }
  return PASSED;
}

/**
 * Under `--via map|kyverno-mpol`, a case whose object the API server would not decode (a value of the wrong
 * type for its built-in kind, a field the kind does not declare) cannot be compared: a CEL policy only ever
 * sees decoded objects, and the strict decode of its result would fail whatever the policy wrote. Kyverno and
 * Gatekeeper patch such objects as they are. Nor can a case whose expected object has a value of the wrong
 * type: Kyverno and Gatekeeper give it, kube-apiserver then refuses their webhook's result when it decodes it,
 * and refuses a CEL policy's at the same decode (Gatekeeper's assign-quoted-key-type-mismatch: upstream's test
 * asserts that the typed conversion fails).
 */
export function invalidForCelTarget(c: AdmissionCase, ctx: RunContext): CaseResult | undefined {
  if ((ctx.via !== 'map' && ctx.via !== 'kyverno-mpol') || c.dialect === 'map' || c.dialect === 'kyverno-mpol') return undefined;
  const object = c.request?.object;
  if (!isJsonObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return undefined;
  const slash = object.apiVersion.indexOf('/');
  const gvk = { group: slash < 0 ? '' : object.apiVersion.slice(0, slash), version: slash < 0 ? object.apiVersion : object.apiVersion.slice(slash + 1), kind: object.kind };
  const problem = undecodedReason(object, gvk, ctx.runtime?.schemas);
  if (problem !== undefined) return { status: 'unsupported', class: 'cannot', reason: `the case's ${object.kind} is not one the API server decodes (${problem}): a ${ctx.via} policy only ever sees decoded objects` };
  const expected = c.expect.kind === 'object' ? c.expect.object : undefined;
  const expectedError = expected === undefined ? undefined : builtinDecodeError(expected, gvk, ctx.runtime?.schemas);
  if (expectedError === undefined) return undefined;
  return { status: 'unsupported', class: 'cannot', reason: `the ${c.dialect} result the case expects is not one the API server decodes (${expectedError}): it refuses that result, and a ${ctx.via} policy's at the same decode` };
}

function prepare(c: AdmissionCase, policyDocs: readonly SourceDoc[], ctx: RunContext): Prepared {
  const admission = harnessAdmission(c);
  return preparePolicies({ id: c.id, dialect: c.dialect, policyDocs, siblingDocs: c.siblingDocs, hints: c.hints, ...(admission ? { admission } : {}) }, ctx.via, ctx.admitted, ctx.dialects);
}

/**
 * The case's evaluation as its upstream harness ran it: Kyverno's CLI and engine unit tests make the policy
 * context per policy (ApplyOptions.kyvernoContext), where a cluster's webhook makes it per request.
 */
function applyEnv(c: AdmissionCase, ctx: RunContext): ApplyEnv {
  const perPolicy = c.format === 'kyverno-cli' || c.format === 'kyverno-suite' || c.format === 'kyverno-unit';
  return { ...(ctx.runtime ? { runtime: ctx.runtime } : {}), ...(perPolicy ? { kyvernoContext: 'cli' as const } : {}) };
}

function runSubject(
  policies: Policy[],
  request: AdmissionRequest,
  expect: Expectation,
  ruleResults: readonly RuleExpectation[],
  c: AdmissionCase,
  ctx: RunContext,
): CaseResult {
  const result = apply(policies, request, applyEnv(c, ctx));
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (expect.kind === 'error') {
    if (result.allowed && errors.length === 0) {
      return { status: 'failed', reason: `expected an error${expect.contains ? ` containing "${expect.contains}"` : ''}, but the request was allowed` };
    }
    return matchError(expect, errors, result.trace, ctx.via !== undefined);
  }
  if (!result.allowed) {
    const offline = result.diagnostics.find((d) => d.message.includes(UNSUPPORTED_OFFLINE));
    if (offline) return { status: 'unsupported', reason: offline.message.slice(offline.message.indexOf(UNSUPPORTED_OFFLINE)) };
    return { status: 'failed', reason: `request denied: ${firstError(result.diagnostics)}` };
  }
  const outcome = checkResult(result, request, expect, c, ctx);
  if (outcome.status !== 'passed') return outcome;
  const rules = ruleDifference(result.trace, ruleResults);
  return rules ? { status: 'failed', reason: rules } : PASSED;
}

function checkResult(result: ApplyResult, request: AdmissionRequest, expect: Expectation, c: AdmissionCase, ctx: RunContext): CaseResult {
  switch (expect.kind) {
    case 'object': {
      const d = compareObjects(expect.profile, expect.object, result.object ?? undefined);
      return d ? { status: 'failed', reason: describeDifference(d) } : PASSED;
    }
    case 'partial': {
      const d = partialDifference(expect.checks, result.object ?? undefined);
      return d ? { status: 'failed', reason: describeDifference(d) } : PASSED;
    }
    case 'emitted-patch':
      return emittedPatchResult(result, expect.ops);
    case 'rule-status':
      return PASSED;
    case 'changed':
      return jsonEqual(result.object, request.object) ? { status: 'failed', reason: 'expected the object to change (result pass), it did not' } : PASSED;
    case 'same-as-reference': {
      let reference: JsonValue | undefined = request.object ?? undefined;
      if (expect.reference.length > 0) {
        // The reference is the oracle: it runs in the case's own dialect even when the case runs translated.
        const prepared = prepare(c, expect.reference, {});
        if (prepared.kind === 'stop') return prepared.result;
        if (prepared.kind === 'rejected') return { status: 'failed', reason: `reference patch rejected: ${firstError(prepared.diagnostics)}` };
        const ref = apply(prepared.policies, request, applyEnv(c, ctx));
        if (!ref.allowed) return { status: 'failed', reason: `reference patch denied: ${firstError(ref.diagnostics)}` };
        reference = ref.object ?? undefined;
      }
      const d = compareObjects('exact', reference, result.object ?? undefined);
      return d ? { status: 'failed', reason: `differs from the preprocessed patch's result ${describeDifference(d)}` } : PASSED;
    }
    default:
      return { status: 'error', reason: `TM7003: expectation ${expect.kind} cannot be checked on a request` };
  }
}

/** Kyverno unit `emitted ops subset-of expected set`: every emitted op is expected, and something is emitted. */
function emittedPatchResult(result: ApplyResult, expected: readonly JsonValue[]): CaseResult {
  const wanted = expected.map((op) => jsonNormalize(op));
  if (result.patch.length === 0 && wanted.length > 0) return { status: 'failed', reason: 'no patch operation was emitted' };
  for (const op of result.patch) {
    const got = jsonNormalize(op as unknown as JsonValue);
    if (!wanted.some((w) => firstDifference(w, got) === undefined)) {
      return { status: 'failed', reason: `emitted ${JSON.stringify(got)}, which is not among the expected operations` };
    }
  }
  return PASSED;
}

/**
 * The error expectation: some error diagnostic (or trace error) carries the expected substring. After a
 * translation (`translated`), the wording belongs to the target engine, so any error satisfies it.
 */
function matchError(
  expect: Extract<Expectation, { kind: 'error' }>,
  diagnostics: readonly Diagnostic[],
  trace: readonly TraceEvent[],
  translated: boolean,
): CaseResult {
  const messages = [
    ...diagnostics.filter((d) => d.severity === 'error').flatMap((d) => [d.message, ...(d.related ?? []).map((r) => r.message)]),
    ...trace.filter((t) => t.outcome === 'error' && t.reason).map((t) => t.reason!),
  ];
  if (messages.length === 0) return { status: 'failed', reason: 'expected an error, but no error was reported' };
  if (!expect.contains || translated) return PASSED;
  if (messages.some((m) => m.includes(expect.contains!))) return PASSED;
  return { status: 'failed', reason: `expected an error containing "${expect.contains}", got: ${messages[0]}` };
}

/**
 * Kyverno rule results (`pass`, `skip`, `fail`, `error`) against the trace's rule outcomes. A rule the trace
 * does not report is not judged here: the object comparison is the case's primary check.
 */
function ruleDifference(trace: readonly TraceEvent[], expected: readonly RuleExpectation[]): string | undefined {
  for (const want of expected) {
    const ofPolicy = trace.filter((e) => e.policy === want.policy || e.policy.endsWith(`/${want.policy}`));
    // cmd/cli/kubectl-kyverno/commands/test lookupRuleResponses: a result names the Pod rule and also stands
    // for its autogen rules; a rule that did not match has no response.
    const names = want.rule === undefined ? undefined : [want.rule, `autogen-${want.rule}`, `autogen-cronjob-${want.rule}`];
    const named = ofPolicy.filter((e) => e.node === 'rule' && (names === undefined || names.includes(e.rule ?? '')));
    const matched = named.filter((e) => e.outcome !== 'not-matched');
    const rules = matched.length > 0 ? matched : named;
    const policyLevel = ofPolicy.filter((e) => e.node === 'policy' && (e.outcome === 'not-matched' || e.outcome === 'skipped'));
    const decisive = rules.length > 0 ? rules : policyLevel;
    if (decisive.length === 0) continue;
    const got = kyvernoResult(decisive);
    if (got !== want.result) {
      return `rule ${want.policy}${want.rule ? `/${want.rule}` : ''}: expected result ${want.result}, got ${got}`;
    }
  }
  return undefined;
}

function kyvernoResult(events: readonly TraceEvent[]): string {
  if (events.some((e) => e.outcome === 'error')) return 'error';
  if (events.some((e) => e.outcome === 'applied')) return 'pass';
  return 'skip';
}
