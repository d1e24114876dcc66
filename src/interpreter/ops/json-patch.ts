import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import { sameJson } from '../same-json.js';
import { newEpoch, type Owned } from '../walk.js';
import { applyEvanphxV4InPlace, MemberSets, PlaceMemo } from '../../jsonpatch/evanphx-v4-in-place.js';
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
import type { Scope } from '../scope.js';
import type { TypedDecoder } from '../engines.js';

/**
 * Steps computed by an expression: a list of `{op, path, from?, value?}` maps. Every step gets all members
 * (`from` and `value` undefined when absent): the patch engines read each of them, and reading a member an
 * object lacks is a slow look-up in V8 once the read site has seen several shapes. Most lists hold one step:
 * its list is made to size.
 */
function computedSteps(list: JsonValue, op: JsonPatchOp, places: KnownPlaces | undefined, one?: OneStep): PatchStep[] {
  if (!Array.isArray(list)) throw evalFailure('TM3006', `JSON patch steps must be a list, got ${JSON.stringify(list)}`, op.origin);
  if (list.length === 1) {
    if (one === undefined) return [fillStep(emptyStep(), list[0]!, op, places)];
    fillStep(one.step, list[0]!, op, places);
    return one.list;
  }
  const steps: PatchStep[] = [];
  for (let i = 0; i < list.length; i++) steps.push(fillStep(emptyStep(), list[i]!, op, places));
  return steps;
}

/**
 * The step of a computed one-step list (most are) and the list holding it, filled again at each evaluation
 * of the op: the patch engines read the steps during their call only (an outcome names a failed step by its
 * index), so each evaluation is done with them before the next starts.
 */
interface OneStep {
  readonly step: PatchStep;
  readonly list: PatchStep[];
}

function oneStep(): OneStep {
  const step = emptyStep();
  return { step, list: [step] };
}

/** A step with every member (see computedSteps), to be filled. */
function emptyStep(): PatchStep {
  return { op: '', path: '', from: undefined, value: undefined, hasValue: false, segments: undefined, place: undefined };
}

/** `step` made the computed step `s`, with its path's decoded segments and PlaceMemo kept by the op (KnownPlaces) when it has room. */
function fillStep(step: PatchStep, s: JsonValue, op: JsonPatchOp, places: KnownPlaces | undefined): PatchStep {
  if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') {
    throw evalFailure('TM3006', `a JSON patch step needs string "op" and "path", got ${JSON.stringify(s)}`, op.origin);
  }
  const hasValue = hasOwn(s, 'value');
  const at = places === undefined ? -1 : placeOf(places, s.path);
  step.op = s.op;
  step.path = s.path;
  step.from = hasOwn(s, 'from') && typeof s.from === 'string' ? s.from : undefined;
  step.value = hasValue ? s.value! : undefined;
  step.hasValue = hasValue;
  step.segments = places === undefined ? undefined : at < 0 ? decodedPath(s.path) : places.segments[at];
  step.place = at < 0 ? undefined : places!.memos[at];
  return step;
}

/**
 * The decoded path and PlaceMemo of each path an op's computed steps named, by the path: most ops compute one
 * path or two (a condition choosing between two patches), with a few values; the path is compared as a
 * string (mostly the same string each time, a constant of the program), which costs less than decodedPath's
 * look-up by its hash.
 */
interface KnownPlaces {
  readonly paths: string[];
  readonly segments: (readonly string[])[];
  readonly memos: PlaceMemo[];
}

const KNOWN_PLACES = 4;

/** The index of `path` in `places`, added when new, or -1 past KNOWN_PLACES paths (the place is then walked at each decode). */
function placeOf(places: KnownPlaces, path: string): number {
  const known = places.paths;
  for (let i = 0; i < known.length; i++) if (known[i] === path) return i;
  if (known.length >= KNOWN_PLACES) return -1;
  known.push(path);
  places.segments.push(decodedPath(path));
  places.memos.push(new PlaceMemo());
  return known.length - 1;
}

/**
 * Lists of steps that cannot change, with the steps made of them (stepsOf): a few per op (a program's constant
 * lists), found by identity; past PREPARED_LISTS the others are computed each time.
 */
interface PreparedSteps {
  readonly lists: (readonly JsonValue[])[];
  readonly steps: (readonly PatchStep[])[];
  /** For the in-place engine, which reads a step's decoded path and its PlaceMemo; undefined for the others. */
  readonly places: KnownPlaces | undefined;
  /** The op's reused one-step list (see OneStep), for the lists computed at each evaluation. */
  readonly one: OneStep;
}

const PREPARED_LISTS = 8;

const NO_STEPS: readonly PatchStep[] = [];

/**
 * computedSteps, made once per list that cannot change (frozen, of frozen steps: the constant lists of
 * `JSONPatch` literals generated CEL programs return, src/cel/codegen.ts patchList), with each path decoded
 * then (PatchStep.segments): the same list gives the same steps, so the same outcome. Other lists, and lists
 * computedSteps rejects, go through computedSteps at every evaluation.
 */
