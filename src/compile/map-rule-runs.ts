/**
 * Runs of MAP mutations as one step (issue 17). A MutatingAdmissionPolicy is a list of mutations, each one
 * rule of one op (an ApplyConfiguration merged at the root, or a JSONPatch) behind the policy's lazy
 * variables; run one by one, each pays for the rule loop, the block, the op, the merge engine's look-ups of
 * the evaluation's facts and the hand-over of what the evaluation owns. Here the rules run back to back:
 * - an ApplyConfiguration whose patch the fused merge takes (merge/ssa/fused-apply.ts applyFused) is merged
 *   directly, writing in place into the maps the run's merges created, as the engine would;
 * - a JSONPatch of object member sets is applied by map-run-patch.ts, into the same maps;
 * - anything else (a patch either gives up on, another engine, decoder or a defaulter in the runtime) runs
 *   as the op itself would from there (ops/merge.ts mergeIntoRoot with the evaluated patch, the JSONPatch
 *   op's `apply` with the evaluated steps, or the rule's compiled body), with the state handed over first and
 *   taken back after.
 * The mutations' CEL runs against one activation for the run, with the policy's variables in the run's own
 * slots (map-run-direct.ts), where the engine offers that; otherwise each rule binds its lazy variables.
 *
 * Each rule sees the object the rules before it made and evaluates its own bindings, so results, errors and
 * key order are the sequential ones (test/compile/map-rule-runs.test.ts, and the corpus differential of
 * test/compile/differential.test.ts). An EvalFailure is thrown as the failure of the rule `st.ruleName`
 * names, with what the rules before it wrote in `st.object` (RuleRunner's contract).
 */
import { applyRunFacts, conversionError, SSA_ENGINE, ssaTypedDecoder, typeKeysInert, type ApplyRunFacts } from '../engines/ssa.js';
import type { CompiledRule, OpCompiler, RuleRunner } from '../interpreter/compile.js';
import { jsonPatchParts, type JsonPatchParts } from '../interpreter/ops/json-patch.js';
import { holdsAny, mergeIntoRoot, patchShapeOf } from '../interpreter/ops/merge.js';
import type { OpFn } from '../interpreter/ops/types.js';
import type { Scope } from '../interpreter/scope.js';
import { evalMemo, type EvalState } from '../interpreter/state.js';
import { compileValueNode, type ValueFn } from '../interpreter/values.js';
import { newEpoch, type Owned } from '../interpreter/walk.js';
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { JsonPatchOp, LetOp, MergeOp, Rule } from '../ir/nodes.js';
import type { PatchStep } from '../jsonpatch/apply.js';
import { applyFused } from '../merge/ssa/fused-apply.js';
import type { PatchShape, PatchTemplate } from '../merge/ssa/fused-plan.js';
import { DirectRun, DirectRunPlans, type DirectRuleSource } from './map-run-direct.js';
import { patchMembers } from './map-run-patch.js';
import { withoutUnreadLets } from './unread-lets.js';

/** One rule of a run: an ApplyConfiguration or a JSONPatch it takes itself, or any other MAP mutation run by its body. */
interface RunRule {
  readonly name: string;
  /** The rule's compiled body, for what the run does not take itself. */
  readonly body: OpFn;
  readonly apply: ApplyStep | undefined;
  readonly patch: PatchStepRule | undefined;
  /** Its CEL and lets, for evaluation against the run's activation (map-run-direct.ts). */
  readonly direct: DirectRuleSource | undefined;
}

/** A MAP ApplyConfiguration: its bindings, its CEL value and the keys of the patch it builds. */
interface ApplyStep {
  readonly op: MergeOp;
  readonly lets: readonly OpFn[];
  readonly value: ValueFn;
  readonly shape: PatchShape | undefined;
  /**
   * The patch is its template's literal, which names neither apiVersion nor kind: where the kind declares both
   * as strings, the engine's copy of the object's into the patch (typeKeysInert) changes nothing on an object
   * that types, which the fused merge checks before anything else (one that does not is left to the op).
   */
  readonly typeKeysFree: boolean;
}

