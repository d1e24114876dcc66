import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch } from '../walk.js';
import type { JsonPatchOp } from '../../ir/nodes.js';
import { applyPatch, type PatchOutcome, type PatchStep } from '../../jsonpatch/apply.js';
import { applyEvanphxV4Telling, type PatchEdit } from '../../jsonpatch/evanphx-v4.js';
import { evalFailure } from '../failure.js';
import { RequestDenied } from '../run-policy.js';
import { compileValue, type ValueFn } from '../values.js';
import { evalMemo } from '../state.js';
import type { OpFn } from './types.js';

/**
 * Steps computed by an expression: a list of `{op, path, from?, value?}` maps. Every step gets all members
 * (`from` and `value` undefined when absent): the patch engines read each of them, and reading a member an
 * object lacks is a slow look-up in V8 once the read site has seen several shapes.
 */
function computedSteps(list: JsonValue, op: JsonPatchOp): PatchStep[] {
  if (!Array.isArray(list)) throw evalFailure('TM3006', `JSON patch steps must be a list, got ${JSON.stringify(list)}`, op.origin);
  return list.map((s) => {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') {
      throw evalFailure('TM3006', `a JSON patch step needs string "op" and "path", got ${JSON.stringify(s)}`, op.origin);
    }
    const hasValue = hasOwn(s, 'value');
    const from = hasOwn(s, 'from') && typeof s.from === 'string' ? s.from : undefined;
    return { op: s.op, path: s.path, from, value: hasValue ? s.value! : undefined, hasValue };
  });
}

const NO_STEPS: PatchStep[] = [];

export function compileJsonPatch(op: JsonPatchOp): OpFn {
  // Kyverno's MutatingPolicy applies the same JSONPatch in its webhook, on the unstructured object
  // (pkg/cel/policies/mpol/compiler/json.go): no strict typed decode there, its own error prefix, and the API
  // server's lenient decode of the webhook's result afterwards (Runtime.webhookDecoder).
  const inWebhook = op.origin.dialect === 'kyverno-mpol';
  const steps = op.steps.map((s) => ({ step: s, value: s.value ? compileValue(s.value) : undefined }));
  const stepsFrom = op.stepsFrom ? compileValue(op.stepsFrom) : undefined;
  return (st, scope) => {
    const written: PatchStep[] = steps.length === 0 ? NO_STEPS : steps.map(({ step, value }: { step: JsonPatchOp['steps'][number]; value: ValueFn | undefined }) => {
      return { op: step.op, path: step.path, from: step.from, value: value === undefined ? undefined : value(st, scope), hasValue: value !== undefined };
    });
    const computed = stepsFrom ? computedSteps(stepsFrom(st, scope), op) : undefined;
    const concrete = computed === undefined ? written : written.length === 0 ? computed : written.concat(computed);
    const before = (st.object ?? null) as JsonValue;
    let differs = false;
    let edit: PatchEdit | undefined;
    let r: PatchOutcome;
    if (op.profile === 'evanphx-v4') ({ outcome: r, differs, edit } = applyEvanphxV4Telling(before, concrete));
    else r = applyPatch(before, concrete, op.profile);
    if (r.ok) {
      let doc = r.doc;
      if (op.profile === 'evanphx-v4' && inWebhook) {
        doc = st.runtime.webhookDecoder?.(doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st) }) ?? doc;
      } else if (op.profile === 'evanphx-v4') {
        // MAP patch/json_patch.go decodes the result strictly into the kind's Go type; a failure is an
        // InternalError StatusError, which no failure policy turns into "ignore" (dispatcher.go).
        // One shape of context whether or not there is an edit (a missing member is a slow read in the decoder).
        const documentEdit = edit === undefined ? undefined : { from: before, at: edit.at, removed: edit.removed };
        const problem = st.runtime.typedDecoder?.(r.doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st), edit: documentEdit });
        if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, op.origin));
        // dispatcher.go then re-defaults the typed object (Runtime.defaulter; none in upstream unit tests).
        if (st.runtime.defaulter) doc = st.runtime.defaulter(doc);
      }
      // An unchanged document keeps its identity, so "did this change the object" stays a cheap question.
      st.object = (differs && doc === r.doc) || !sameJson(doc, st.object) ? doc : st.object;
      // The patched document shares subtrees (a `copy` step even shares one twice): nothing is owned.
      st.owned = newEpoch();
      return scope;
    }
    // kube-apiserver treats a failed `test` as "this mutation does not apply" (patch/json_patch.go).
    if (r.kind === 'testFailed' && op.profile === 'evanphx-v4') return scope;
    // patch/json_patch.go wraps the library's error: fmt.Errorf("JSONPath: %w", err).
    // Kyverno's mpol compiler: fmt.Errorf("JSON Patch: %w", err).
    const message = op.profile !== 'evanphx-v4' ? r.message : inWebhook ? `JSON Patch: ${r.message}` : `JSONPath: ${r.message}`;
    throw evalFailure('TM3006', message, op.steps[r.step]?.origin ?? op.origin);
  };
}
