/**
 * `transmute apply --target-resource` for MutatingPolicies with `evaluation.mutateExisting`, as `kyverno apply
 * --target-resource` runs them (mutate-existing-cli.ts): per trigger, every supplied target some
 * mutate-existing policy admits is evaluated with the trigger's request, and what the policies wrote is the
 * target's new state. `resource.Get`/`List` read the triggers and targets given, as the CLI's fake cluster does.
 */
import fastJsonPatch from 'fast-json-patch';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Patch6902 } from '../../interpreter/api.js';
import type { JsonObject } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { Runtime } from '../../runtime/runtime.js';
import { cliMutateExisting } from './mutate-existing-cli.js';
import { objectsProvider } from './mutate-existing.js';
import { DIALECT } from './model.js';

export interface ExistingTargetResult {
  /** The target as it was given to this trigger's run. */
  target: JsonObject;
  /** The target after the policies (the same object when none changed it). */
  object: JsonObject;
  /** RFC 6902 from `target` to `object`. */
  patch: Patch6902[];
}

export interface ExistingApplyOutcome {
  results: ExistingTargetResult[];
  /** Errors of a policy on a target (the CLI reports them as `error` results) and of the whole run. */
  diagnostics: Diagnostic[];
  /** Some policy failed: `apply` exits 1 as for a denied request. */
  failed: boolean;
}

function targetName(o: JsonObject): string {
  const md = typeof o.metadata === 'object' && o.metadata !== null && !Array.isArray(o.metadata) ? (o.metadata as JsonObject) : {};
  const ns = typeof md.namespace === 'string' && md.namespace !== '' ? `${md.namespace}/` : '';
  return `${typeof o.kind === 'string' ? o.kind : 'object'}/${ns}${typeof md.name === 'string' ? md.name : '<unnamed>'}`;
}

export function applyExistingMutatingPolicies(policyDocs: readonly SourceDoc[], trigger: AdmissionRequest, targets: readonly JsonObject[], runtime?: Runtime): ExistingApplyOutcome {
  const cluster = [...(trigger.object !== null && typeof trigger.object === 'object' && !Array.isArray(trigger.object) ? [trigger.object as JsonObject] : []), ...targets];
  const run = cliMutateExisting(policyDocs, trigger, targets, objectsProvider(cluster), runtime);
  const out: ExistingApplyOutcome = { results: [], diagnostics: [...run.diagnostics], failed: false };
  if (run.error !== undefined) {
    out.diagnostics.push(diagnostic('TM5003', { phase: 'eval', dialect: DIALECT, message: run.error }));
    out.failed = true;
    return out;
  }
  for (const r of run.results) {
    for (const response of r.evaluation.responses) {
      if (response.status !== 'error') continue;
      out.failed = true;
      out.diagnostics.push(diagnostic('TM5003', { phase: 'eval', dialect: DIALECT, message: `MutatingPolicy ${response.policy} on ${targetName(r.target)}: ${response.reason ?? 'evaluation failed'}` }));
    }
    const object = r.evaluation.object;
    const patch = object === r.target ? [] : (fastJsonPatch.compare(r.target, object) as Patch6902[]);
    out.results.push({ target: r.target, object, patch });
  }
  return out;
}