/** A MAP JSONPatch: its bindings and the op's halves (ops/json-patch.ts). */
interface PatchStepRule {
  readonly lets: readonly OpFn[];
  readonly parts: JsonPatchParts;
}

/** A MAP mutation: no match or guard of its own, lazy bindings, then one op of kube-apiserver's two kinds. */
function mutationOp(rule: Rule): MergeOp | JsonPatchOp | undefined {
  if (rule.match !== undefined || rule.guards.length > 0 || rule.body.length === 0) return undefined;
  const last = rule.body[rule.body.length - 1]!;
  if (last.origin.dialect !== 'map') return undefined;
  for (let i = 0; i < rule.body.length - 1; i++) {
    const op = rule.body[i]!;
    if (op.kind !== 'let' || op.lazy !== true) return undefined;
  }
  if (last.kind === 'merge' && last.strategy === 'ssa' && last.path.root === 'object' && last.path.segments.length === 0) return last;
  if (last.kind === 'jsonPatch' && last.profile === 'evanphx-v4') return last;
  return undefined;
}

/** The lazy bindings the rule's op reads (unread-lets.ts). */
function readLets(rule: Rule): LetOp[] {
  return withoutUnreadLets(rule.body).slice(0, -1) as LetOp[];
}

function runRule(cr: CompiledRule, op: MergeOp | JsonPatchOp, c: OpCompiler): RunRule {
  const rule = cr.rule;
  const lets = readLets(rule);
  const compiledLets = lets.map((l) => c.op(l));
  if (op.kind === 'merge') {
    const direct = op.value.kind === 'cel' ? { value: op.value, lets } : undefined;
    const shape = patchShapeOf(op);
    const typeKeysFree = shape !== undefined && !shape.template.keys.some((k) => k === 'apiVersion' || k === 'kind');
    return { name: rule.name, body: cr.body, apply: { op, lets: compiledLets, value: compileValueNode(op.value), shape, typeKeysFree }, patch: undefined, direct };
  }
  const parts = jsonPatchParts(op);
  const direct = parts.computed !== undefined && op.stepsFrom?.kind === 'cel' ? { value: op.stepsFrom, lets } : undefined;
  return { name: rule.name, body: cr.body, apply: undefined, patch: { lets: compiledLets, parts }, direct };
}

/** Per rule, the runner of the run of MAP mutations it belongs to, or undefined when the policy has none. */
export function mapRuleRuns(rules: readonly CompiledRule[], c: OpCompiler): (RuleRunner | undefined)[] | undefined {
  const steps = rules.map((cr) => {
    const op = mutationOp(cr.rule);
    return op === undefined ? undefined : runRule(cr, op, c);
  });
  const runners = new Array<RuleRunner | undefined>(steps.length).fill(undefined);
  let any = false;
  for (let start = 0; start < steps.length; ) {
    let end = start;
    while (end < steps.length && steps[end] !== undefined) end++;
    const run = steps.slice(start, end) as RunRule[];
    if (run.length > 0) {
      const runner = mapRunner(run, start);
      for (let i = start; i < end; i++) runners[i] = runner;
      any = true;
    }
    start = end + 1;
  }
  return any ? runners : undefined;
}

