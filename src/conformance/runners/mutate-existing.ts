/**
 * The runner for mutate-existing cases (CLI `mode: mutate-existing`, kyverno-test.yaml suites with
 * `targetResources`), as the Kyverno CLI runs them:
 * - Kyverno policies: every trigger runs the policies' `mutate.targets` rules over the supplied targets (a
 *   target mutated by one trigger is what the next trigger sees, as in a cluster), then each expected object is
 *   compared with the mutated target of the same kind, namespace and name;
 * - MutatingPolicy (`evaluation.mutateExisting`): kyverno-mpol/mutate-existing.ts `cliTestTargets`, each trigger
 *   over the supplied targets, and every pass response of a target must carry the expected object.
 * `--via kyverno-mpol` runs a Kyverno case's policies translated into MutatingPolicies
 * (kyverno-mpol/generate-existing.ts); `--via map` is refused: a MutatingAdmissionPolicy runs only at admission.
 */
import { hasMutateExistingRules, mutateExisting } from '../../dialects/kyverno/mutate-existing.js';
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { compareObjects, describeDifference } from '../compare.js';
import { firstError, MAP_CANNOT_MUTATE_EXISTING, missingDialect, translateMutateExisting } from '../policies.js';
import { kyvernoRequest, withDefaultNamespace } from '../../dialects/kyverno/test-suite/request.js';
import type { AdmissionCase, CaseResult, Expectation, RuleExpectation } from '../types.js';
import type { SourceDoc } from '../../io/source.js';
import { objectsProvider } from '../../dialects/kyverno-mpol/mutate-existing.js';
import { cliTestTargets, cliTrigger, targetIdentity } from '../../dialects/kyverno-mpol/mutate-existing-cli.js';
import { runAdmissionCase } from './admission.js';
import { existingMpolDocuments } from '../../dialects/kyverno-mpol/existing-passthrough.js';
import { renderDiagnosticLine } from '../../diagnostics/render.js';
import type { RunContext } from './context.js';
import { readImageData } from '../../cel/lib/image-data.js';
import { createRuntime } from '../../runtime/create.js';
import { deriveRuntime } from '../../runtime/runtime.js';

const identity = (o: JsonValue | null | undefined): string => {
  const v = isJsonObject(o) ? o : {};
  const md = isJsonObject(v.metadata) ? v.metadata : {};
  return `${String(v.kind ?? '')}/${String(md.namespace ?? 'default')}/${String(md.name ?? '')}`;
};

