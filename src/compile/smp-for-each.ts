/**
 * Kyverno's `foreach` of one patchStrategicMerge, its elements merged as one run (issue 17). Per element the
 * interpreter runs `when neq vars.element null` and the merge op: it evaluates the patch, finds the engine,
 * asks strategicMerge for the pattern's compiled merge, verifies the object's normal form, merges, commits the
 * merge's facts and starts a new epoch. Here, once strategicMerge has built the compiled merge of an element's
 * pattern (merge/smp/index.ts compiledPatternIfBuilt), the elements' merges run back to back in one
 * CompiledMergeRun on what the element before left, with one commit at the end, as rule runs do
 * (smp-rule-runs.ts). Every element still sees exactly the object the elements before it made.
 *
 * An element whose merge the run cannot take (no compiled merge yet, a shape the compiled merge hands to the
 * general path, another engine than Kyverno's) ends the run and goes through the merge op's own path
 * (ops/merge.ts mergeIntoRoot) with the patch already evaluated; the next element starts a new run. In-place
 * writes follow the merge op's rules: the run writes into the maps it created only while nothing ended the
 * epoch (an evaluation that stored a value read from the object) and the patch holds none of them.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { KYVERNO_TEMPLATE_ENGINE } from '../engines/jmes.js';
import { wholeHoleBody } from '../dialects/kyverno/variables.js';
import type { ForEachOp, Guard, MergeOp, Op } from '../ir/nodes.js';
import { SMP_ENGINE, smpNormalForms } from '../engines/smp.js';
import type { GuardFn } from '../interpreter/guards.js';
import { compileForEach, elementScope, type ElementLoop } from '../interpreter/ops/for-each.js';
import { holdsAny, mergeIntoRoot } from '../interpreter/ops/merge.js';
import type { OpFn } from '../interpreter/ops/types.js';
import type { Binding, Scope } from '../interpreter/scope.js';
import { evalMemo, type EvalState } from '../interpreter/state.js';
import { compileValueNode, type ValueFn } from '../interpreter/values.js';
import { newEpoch, type Owned } from '../interpreter/walk.js';
import { compiledPatternIfBuilt, CompiledMergeRun } from '../merge/smp/index.js';

/** The body `[merge]` or `[when <guard> [merge]]`, the merge a strategic merge into the whole object. */
function elementMerge(body: readonly Op[]): { when: Extract<Op, { kind: 'when' }> | undefined; merge: MergeOp } | undefined {
  if (body.length !== 1) return undefined;
  let op = body[0]!;
  let when: Extract<Op, { kind: 'when' }> | undefined;
  if (op.kind === 'when') {
    if (op.else !== undefined || op.then.length !== 1) return undefined;
    when = op;
    op = op.then[0]!;
  }
  if (op.kind !== 'merge' || op.strategy !== 'smp' || op.path.root !== 'object' || op.path.segments.length > 0) return undefined;
  return { when, merge: op };
}

/** The loop with its elements' merges run as one, or undefined when its body is not one such merge. */
export function compileSmpForEach(op: ForEachOp, guardOf: (g: Guard) => GuardFn): OpFn | undefined {
  const shape = elementMerge(op.body);
  if (shape === undefined) return undefined;
  const merge = shape.merge;
  const plan: ElementPlan = {
    merge,
    guard: shape.when !== undefined ? guardOf(shape.when.guard) : undefined,
    // As the merge op at the root: the patch's own end of in-place writes is the merge's (mergeIntoRoot).
    value: compileValueNode(merge.value),
    literal: merge.value.kind === 'literal',
    loop: op,
    notNull: shape.when !== undefined && isNotNullGuard(shape.when.guard, op.bind),
    keyField: merge.value.kind === 'templated' ? elementFieldHole(merge.value.json, op.bind) : undefined,
    byKey: new Map(),
  };
  return compileForEach(op, (st, before, elements, read) => {
    // The loop ends in-place writes so that no merge changes a bound element. Where no element is a map the
    // evaluation created, none lies below one either (a created map is reached only through created maps, as
    // writes copy their way down), and the merges keep writing into the object's maps the rules before made.
    if (before !== undefined && before.epoch === st.owned && elements !== undefined && !elements.some((e) => e !== null && typeof e === 'object' && before.owned.has(e))) st.merges = before;
    else if (read) st.owned = newEpoch(); // as compileValue would have, storing values read from the object
    return new SmpElementLoop(plan, st);
  });
}

interface ElementPlan {
  readonly merge: MergeOp;
  readonly guard: GuardFn | undefined;
  readonly value: ValueFn;
  readonly literal: boolean;
  readonly loop: ForEachOp;
  /** The guard is `neq vars.<bind> null`, which the element's binding answers (a bound element is defined). */
  readonly notNull: boolean;
  /** The field `f` when the patch's one variable is a whole `{{ <bind>.f }}` (a foreach keyed by `{{ element.name }}`). */
  readonly keyField: string | undefined;
  /** The patch substituted per value of that field. */
  readonly byKey: Map<string, JsonValue>;
}

function isNotNullGuard(g: Guard, bind: string): boolean {
  if (g.kind !== 'neq' || g.value.kind !== 'literal' || g.value.json !== null) return false;
  const p = g.path;
  return p.root === 'vars' && p.segments.length === 1 && p.segments[0]!.kind === 'field' && p.segments[0]!.name === bind;
}

