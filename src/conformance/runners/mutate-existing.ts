/**
 * The runner for Kyverno mutate-existing cases (CLI `mode: mutate-existing`, kyverno-test.yaml suites with
 * `targetResources`): every trigger runs the policies' `mutate.targets` rules over the supplied targets (a
 * target mutated by one trigger is what the next trigger sees, as in a cluster), then each expected object is
 * compared with the mutated target of the same kind, namespace and name.
 */
import { hasMutateExistingRules, mutateExisting } from '../../dialects/kyverno/mutate-existing.js';
import { registerJmesEngine } from '../../engines/jmes.js';
import { registerSmpEngine } from '../../engines/smp.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { compareObjects, describeDifference } from '../compare.js';
import { firstError, missingDialect } from '../policies.js';
import { kyvernoRequest, withDefaultNamespace } from '../../dialects/kyverno/test-suite/request.js';
import type { AdmissionCase, CaseResult, Expectation, RuleExpectation } from '../types.js';
import { runAdmissionCase } from './admission.js';
import type { RunContext } from './context.js';

const identity = (o: JsonValue | null | undefined): string => {
  const v = isJsonObject(o) ? o : {};
  const md = isJsonObject(v.metadata) ? v.metadata : {};
  return `${String(v.kind ?? '')}/${String(md.namespace ?? 'default')}/${String(md.name ?? '')}`;
};

/** kyverno-test.yaml results: mutate-existing ones here, the others through the admission runner. */
export function runSuiteCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  return c.mutateExisting ? runMutateExistingCase(c, ctx) : runAdmissionCase(c, ctx);
}

export function runMutateExistingCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  const missing = missingDialect(c.dialect, ctx.via);
  if (missing) return missing;
  if (ctx.via) return { status: 'unsupported', reason: 'mutate-existing cases run in the Kyverno dialect only (no translation)' };
  if (!c.mutateExisting || !c.request) return { status: 'error', reason: 'TM7003: the case has no trigger or targets' };
  if (c.expect.kind === 'unchecked') return { status: 'unsupported', reason: c.expect.reason };
  if (!c.policyDocs.some(hasMutateExistingRules)) {
    return { status: 'unsupported', reason: 'mutate-existing: no Kyverno policy with mutate.targets rules (MutatingPolicy targets are not implemented)' };
  }

  registerJmesEngine();
  registerSmpEngine();
  const current = new Map<string, JsonObject>();
  const original = new Map<string, JsonObject>();
  for (const d of c.mutateExisting.targets) {
    if (!isJsonObject(d.value)) continue;
    const t = withDefaultNamespace(d.value);
    current.set(identity(t), t);
    original.set(identity(t), t);
  }
  // A suite case's request is a target; its triggers are the suite's resources.
  const triggers: AdmissionRequest[] = [];
  if (c.mutateExisting.triggers) {
    for (const d of c.mutateExisting.triggers) {
      if (!isJsonObject(d.value)) continue;
      const hintsValues = isJsonObject(c.hints.values) ? c.hints.values : undefined;
      const r = kyvernoRequest(withDefaultNamespace(d.value), { values: hintsValues, policy: c.ruleResults?.[0]?.policy });
      if (typeof r === 'string') return { status: 'error', reason: `TM7003: trigger: ${r}` };
      triggers.push(r);
    }
  } else triggers.push(c.request);

  const errors: string[] = [];
  for (const trigger of triggers) {
    const out = mutateExisting(c.policyDocs, trigger, [...current.values()], { conformance: c.hints } as never);
    const bad = out.diagnostics.filter((d) => d.severity === 'error');
    if (bad.length > 0) errors.push(firstError(bad));
    for (const r of out.results) {
      if (!r.result.allowed) errors.push(`${identity(r.target)}: ${firstError(r.result.diagnostics)}`);
      else if (isJsonObject(r.result.object)) current.set(identity(r.target), r.result.object);
    }
  }

  const subjects: { label: string; target: JsonValue | undefined; expect: Expectation; ruleResults: readonly RuleExpectation[] }[] = c.mutateExisting.triggers
    ? [{ label: identity(c.request.object), target: c.request.object ?? undefined, expect: c.expect, ruleResults: c.ruleResults ?? [] }, ...(c.extraSubjects ?? []).map((s) => ({ label: s.label, target: s.request.object ?? undefined, expect: s.expect, ruleResults: s.ruleResults ?? [] }))]
    : [{ label: 'expected', target: c.expect.kind === 'object' ? c.expect.object : undefined, expect: c.expect, ruleResults: c.ruleResults ?? [] }];
  for (const s of subjects) {
    const key = identity(s.target);
    // A subject that is not a target is a trigger: mutate existing leaves it as it was, and its rule result is
    // whether the rule changed some target.
    const isTarget = current.has(key);
    const actual = isTarget ? current.get(key)! : s.target;
    if (!isJsonObject(actual)) return { status: 'error', reason: `TM7003: ${s.label} is not an object` };
    const wantsError = s.ruleResults.some((r) => r.result === 'error') || s.expect.kind === 'error';
    if (wantsError) {
      if (errors.length === 0) return { status: 'failed', reason: `${s.label}: expected an error, but none was reported` };
      continue;
    }
    if (errors.length > 0) return { status: 'failed', reason: errors[0]! };
    const changed = isTarget ? !jsonEqual(actual, original.get(key) ?? null) : [...current].some(([k, v]) => !jsonEqual(v, original.get(k) ?? null));
    for (const r of s.ruleResults) {
      const got = changed ? 'pass' : 'skip';
      if ((r.result === 'pass' || r.result === 'skip') && got !== r.result) {
        return { status: 'failed', reason: `${s.label}: rule ${r.policy}${r.rule ? `/${r.rule}` : ''}: expected result ${r.result}, got ${got}` };
      }
    }
    if (s.expect.kind !== 'object') return { status: 'unsupported', reason: `mutate-existing: expectation ${s.expect.kind} is not checked on targets` };
    const d = compareObjects(s.expect.profile, s.expect.object, actual);
    if (d) return { status: 'failed', reason: `${s.label}: ${describeDifference(d)}` };
  }
  return { status: 'passed' };
}