/** kyverno-test.yaml results: mutate-existing ones here, the others through the admission runner. */
export function runSuiteCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  // The suite's Context file images (cli.kyverno.io Context spec.images) serve its policies' image reads.
  const images = Array.isArray(c.hints.images) ? readImageData({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Context', spec: { images: c.hints.images } }) : undefined;
  const run = images !== undefined && typeof images !== 'string' ? { ...ctx, runtime: deriveRuntime(ctx.runtime ?? createRuntime(), { imageData: images }) } : ctx;
  return c.mutateExisting ? runMutateExistingCase(c, run) : runAdmissionCase(c, run);
}

export function runMutateExistingCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  const missing = missingDialect(c.dialect, ctx.via, ctx.dialects);
  if (missing) return missing;
  if (!c.mutateExisting || !c.request) return { status: 'error', reason: 'TM7003: the case has no trigger or targets' };
  if (c.expect.kind === 'unchecked') return { status: 'unsupported', reason: c.expect.reason };
  if (ctx.via === 'map') return { status: 'unsupported', class: 'cannot', reason: `translation to map: ${MAP_CANNOT_MUTATE_EXISTING}` };
  if (c.dialect === 'kyverno-mpol' && ctx.via === undefined) return runMpolCase(c, c.policyDocs, ctx);
  if (c.dialect === 'kyverno-mpol' && ctx.via !== 'kyverno-mpol') {
    const refused = existingRefusal(c.policyDocs, ctx.via!);
    if (refused) return refused;
  }
  if (ctx.via === 'kyverno-mpol') {
    const translated = translateMutateExisting(c.policyDocs, c.id, ctx.admitted);
    if (translated.kind === 'stop') return translated.result;
    return runMpolCase(c, translated.docs, ctx);
  }
  if (ctx.via === 'gatekeeper') return { status: 'unsupported', class: 'cannot', reason: 'translation to gatekeeper: Gatekeeper mutates only the object of an admission request; it cannot mutate existing resources (mutate.targets)' };
  if (ctx.via) return { status: 'unsupported', class: 'yet', reason: `translation to ${ctx.via}: Kyverno mutate-existing rules are not written back to ${ctx.via} yet` };
  if (!c.policyDocs.some(hasMutateExistingRules)) {
    return { status: 'unsupported', reason: 'mutate-existing: no Kyverno policy with mutate.targets rules (MutatingPolicy targets are not implemented)' };
  }

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
    const out = mutateExisting(c.policyDocs, trigger, [...current.values()], { conformance: c.hints } as never, ctx.runtime);
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

/**
 * A MutatingPolicy mutate-existing case as `kyverno test` checks it (commands/test/output.go): each trigger's run
 * gives each target it reaches one response per policy; a pass response carries the patched target, which must
 * be the expected object; a target no pass response carries is "not found", a failure.
 */
function runMpolCase(c: AdmissionCase, policyDocs: readonly SourceDoc[], ctx: RunContext): CaseResult {
  const me = c.mutateExisting!;
  const hintsValues = isJsonObject(c.hints.values) ? c.hints.values : undefined;
  const triggers: { object: JsonObject; request: AdmissionRequest }[] = [];
  if (me.triggers) {
    for (const d of me.triggers) {
      if (!isJsonObject(d.value)) continue;
      const object = withDefaultNamespace(d.value);
      const r = kyvernoRequest(object, { values: hintsValues, policy: c.ruleResults?.[0]?.policy });
      if (typeof r === 'string') return { status: 'error', reason: `TM7003: trigger: ${r}` };
      triggers.push({ object, request: r });
    }
  } else if (isJsonObject(c.request!.object)) triggers.push({ object: c.request!.object, request: c.request! });
  const targets = me.targets.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
  const cluster = c.siblingDocs.map((d) => d.value).filter(isJsonObject);
  const responses = cliTestTargets(policyDocs, triggers, targets, cluster, ctx.runtime);
  if (typeof responses === 'string') return { status: 'failed', reason: responses };

  const subjects: { label: string; target: JsonValue | undefined; expect: Expectation; ruleResults: readonly RuleExpectation[] }[] = me.triggers
    ? [{ label: identity(c.request!.object), target: c.request!.object ?? undefined, expect: c.expect, ruleResults: c.ruleResults ?? [] }, ...(c.extraSubjects ?? []).map((s) => ({ label: s.label, target: s.request.object ?? undefined, expect: s.expect, ruleResults: s.ruleResults ?? [] }))]
    : [{ label: 'expected', target: c.expect.kind === 'object' ? c.expect.object : undefined, expect: c.expect, ruleResults: c.ruleResults ?? [] }];
  for (const s of subjects) {
    if (!isJsonObject(s.target)) return { status: 'error', reason: `TM7003: ${s.label} is not an object` };
    const list = responses.get(targetIdentity(withDefaultNamespace(s.target)));
    const wantsError = s.ruleResults.some((r) => r.result === 'error') || s.expect.kind === 'error';
    if (!list) {
      // A trigger: the CLI's admission of it (every MutatingPolicy, targets or not), the policy's response.
      const trigger = triggers.find((t) => identity(t.object) === identity(s.target));
      if (!trigger) return { status: 'error', reason: `TM7003: ${s.label} is neither a trigger nor a target of the case` };
      const admitted = cliTrigger(policyDocs, trigger.request, objectsProvider([...triggers.map((t) => t.object), ...targets, ...cluster]), ctx.runtime);
      if (typeof admitted === 'string') return { status: 'failed', reason: admitted };
      const policy = s.ruleResults[0]?.policy;
      const response = admitted.responses.find((r) => policy === undefined || r.policy === policy || r.policy.endsWith(`/${policy}`));
      // No response: the CLI reports the resource as excluded, a pass whatever the entry expects.
      if (!response) continue;
      if (wantsError) {
        if (response.status !== 'error') return { status: 'failed', reason: `${s.label}: expected an error, got ${response.status}` };
        continue;
      }
      for (const r of s.ruleResults) {
        if (r.result !== response.status) return { status: 'failed', reason: `${s.label}: policy ${r.policy}: expected result ${r.result}, got ${response.status}${response.reason ? ` (${response.reason})` : ''}` };
      }
      if (s.expect.kind !== 'object') continue;
      const d = compareObjects(s.expect.profile, s.expect.object, admitted.object ?? undefined);
      if (d) return { status: 'failed', reason: `${s.label} (the trigger as the CLI admits it): ${describeDifference(d)}` };
      continue;
    }
    const carried = list.filter((r) => r.patched !== undefined);
    const errors = list.filter((r) => r.status === 'error');
    if (wantsError) {
      if (errors.length === 0) return { status: 'failed', reason: `${s.label}: expected an error, but none was reported` };
      continue;
    }
    if (carried.length === 0) {
      const why = errors[0]?.reason ?? list[0]?.reason;
      return { status: 'failed', reason: `${s.label}: no policy response carries the target (kyverno test: not found)${why ? `: ${why}` : ''}` };
    }
    for (const r of s.ruleResults) {
      if (r.result !== 'pass') return { status: 'failed', reason: `${s.label}: policy ${r.policy}: expected result ${r.result}, got pass` };
    }
    if (s.expect.kind !== 'object') return { status: 'unsupported', reason: `mutate-existing: expectation ${s.expect.kind} is not checked on targets` };
    for (const r of carried) {
      const d = compareObjects(s.expect.profile, s.expect.object, r.patched!);
      if (d) return { status: 'failed', reason: `${s.label} (policy ${r.policy}, trigger ${identity(r.trigger)}): ${describeDifference(d)}` };
    }
  }
  return { status: 'passed' };
}

/** Why a MutatingPolicy that mutates existing resources has no translation to `via` (existing-passthrough.ts). */
function existingRefusal(docs: readonly SourceDoc[], via: string): CaseResult | undefined {
  const d = existingMpolDocuments(docs, via, { unsupported: 'error', apiVersion: 'v1' }).diagnostics.find((x) => x.code === 'TM4001');
  return d ? { status: 'unsupported', class: d.unsupported ?? 'yet', reason: `translation to ${via}: ${renderDiagnosticLine(d)}` } : undefined;
}