function stepsOf(list: JsonValue, op: JsonPatchOp, prepared: PreparedSteps): readonly PatchStep[] {
  if (Array.isArray(list) && list.length === 0) return NO_STEPS;
  if (!Array.isArray(list) || !Object.isFrozen(list)) return computedSteps(list, op, prepared.places, prepared.one);
  const lists = prepared.lists;
  for (let i = 0; i < lists.length; i++) if (lists[i] === list) return prepared.steps[i]!;
  const steps = computedSteps(list, op, undefined);
  if (lists.length >= PREPARED_LISTS || !list.every((s) => Object.isFrozen(s))) return steps;
  const made = steps.map((s) => ({ op: s.op, path: s.path, from: s.from, value: s.value, hasValue: s.hasValue, segments: decodedPath(s.path), place: new PlaceMemo() }));
  lists.push(list);
  prepared.steps.push(made);
  return made;
}

/**
 * A JSONPatch op in its two halves: `evaluate`, the steps it applies (its written steps, then those its
 * expression computes: an EvalFailure when that fails), and `apply`, the patch of those steps to the object
 * (`epoch`: st.owned before the evaluation, which may have ended it). src/compile/map-rule-runs.ts runs a
 * MAP JSONPatch's steps its own way where it can, and hands the others to `apply`.
 */
export interface JsonPatchParts {
  evaluate(st: EvalState, scope: Scope): readonly PatchStep[];
  apply(st: EvalState, epoch: Owned, steps: readonly PatchStep[]): void;
  /** For an op of computed steps only: the steps `evaluate` makes of the expression's value `list`. */
  readonly computed: ((list: JsonValue) => readonly PatchStep[]) | undefined;
}

export function compileJsonPatch(op: JsonPatchOp): OpFn {
  const parts = jsonPatchParts(op);
  return (st, scope) => {
    const epoch = st.owned;
    parts.apply(st, epoch, parts.evaluate(st, scope));
    return scope;
  };
}

export function jsonPatchParts(op: JsonPatchOp): JsonPatchParts {
  // Kyverno's MutatingPolicy applies the same JSONPatch in its webhook, on the unstructured object
  // (pkg/cel/policies/mpol/compiler/json.go): no strict typed decode there, its own error prefix, and the API
  // server's lenient decode of the webhook's result afterwards (Runtime.webhookDecoder).
  const inWebhook = op.origin.dialect === 'kyverno-mpol';
  // The in-place engine reads a step's path decoded (PatchStep.segments): a written step's, once.
  const steps = op.steps.map((s) => ({
    step: s,
    value: s.value ? compileValue(s.value) : undefined,
    segments: op.profile === 'evanphx-v4' ? decodedPath(s.path) : undefined,
    place: op.profile === 'evanphx-v4' ? new PlaceMemo() : undefined,
  }));
  // The ownership the evaluation of the steps may end is checked below (inPlaceOwner), as ops/merge.ts does.
  const stepsFrom = op.stepsFrom ? compileValueNode(op.stepsFrom) : undefined;
  const inPlace = op.profile === 'evanphx-v4' && !inWebhook;
  const prepared: PreparedSteps = { lists: [], steps: [], places: inPlace ? { paths: [], segments: [], memos: [] } : undefined, one: oneStep() };
  // The account of this op's in-place patch, filled again at each evaluation (patchInPlace is done with it on return).
  const record = new MemberSets();
  const evaluate = (st: EvalState, scope: Scope): readonly PatchStep[] => {
    const written: readonly PatchStep[] =
      steps.length === 0
        ? NO_STEPS
        : steps.map(({ step, value, segments, place }: { step: JsonPatchOp['steps'][number]; value: ValueFn | undefined; segments: readonly string[] | undefined; place: PlaceMemo | undefined }) => {
            return { op: step.op, path: step.path, from: step.from, value: value === undefined ? undefined : value(st, scope), hasValue: value !== undefined, segments, place };
          });
    const computed = stepsFrom ? stepsOf(stepsFrom(st, scope), op, prepared) : undefined;
    return computed === undefined ? written : written.length === 0 ? computed : written.concat(computed);
  };
  const computed = steps.length === 0 && stepsFrom !== undefined ? (list: JsonValue): readonly PatchStep[] => stepsOf(list, op, prepared) : undefined;
  const apply = (st: EvalState, epoch: Owned, concrete: readonly PatchStep[]): void => {
    const before = (st.object ?? null) as JsonValue;
    if (inPlace) {
      const decoder = st.runtime.typedDecoder;
      if (decoder !== undefined && decoder.inPlaceEdits === true) {
        if (concrete.length === 0 && st.runtime.defaulter === undefined) {
          decodeUnpatched(st, decoder, before, op.origin);
          return;
        }
        if (patchInPlace(st, decoder, epoch, before, concrete, record, op.origin)) return;
      }
    }
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
      // Kyverno's webhook patches the unstructured object; kube-apiserver decodes what the whole policy made
      // (run-policy.ts webhookDecoded), not each mutation's result.
      if (op.profile === 'evanphx-v4' && !inWebhook) {
        // MAP patch/json_patch.go decodes the result strictly into the kind's Go type; a failure is an
        // InternalError StatusError, which no failure policy turns into "ignore" (dispatcher.go).
        // One shape of context whether or not there is an edit (a missing member is a slow read in the decoder).
        const documentEdit = edit === undefined ? undefined : { from: before, at: edit.at, removed: edit.removed };
        const problem = st.runtime.typedDecoder?.(r.doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st), edit: documentEdit, patched: undefined, before });
        if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, op.origin));
        // dispatcher.go then re-defaults the typed object (Runtime.defaulter; none in upstream unit tests).
        if (st.runtime.defaulter) doc = st.runtime.defaulter(doc);
      }
      // An unchanged document keeps its identity, so "did this change the object" stays a cheap question.
      st.object = (differs && doc === r.doc) || !sameJson(doc, st.object) ? doc : st.object;
      // The patched document shares subtrees (a `copy` step even shares one twice): nothing is owned.
      st.owned = newEpoch();
      return;
    }
    // kube-apiserver treats a failed `test` as "this mutation does not apply" (patch/json_patch.go).
    if (r.kind === 'testFailed' && op.profile === 'evanphx-v4') return;
    // patch/json_patch.go wraps the library's error: fmt.Errorf("JSONPath: %w", err).
    // Kyverno's mpol compiler: fmt.Errorf("JSON Patch: %w", err).
    const message = op.profile !== 'evanphx-v4' ? r.message : inWebhook ? `JSON Patch: ${r.message}` : `JSONPath: ${r.message}`;
    throw evalFailure('TM3006', message, op.steps[r.step]?.origin ?? op.origin);
  };
  return { evaluate, apply, computed };
}