function mapRunner(run: readonly RunRule[], first: number): RuleRunner {
  const end = first + run.length;
  const plans = new DirectRunPlans(run.map((r) => r.direct));
  return (st, from, _kept, _admitted, scope) => {
    // The engine this run merges with directly, and no defaulter re-defaulting after each mutation.
    if (st.runtime.merges.ssa !== SSA_ENGINE || st.runtime.defaulter !== undefined) return from;
    const start = st.object;
    if (!isJsonObject(start)) return from;
    let facts = applyRunFacts(st.request, st.runtime, evalMemo(st), start);
    if (facts === undefined) return from;
    // JSONPatches are taken where the op would patch in place and decode strictly (the usual decoder).
    const patches = st.runtime.typedDecoder === ssaTypedDecoder;
    const hold = new Holding(st);
    const plan = plans.planFor(st.runtime);
    // Made at the first mutation it takes.
    let direct: DirectRun | undefined;
    // A mutation the op ran may have set the object's apiVersion or kind, and with them its schema; one the
    // run merged or patched itself did not (runApply and patchMembers leave those two as they are).
    let typeKeysMayDiffer = false;
    try {
      for (let i = from; i < end; i++) {
        const r = i - first;
        const rule = run[r]!;
        st.ruleName = rule.name;
        if (typeKeysMayDiffer) facts = factsNow(st, facts);
        const takes = facts !== undefined && plan !== undefined && (direct ??= new DirectRun(plan, st, scope)).takes(r);
        if (facts !== undefined && rule.apply !== undefined) {
          const epoch = st.owned;
          const patch = takes ? direct!.evaluate(r, st.object) : applyValue(st, scope, rule.apply);
          typeKeysMayDiffer = !runApply(st, rule.apply, patch, epoch, facts, hold);
        } else if (facts !== undefined && patches && rule.patch !== undefined) {
          const epoch = st.owned;
          const steps = takes ? rule.patch.parts.computed!(direct!.evaluate(r, st.object)) : rule.patch.parts.evaluate(st, letsScope(st, scope, rule.patch.lets));
          typeKeysMayDiffer = !runPatch(st, rule.patch, steps, epoch, facts, hold);
        } else {
          hold.release(st);
          rule.body(st, scope);
          hold.retake(st);
          typeKeysMayDiffer = true;
        }
      }
    } finally {
      hold.release(st);
    }
    return end;
  };
}

/**
 * The facts for the object as the mutations so far left it: those of the last one unless the object's own
 * apiVersion or kind changed (undefined: the rest of the run is left to the ops).
 */
function factsNow(st: EvalState, facts: ApplyRunFacts | undefined): ApplyRunFacts | undefined {
  const object = st.object;
  if (!isJsonObject(object)) return undefined;
  if (facts !== undefined && (st.request.kind !== undefined || (object['apiVersion'] === facts.apiVersion && object['kind'] === facts.kind))) return facts;
  return applyRunFacts(st.request, st.runtime, evalMemo(st), object);
}

/**
 * What the run owns between its rules: the maps its merges created (and those the evaluation's earlier root
 * merges created, taken over as ops/merge.ts ownedMaps would), and whether one of them changed in place.
 */
class Holding {
  owned: Owned;
  changedInPlace = false;

  constructor(st: EvalState) {
    this.owned = Holding.taken(st);
  }

  private static taken(st: EvalState): Owned {
    const merges = st.merges;
    return merges !== undefined && merges.epoch === st.owned ? merges.owned : newEpoch();
  }

  /** Hands the state to the interpreter's ops: as ops/merge.ts leaves it after a root merge. */
  release(st: EvalState): void {
    if (this.changedInPlace) st.matchRequest = undefined;
    this.changedInPlace = false;
    st.owned = newEpoch();
    st.merges = { epoch: st.owned, owned: this.owned };
  }

  retake(st: EvalState): void {
    this.owned = Holding.taken(st);
  }
}

/** `scope` with the lazy bindings `lets`. */
function letsScope(st: EvalState, scope: Scope, lets: readonly OpFn[]): Scope {
  let s = scope;
  for (let k = 0; k < lets.length; k++) s = lets[k]!(st, s);
  return s;
}

/** The ApplyConfiguration's patch, evaluated as its rule's body would. */
function applyValue(st: EvalState, scope: Scope, step: ApplyStep): JsonValue {
  return step.value(st, letsScope(st, scope, step.lets));
}

