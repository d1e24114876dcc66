import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch, type Owned } from '../walk.js';
import { applyEvanphxV4InPlace } from '../../jsonpatch/evanphx-v4-in-place.js';
import { holdsAny } from './merge.js';
import type { JsonPatchOp } from '../../ir/nodes.js';
import { applyPatch, type PatchOutcome, type PatchStep } from '../../jsonpatch/apply.js';
import { applyEvanphxV4Telling, decodedPath, type PatchEdit } from '../../jsonpatch/evanphx-v4.js';
import type { Origin } from '../../diagnostics/span.js';
import { evalFailure } from '../failure.js';
import { RequestDenied } from '../run-policy.js';
import { compileValue, compileValueNode, type ValueFn } from '../values.js';
import { evalMemo, type EvalState } from '../state.js';
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
    return { op: s.op, path: s.path, from, value: hasValue ? s.value! : undefined, hasValue, segments: undefined };
  });
}

/**
 * Lists of steps that cannot change, with the steps made of them (stepsOf): a few per op (a program's constant
 * lists), found by identity; past PREPARED_LISTS the others are computed each time.
 */
interface PreparedSteps {
  readonly lists: (readonly JsonValue[])[];
  readonly steps: (readonly PatchStep[])[];
}

const PREPARED_LISTS = 8;

/**
 * computedSteps, made once per list that cannot change (frozen, of frozen steps: the constant lists of
 * `JSONPatch` literals generated CEL programs return, src/cel/codegen.ts patchList), with each path decoded
 * then (PatchStep.segments): the same list gives the same steps, so the same outcome. Other lists, and lists
 * computedSteps rejects, go through computedSteps at every evaluation.
 */
function stepsOf(list: JsonValue, op: JsonPatchOp, prepared: PreparedSteps): readonly PatchStep[] {
  if (!Array.isArray(list) || !Object.isFrozen(list)) return computedSteps(list, op);
  const lists = prepared.lists;
  for (let i = 0; i < lists.length; i++) if (lists[i] === list) return prepared.steps[i]!;
  const steps = computedSteps(list, op);
  if (lists.length >= PREPARED_LISTS || !list.every((s) => Object.isFrozen(s))) return steps;
  const made = steps.map((s) => ({ op: s.op, path: s.path, from: s.from, value: s.value, hasValue: s.hasValue, segments: decodedPath(s.path) }));
  lists.push(list);
  prepared.steps.push(made);
  return made;
}

const NO_STEPS: readonly PatchStep[] = [];

export function compileJsonPatch(op: JsonPatchOp): OpFn {
  // Kyverno's MutatingPolicy applies the same JSONPatch in its webhook, on the unstructured object
  // (pkg/cel/policies/mpol/compiler/json.go): no strict typed decode there, its own error prefix, and the API
  // server's lenient decode of the webhook's result afterwards (Runtime.webhookDecoder).
  const inWebhook = op.origin.dialect === 'kyverno-mpol';
  // The in-place engine reads a step's path decoded (PatchStep.segments): a written step's, once.
  const steps = op.steps.map((s) => ({ step: s, value: s.value ? compileValue(s.value) : undefined, segments: op.profile === 'evanphx-v4' ? decodedPath(s.path) : undefined }));
  // The ownership the evaluation of the steps may end is checked below (inPlaceOwner), as ops/merge.ts does.
  const stepsFrom = op.stepsFrom ? compileValueNode(op.stepsFrom) : undefined;
  const inPlace = op.profile === 'evanphx-v4' && !inWebhook;
  const prepared: PreparedSteps = { lists: [], steps: [] };
  return (st, scope) => {
    const epoch = st.owned;
    const written: readonly PatchStep[] =
      steps.length === 0
        ? NO_STEPS
        : steps.map(({ step, value, segments }: { step: JsonPatchOp['steps'][number]; value: ValueFn | undefined; segments: readonly string[] | undefined }) => {
            return { op: step.op, path: step.path, from: step.from, value: value === undefined ? undefined : value(st, scope), hasValue: value !== undefined, segments };
          });
    const computed = stepsFrom ? stepsOf(stepsFrom(st, scope), op, prepared) : undefined;
    const concrete = computed === undefined ? written : written.length === 0 ? computed : written.concat(computed);
    const before = (st.object ?? null) as JsonValue;
    if (inPlace && st.runtime.typedDecoder?.inPlaceEdits === true && patchInPlace(st, epoch, before, concrete, op.origin)) return scope;
    // The steps' values may hold the object's own subtrees, and the result shares them: nothing is owned.
    st.owned = newEpoch();
    st.merges = undefined;
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

/**
 * A MAP JSONPatch by src/jsonpatch/evanphx-v4-in-place.ts, writing in place into the maps earlier merges and
 * patches of the evaluation created (EvalState.merges) while the epoch holds (`epoch`: st.owned before the
 * steps were evaluated, which may have ended it) and no step value holds one of them; other containers on
 * the paths are copied, and the copies are owned from then on. False, with nothing changed, when the
 * reference must run (a step it does not take or that fails: the reference words the failure).
 */
function patchInPlace(st: EvalState, epoch: Owned, before: JsonValue, steps: readonly PatchStep[], origin: Origin): boolean {
  const owned = inPlaceOwner(st, epoch, steps);
  const patched = applyEvanphxV4InPlace(before, steps, owned);
  if (patched === undefined) return false;
  const problem = st.runtime.typedDecoder!(patched.doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st), patched: { from: before, changed: patched.changed, sets: patched.sets } });
  // As the reference: the same document, so the same words; the denial ends the evaluation (the object
  // changed in place is dropped with it, interpreter/index.ts).
  if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, origin));
  // dispatcher.go re-defaults the typed object after each mutation (Runtime.defaulter).
  const doc = st.runtime.defaulter ? st.runtime.defaulter(patched.doc) : patched.doc;
  if (patched.changed.length === 0 && doc !== before && sameJson(doc, before)) {
    // Copies only, to an equal document: it keeps its identity, as the reference's does (nothing owned then).
    st.owned = newEpoch();
    st.merges = undefined;
    return true;
  }
  patched.commit();
  // Same identity, new content: what was derived from the object by identity is stale (as ops/merge.ts).
  if (patched.changed.length > 0) st.matchRequest = undefined;
  st.object = doc;
  st.owned = newEpoch();
  st.merges = { epoch: st.owned, owned };
  return true;
}

/** The maps the patch may write in place (see patchInPlace), or a new, empty set. */
function inPlaceOwner(st: EvalState, epoch: Owned, steps: readonly PatchStep[]): Owned {
  const merges = st.merges;
  if (merges === undefined || merges.epoch !== epoch || st.owned !== epoch) return newEpoch();
  for (let i = 0; i < steps.length; i++) {
    const v = steps[i]!.value;
    if (v !== undefined && holdsAny(v, merges.owned)) return newEpoch();
  }
  return merges.owned;
}