/** Patches substituted per key, kept per plan (a small bound: a loop meets few names). */
const KEYED_LIMIT = 64;

/**
 * The field `f` when the template's only string holding `{{` is exactly `{{ <bind>.f }}` (f a plain JMESPath
 * identifier): its value is then the element's own field, whatever the rest of the context holds.
 */
function elementFieldHole(template: JsonValue, bind: string): string | undefined {
  const holes: string[] = [];
  const visit = (v: JsonValue): boolean => {
    if (typeof v === 'string') {
      if (v.includes('{{')) holes.push(v);
      return true;
    }
    if (Array.isArray(v)) return v.every(visit);
    if (v !== null && typeof v === 'object') return Object.keys(v).every((k) => !k.includes('{{') && visit(v[k]!));
    return true;
  };
  if (!visit(template) || holes.length !== 1) return undefined;
  const body = wholeHoleBody(holes[0]!);
  const m = body === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(body);
  return m !== null && m[1] === bind ? m[2] : undefined;
}

class SmpElementLoop implements ElementLoop {
  private run: CompiledMergeRun | undefined;
  /** What the run made of the object so far (also `st.object`, which guards and patches read). */
  private root: JsonValue | null = null;
  /** The maps the run may write in place, valid while `st.owned` is still `epoch`. */
  private owned!: Owned;
  private epoch!: Owned;

  constructor(
    private readonly plan: ElementPlan,
    st: EvalState,
  ) {
    this.adopt(st);
  }

  /** Takes up where the merge op left: its owned maps if their epoch is still the current one. */
  private adopt(st: EvalState): void {
    const merges = st.merges;
    this.owned = merges !== undefined && merges.epoch === st.owned ? merges.owned : newEpoch();
    this.epoch = st.owned;
    this.root = st.object;
    this.run = undefined;
  }

  // The element's scope is made only where something evaluates in it: the usual guard and keyed patch read
  // the element itself.
  private outer!: Scope;
  private binding!: Binding;
  private index = 0;
  private scope: Scope | undefined;

  private inner(): Scope {
    return (this.scope ??= elementScope(this.plan.loop, this.outer, this.binding, this.index));
  }

  each(st: EvalState, outer: Scope, binding: Binding, index: number): void {
    const plan = this.plan;
    this.outer = outer;
    this.binding = binding;
    this.index = index;
    this.scope = undefined;
    if (plan.guard !== undefined && !(plan.notNull ? binding.value !== null : plan.guard(st, this.inner()))) return;
    const key = this.keyOf(st, binding);
    const patch = key === undefined ? plan.value(st, this.inner()) : this.keyed(st, key);
    const compiled = st.runtime.merges.smp === SMP_ENGINE ? compiledPatternIfBuilt(patch) : undefined;
    // Evaluating the guard or the patch may have ended the epoch (a stored value read from the object). A
    // patch substituted with a string holds only the template's own maps and new ones, none of them owned.
    if (compiled !== undefined && st.owned === this.epoch && (plan.literal || key !== undefined || !holdsAny(patch, this.owned))) {
      const run = (this.run ??= new CompiledMergeRun(smpNormalForms(evalMemo(st)), this.owned));
      const merged = run.step(compiled, this.root);
      if (merged !== undefined) {
        // A string: a failed condition anchor, nothing written (the element is skipped).
        if (typeof merged !== 'string') st.object = this.root = merged;
        return;
      }
    }
    const epoch = st.owned;
    this.publish(st);
    // The epoch the patch was evaluated in: the merge op's own test of what it may write in place.
    if (epoch !== this.epoch) st.merges = undefined;
    mergeIntoRoot(plan.merge, st, st.owned, patch, plan.literal);
    this.adopt(st);
  }

  /**
   * The element's string field substituted into the patch (ElementPlan.keyField), when the template engine is
   * Kyverno's: the substitution depends on nothing else (`{{ element.f }}` reads the loop variable only, and
   * a DELETE rewrites `request.object` only). Undefined: the patch is evaluated the ordinary way.
   */
  private keyOf(st: EvalState, element: Binding): string | undefined {
    const field = this.plan.keyField;
    if (field === undefined || st.runtime.templates.kyverno !== KYVERNO_TEMPLATE_ENGINE) return undefined;
    const v = element.value;
    if (!isJsonObject(v) || !hasOwn(v, field)) return undefined;
    const key = v[field];
    return typeof key === 'string' ? key : undefined;
  }

  /** The patch for `key`, substituted once per key and plan. */
  private keyed(st: EvalState, key: string): JsonValue {
    const byKey = this.plan.byKey;
    let patch = byKey.get(key);
    if (patch === undefined) {
      patch = this.plan.value(st, this.inner());
      if (byKey.size >= KEYED_LIMIT) byKey.clear();
      byKey.set(key, patch);
    }
    return patch;
  }

  end(st: EvalState): void {
    this.publish(st);
  }

  /** The run's writes committed and handed to the state as the merge op leaves them. */
  private publish(st: EvalState): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    // Same identity, new content: what was derived from the object by identity is stale.
    if (run.finish()) st.matchRequest = undefined;
    st.object = this.root as JsonObject;
    st.owned = newEpoch();
    st.merges = { epoch: st.owned, owned: this.owned };
    this.epoch = st.owned;
  }
}