/** Merges `patch`, evaluated from st.owned `epoch`: true when the fused merge took it, false when the op did. */
function runApply(st: EvalState, step: ApplyStep, patch: JsonValue, epoch: Owned, facts: ApplyRunFacts, hold: Holding): boolean {
  const doc = st.object;
  // Evaluating the patch stored a value read from the object (ops/merge.ts ownedMaps), or the patch holds a
  // map the run owns: nothing may be written in place any more.
  if (st.owned !== epoch || patchHolds(step.shape, facts, patch, hold.owned)) hold.owned = newEpoch();
  // A value the conversion back into the Go type refuses (engines/ssa.ts ssaMerge) is left to the op, which words it.
  const converts = !facts.goTyped || conversionError(facts, patch, step.shape) === undefined;
  if (converts && isJsonObject(doc) && isJsonObject(patch) && ((step.typeKeysFree && facts.stringTypeKeys) || typeKeysInert(facts.stringTypeKeys, doc, patch))) {
    const merged = applyFused(facts.schema, facts.typeRef, doc, patch, facts.checked, hold.owned, facts.walk, step.shape);
    if (merged !== undefined) {
      if (facts.walk.inPlace) hold.changedInPlace = true;
      st.object = merged;
      return true;
    }
  }
  // The op's own path from its evaluated patch: the reference merge, which words any error.
  hold.release(st);
  mergeIntoRoot(step.op, st, st.owned, patch, false, step.shape);
  hold.retake(st);
  return false;
}

/**
 * A JSONPatch's `steps` (evaluated from st.owned `epoch`): taken by map-run-patch.ts (true), else applied by the
 * op's own path (false).
 */
function runPatch(st: EvalState, step: PatchStepRule, steps: readonly PatchStep[], epoch: Owned, facts: ApplyRunFacts, hold: Holding): boolean {
  // Evaluating the steps stored a value read from the object: nothing may be written in place any more.
  if (st.owned !== epoch) hold.owned = newEpoch();
  const doc = st.object;
  const patched = isJsonObject(doc) ? patchMembers(facts, hold, doc, steps) : undefined;
  if (patched !== undefined) {
    st.object = patched;
    return true;
  }
  hold.release(st);
  step.parts.apply(st, st.owned, steps);
  hold.retake(st);
  return false;
}

/**
 * Whether `patch` may hold one of the `owned` maps where the fused merge would place it. Only its leaves can,
 * and with a plan at the object's type, only leaves where the schema takes a container (MapPlan.leafContainers):
 * a map at a scalar-only node makes the merge give up, and the op's own path then looks at the whole patch.
 */
function patchHolds(shape: PatchShape | undefined, facts: ApplyRunFacts, patch: JsonValue, owned: Owned): boolean {
  if (shape === undefined) return holdsAny(patch, owned);
  const plan = shape.planAt(facts.schema.node(facts.typeRef));
  if (plan !== undefined && !plan.leafContainers) return false;
  return templateLeavesHold(shape.template, patch, owned);
}

/**
 * ops/merge.ts holdsAny of `patch` for the values the template does not build: the patch of an
 * ApplyConfiguration whose expression is the template's literal is made of maps and lists that evaluation
 * built (or frozen constants), which hold nothing of the object but through those values. A patch that does
 * not follow the template is asked whole.
 */
function templateLeavesHold(template: PatchTemplate, patch: JsonValue, owned: Owned): boolean {
  if (!isJsonObject(patch) || Object.isFrozen(patch)) return holdsAny(patch, owned);
  for (let i = 0; i < template.keys.length; i++) {
    const v = patch[template.keys[i]!];
    if (v === undefined) return holdsAny(patch, owned);
    if (v === null || typeof v !== 'object') continue;
    const child = template.children[i];
    const items = template.items[i];
    if (child !== undefined) {
      if (templateLeavesHold(child, v, owned)) return true;
    } else if (items !== undefined && Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) if (templateLeavesHold(items, v[j]!, owned)) return true;
    } else if (holdsAny(v, owned)) return true;
  }
  return false;
}
