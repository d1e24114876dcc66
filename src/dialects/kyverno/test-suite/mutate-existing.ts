/**
 * `kyverno test` for a mutate-existing rule (commands/test with `targetResources`): every resource of the test
 * triggers the policy's `mutate.targets` rules over the target resources (a target mutated by one trigger is
 * what the next one sees). A result naming a target checks that target; one naming a trigger checks the
 * targets it mutated (the rule response's patched target). pass = changed, skip = unchanged.
 */
import { kyvernoRequest } from './request.js';
import { jsonEqual, type JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { mutateExisting } from '../mutate-existing.js';
import { checkPatched, findPatched } from './compare.js';
import { metadataOf } from './select.js';

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
): Map<string, TargetOutcome> | string {
  const outcomes = new Map<string, TargetOutcome>();
  for (const t of targets) outcomes.set(identityOf(t), { before: t, after: t, triggers: new Set() });
  const conformance: JsonObject = inputs.values ? { values: inputs.values } : {};
  for (const trigger of triggers) {
    const request = kyvernoRequest(trigger, inputs);
    if (typeof request === 'string') return request;
    const current = [...outcomes.values()].map((o) => o.after);
    const out = mutateExisting(policyDocs, request, current, { conformance } as never);
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
