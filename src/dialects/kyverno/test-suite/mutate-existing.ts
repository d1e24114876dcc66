/**
 * `kyverno test` for a mutate-existing rule (commands/test with `targetResources`): every resource of the test
 * triggers the policy's `mutate.targets` rules over the target resources (a target mutated by one trigger is
 * what the next one sees). A result naming a target checks that target; one naming a trigger checks the
 * targets it mutated (the rule response's patched target). pass = changed, skip = unchanged.
 * A MutatingPolicy with `evaluation.mutateExisting` is run as the CLI runs it (kyverno-mpol/mutate-existing.ts
 * `cliTestTargets`): `checkMpolMutateExisting` checks one of its entries.
 */
import { kyvernoRequest } from './request.js';
import { isJsonObject, jsonEqual, type JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { mutateExisting } from '../mutate-existing.js';
import type { CliResponse, CliTriggerOutcome } from '../../kyverno-mpol/mutate-existing-cli.js';
import { checkPatched, findPatched } from './compare.js';
import { metadataOf } from './select.js';
import type { Runtime } from '../../../runtime/runtime.js';

export interface TargetOutcome {
  before: JsonObject;
  after: JsonObject;
  /** Identities of the triggers whose rule reached this target. */
  triggers: Set<string>;
  error?: string;
}

export const identityOf = (o: JsonObject): string => `${String(o.kind ?? '')}/${String(metadataOf(o).namespace ?? '')}/${String(metadataOf(o).name ?? '')}`;

/** Runs every trigger over the targets for the named rule; outcomes by target identity. */
export function runMutateExistingRule(
  policyDocs: readonly SourceDoc[],
  rule: string,
  triggers: readonly JsonObject[],
  targets: readonly JsonObject[],
  inputs: { values?: JsonObject | undefined; userInfo?: JsonObject | undefined; policy: string },
  runtime?: Runtime,
): Map<string, TargetOutcome> | string {
  const outcomes = new Map<string, TargetOutcome>();
  for (const t of targets) outcomes.set(identityOf(t), { before: t, after: t, triggers: new Set() });
  const conformance: JsonObject = inputs.values ? { values: inputs.values } : {};
  for (const trigger of triggers) {
    const request = kyvernoRequest(trigger, inputs);
    if (typeof request === 'string') return request;
    const current = [...outcomes.values()].map((o) => o.after);
    const out = mutateExisting(policyDocs, request, current, { conformance } as never, runtime);
    const failed = out.diagnostics.find((d) => d.severity === 'error');
    if (failed) return failed.message;
    for (const r of out.results) {
      if (r.rule !== rule) continue;
      const o = outcomes.get(identityOf(r.target))!;
      o.triggers.add(identityOf(trigger));
      if (!r.result.allowed) o.error = r.result.diagnostics.find((d) => d.severity === 'error')?.message ?? 'rule error';
      else if (r.result.object && typeof r.result.object === 'object' && !Array.isArray(r.result.object)) o.after = r.result.object;
    }
  }
  return outcomes;
}

/** The row outcome for one subject (a target, or a trigger standing for the targets it reached). */
export function checkMutateExisting(
  outcomes: Map<string, TargetOutcome>,
  subject: JsonObject,
  want: string,
  patched: { name: string; docs: readonly SourceDoc[] } | undefined,
): { status: 'passed' | 'failed' | 'skipped'; reason: string; diff?: string } {
  const id = identityOf(subject);
  const direct = outcomes.get(id);
  const reached = direct ? [direct] : [...outcomes.values()].filter((o) => o.triggers.has(id));
  if (reached.length === 0) {
    if (want === 'skip') return { status: 'skipped', reason: 'excluded: the rule reached no target' };
    return { status: 'failed', reason: `the rule reached no target from ${id} (want ${want || 'a result'})` };
  }
  const errored = reached.find((o) => o.error);
  const got = errored ? 'error' : reached.some((o) => !jsonEqual(o.after, o.before)) ? 'pass' : 'skip';
  if (patched) {
    if (!reached.some((o) => findPatched(patched.docs, o.after))) return { status: 'failed', reason: `patched resource: ${patched.name} has none of the targets reached from ${id}` };
    for (const o of reached) {
      const expected = findPatched(patched.docs, o.after);
      if (!expected) continue;
      const compared = checkPatched(expected, o.after, patched.name);
      if (!compared.ok) return { status: 'failed', reason: compared.reason, ...(compared.diff ? { diff: compared.diff } : {}) };
    }
  }
  if (got !== want) return { status: 'failed', reason: `want ${want || '(none)'}, got ${got}${errored?.error ? `: ${errored.error}` : ''}` };
  return { status: want === 'skip' ? 'skipped' : 'passed', reason: 'Ok' };
}

/**
 * A result entry on a target of a mutate-existing MutatingPolicy (`isMutatingPolicy: true`), as `kyverno test`
 * reports it (commands/test/output.go, responses.Target): every pass response that carries the target must
 * match the patched resource and the expected result; a target no pass response carries is "not found".
 */
export function checkMpolMutateExisting(
  responses: readonly CliResponse[],
  want: string,
  patched: { name: string; docs: readonly SourceDoc[] } | undefined,
): { status: 'passed' | 'failed' | 'skipped'; reason: string; diff?: string } {
  const carried = responses.filter((r) => r.patched !== undefined);
  if (carried.length === 0) {
    const why = responses.find((r) => r.status === 'error')?.reason ?? responses[0]?.reason;
    return { status: 'failed', reason: `not found: no policy response carries the target${why ? ` (${why})` : ''}` };
  }
  for (const r of carried) {
    if (patched) {
      const expected = findPatched(patched.docs, r.patched!);
      if (!expected) return { status: 'failed', reason: `patched resource: ${patched.name} has no ${identityOf(r.patched!)}` };
      const compared = checkPatched(expected, r.patched!, patched.name);
      if (!compared.ok) return { status: 'failed', reason: `${compared.reason} (policy ${r.policy}, trigger ${identityOf(r.trigger)})`, ...(compared.diff ? { diff: compared.diff } : {}) };
    }
    if (want !== 'pass') return { status: 'failed', reason: `want ${want || '(none)'}, got pass (policy ${r.policy})` };
  }
  return { status: 'passed', reason: 'Ok' };
}

/**
 * A result entry on a resource of a test whose MutatingPolicy mutates existing resources: the CLI admits it
 * with every MutatingPolicy (targets or not) and checks the entry policy's response; no response is "excluded",
 * which the CLI reports as a pass.
 */
export function checkMpolTrigger(
  admitted: CliTriggerOutcome | string,
  policyRef: string,
  want: string,
  patched: { name: string; docs: readonly SourceDoc[] } | undefined,
): { status: 'passed' | 'failed' | 'skipped'; reason: string; diff?: string } {
  if (typeof admitted === 'string') return { status: 'failed', reason: admitted };
  const name = policyRef.slice(policyRef.lastIndexOf('/') + 1);
  const response = admitted.responses.find((r) => r.policy === policyRef || r.policy === name || r.policy.endsWith(`/${name}`));
  if (!response) return { status: want === 'skip' ? 'skipped' : 'passed', reason: 'excluded: the policy does not match the resource' };
  const object = admitted.object;
  if (patched && isJsonObject(object)) {
    const expected = findPatched(patched.docs, object);
    if (!expected) return { status: 'failed', reason: `patched resource: ${patched.name} has no ${identityOf(object)}` };
    const compared = checkPatched(expected, object, patched.name);
    if (!compared.ok) return { status: 'failed', reason: compared.reason, ...(compared.diff ? { diff: compared.diff } : {}) };
  }
  if (response.status !== want) return { status: 'failed', reason: `want ${want || '(none)'}, got ${response.status}${response.reason ? `: ${response.reason}` : ''}` };
  return { status: want === 'skip' ? 'skipped' : 'passed', reason: 'Ok' };
}
