import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch } from '../walk.js';
import type { JsonPatchOp } from '../../ir/nodes.js';
import { applyPatch, type PatchStep } from '../../jsonpatch/apply.js';
import { evalFailure } from '../failure.js';
import { RequestDenied } from '../run-policy.js';
import { compileValue, type ValueFn } from '../values.js';
import { evalMemo } from '../state.js';
import type { OpFn } from './types.js';

/** Steps computed by an expression: a list of `{op, path, from?, value?}` maps. */
function computedSteps(list: JsonValue, op: JsonPatchOp): PatchStep[] {
  if (!Array.isArray(list)) throw evalFailure('TM3006', `JSON patch steps must be a list, got ${JSON.stringify(list)}`, op.origin);
  return list.map((s) => {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') {
      throw evalFailure('TM3006', `a JSON patch step needs string "op" and "path", got ${JSON.stringify(s)}`, op.origin);
    }
    // Already a step (what MAP's list(JSONPatch) becomes): `hasValue` left out means a value is present.
    if (hasOwn(s, 'value') && (s.from === undefined || typeof s.from === 'string')) return s as unknown as PatchStep;
    const out: PatchStep = { op: s.op, path: s.path, hasValue: hasOwn(s, 'value') };
    if (typeof s.from === 'string') out.from = s.from;
    if (hasOwn(s, 'value')) out.value = s.value!;
    return out;
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
      const out: PatchStep = { op: step.op, path: step.path, hasValue: value !== undefined };
      if (step.from !== undefined) out.from = step.from;
      if (value) out.value = value(st, scope);
      return out;
    });
    const computed = stepsFrom ? computedSteps(stepsFrom(st, scope), op) : undefined;
    const concrete = computed === undefined ? written : written.length === 0 ? computed : written.concat(computed);
    const r = applyPatch((st.object ?? null) as JsonValue, concrete, op.profile);
    if (r.ok) {
      let doc = r.doc;
      if (op.profile === 'evanphx-v4' && inWebhook) {
        doc = st.runtime.webhookDecoder?.(doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st) }) ?? doc;
      } else if (op.profile === 'evanphx-v4') {
        // MAP patch/json_patch.go decodes the result strictly into the kind's Go type; a failure is an
        // InternalError StatusError, which no failure policy turns into "ignore" (dispatcher.go).
        const problem = st.runtime.typedDecoder?.(r.doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st) });
        if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, op.origin));
        // dispatcher.go then re-defaults the typed object (Runtime.defaulter; none in upstream unit tests).
        if (st.runtime.defaulter) doc = st.runtime.defaulter(doc);
      }
      // An unchanged document keeps its identity, so "did this change the object" stays a cheap question.
      st.object = sameJson(doc, st.object) ? st.object : doc;
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