/**
 * A MAP JSONPatch by src/jsonpatch/evanphx-v4-in-place.ts, writing in place into the maps earlier merges and
 * patches of the evaluation created (EvalState.merges) while the epoch holds (`epoch`: st.owned before the
 * steps were evaluated, which may have ended it) and no step value holds one of them; other containers on
 * the paths are copied, and the copies are owned from then on. False, with nothing changed, when the
 * reference must run (a step it does not take or that fails: the reference words the failure). `record`: the
 * op's MemberSets, which the usual patch fills again (nothing reads it after the decode).
 */
function patchInPlace(st: EvalState, decoder: TypedDecoder, epoch: Owned, before: JsonValue, steps: readonly PatchStep[], record: MemberSets, origin: Origin): boolean {
  const owned = inPlaceOwner(st, epoch, steps);
  const patched = applyEvanphxV4InPlace(before, steps, owned, record);
  if (patched === undefined) return false;
  // The patch tells the decoder how it was made (it is a PatchedDocument).
  const problem = decoder(patched.doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st), edit: undefined, patched, before: patched.from });
  // As the reference: the same document, so the same words; the denial ends the evaluation (the object
  // changed in place is dropped with it, interpreter/index.ts).
  if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, origin));
  // dispatcher.go re-defaults the typed object after each mutation (Runtime.defaulter).
  const doc = st.runtime.defaulter ? st.runtime.defaulter(patched.doc) : patched.doc;
  // Nothing written (a set of the value the member holds): the document and what the evaluation owns stay.
  if (doc === before && patched.changed.length === 0) return true;
  if (patched.changed.length === 0 && !patched.differs && doc !== before && sameJson(doc, before)) {
    // Copies only, to an equal document: it keeps its identity, as the reference's does (nothing owned then).
    st.owned = newEpoch();
    st.merges = undefined;
    return true;
  }
  patched.commit();
  // Same identity, new content: what was derived from the object by identity is stale (as ops/merge.ts).
  if (patched.changed.length > 0) st.matchRequest = undefined;
  st.object = doc;
  // Steps whose values hold no container put nothing in the document that is referenced elsewhere too: what the
  // evaluation owned stays owned, in the same epoch (the copies the patch made joined it on commit).
  const merges = st.merges;
  if (doc === patched.doc && st.owned === epoch && merges !== undefined && merges.epoch === epoch && merges.owned === owned && holdNoContainer(steps)) return true;
  st.owned = newEpoch();
  st.merges = { epoch: st.owned, owned };
  return true;
}

/** No step's value is or holds a container another place may reference: scalars, and frozen constants (see holdsAny). */
function holdNoContainer(steps: readonly PatchStep[]): boolean {
  for (let i = 0; i < steps.length; i++) {
    const v = steps[i]!.value;
    if (v !== undefined && v !== null && typeof v === 'object' && !Object.isFrozen(v)) return false;
  }
  return true;
}

/**
 * An empty patch on the in-place path (no defaulter): evanphx applies no step, so the document stays as it
 * is, and so does what the evaluation owns; the strict decode still runs (patch/json_patch.go decodes
 * whatever Apply returned), so an undeclared field the object already had is still the mutation's error.
 */
function decodeUnpatched(st: EvalState, decoder: TypedDecoder, doc: JsonValue, origin: Origin): void {
  const problem = decoder(doc, { request: st.request, runtime: st.runtime, memo: evalMemo(st), edit: undefined, patched: undefined, before: doc });
  if (problem !== undefined) throw new RequestDenied(evalFailure('TM3006', problem, origin));
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
