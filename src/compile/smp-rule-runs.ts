/**
 * Runs of Kyverno rules that are each one literal patchStrategicMerge, as one step (issue 17). A ClusterPolicy
 * repeats the same `match` in every rule and most mutate rules are a fixed pattern: `+(team): platform`,
 * an annotation, a condition anchor and a field. Run one by one, each such rule pays for the rule loop, the
 * merge op, the engine call, and a commit of the merge's facts; here consecutive ones run their compiled
 * merges (merge/smp/compiled-merge.ts) back to back on what the one before left, with one commit at the end.
 *
 * Each rule still sees exactly the object the rules before it made, so the result, key order included, is the
 * sequential one. Rule guards (preconditions) are tested in the run, in the loop's order (match, then guards),
 * against the object as the rules before left it; a guard that stores a value read from the object ends the
 * run's in-place writes, as it ends the merge op's (ops/merge.ts ownedMaps). A rule the loop reaches first (a
 * run starts at it but the loop ran the rules before) is handed back with its match and guards tested
 * (`admitted`). What stays with the ordinary rule loop (run-policy.ts), which the run hands back to by
 * returning the index of the first rule it did not run:
 * - rules with several ops, or a pattern with variables or no compiled form;
 * - rule matches that are not stable over the policy's run (stable-match.ts), or whose outcome is not known
 *   yet once the run has written (the loop tests it against the current object and keeps it);
 * - a pattern the compiled merge hands to the general path for this object (nothing is written then);
 * - another `smp` engine than Kyverno's (a runtime may replace it), traces, `applyRules: One` and
 *   failurePolicy ignore (their rule snapshots: the caller does not use runs then).
 */
import type { Rule } from '../ir/nodes.js';
import type { MatchOutcome } from '../k8s/match.js';
import { SMP_ENGINE, smpNormalForms } from '../engines/smp.js';
import type { CompiledRule, RuleRunner } from '../interpreter/compile.js';
import { firstFalse, isNonEmptyObject, ruleMatch } from '../interpreter/run-policy.js';
import type { Scope } from '../interpreter/scope.js';
import { evalMemo, type EvalState } from '../interpreter/state.js';
import { newEpoch, type Owned } from '../interpreter/walk.js';
import type { JsonObject, JsonValue } from '../ir/json.js';
import { compiledPattern, CompiledMergeRun, fuseMerges, writtenPlaces, type CompiledMerge, type WrittenPlaces } from '../merge/smp/index.js';
import { ownField } from '../merge/smp/merge.js';
import { guardObjectReads, isPrefix } from './guard-reads.js';

/** The rule's pattern when it is one literal strategic merge into the whole object with a stable match. */
function runnablePattern(rule: Rule, slot: number): CompiledMerge | undefined {
  if (rule.body.length !== 1) return undefined;
  if (rule.match !== undefined && slot < 0) return undefined;
  const op = rule.body[0]!;
  if (op.kind !== 'merge' || op.strategy !== 'smp' || op.value.kind !== 'literal') return undefined;
  if (op.path.root !== 'object' || op.path.segments.length > 0) return undefined;
  return compiledPattern(op.value.json);
}

/**
 * Per rule, the runner of the run it belongs to (runs of two rules or more), or undefined; undefined when the
 * policy has no run. `slots` are the policy's stable rule match slots (stableRuleMatchSlots).
 */
export function smpRuleRuns(rules: readonly CompiledRule[], slots: readonly number[]): (RuleRunner | undefined)[] | undefined {
  const patterns = rules.map((r, i) => runnablePattern(r.rule, slots[i] ?? -1));
  const runners: (RuleRunner | undefined)[] = new Array<RuleRunner | undefined>(patterns.length).fill(undefined);
  let any = false;
  for (let start = 0; start < patterns.length; ) {
    let end = start;
    while (end < patterns.length && patterns[end] !== undefined) end++;
    if (end - start >= 2) {
      const runner = ruleRunner(rules, patterns, fusedGroups(rules, patterns, slots, start, end), slots, end);
      for (let i = start; i < end; i++) runners[i] = runner;
      any = true;
    }
    start = end + 1;
  }
  return any ? runners : undefined;
}

/** Rules `start` up to `end` merged as one (merge/smp/fused-merge.ts). */
interface FusedGroup {
  merge: CompiledMerge;
  start: number;
  end: number;
  /** The rules after the first with guards: tested before the merge, as nothing ahead of them in the group writes what they read... */
  guarded: number[];
  /** ...where these maps exist (as maps): below a map a pattern creates, a read finds another key missing. */
  requires: string[][];
  /** Per rule of the group, the bits of its patterns in the fused merge (`cx.skip`). */
  bits: number[];
}

/**
 * Per rule of the run [start, end), the group of rules merged as one that starts there: consecutive rules
 * whose matches share one kept outcome (the same slot, or no match at all), whose patterns fuse, and whose
 * guards, after the first rule's, read nothing the patterns ahead of them in the group may write
 * (guard-reads.ts). Groups are grown greedily, rule by rule.
 */
function fusedGroups(rules: readonly CompiledRule[], patterns: readonly (CompiledMerge | undefined)[], slots: readonly number[], start: number, end: number): (FusedGroup | undefined)[] {
  const groups: (FusedGroup | undefined)[] = [];
  const shareOutcome = (a: number, b: number): boolean => (rules[a]!.match === undefined ? rules[b]!.match === undefined : rules[b]!.match !== undefined && slots[a] === slots[b]);
  for (let i = start; i < end; ) {
    let group: FusedGroup | undefined;
    const written: WrittenPlaces = { maps: [], leaves: [] };
    const guarded: number[] = [];
    const requires: string[][] = [];
    for (let j = i + 1; j <= end; j++) {
      const last = j - 1;
      if (last > i) {
        if (!shareOutcome(i, last)) break;
        if (rules[last]!.guards.length > 0) {
          const reads = guardObjectReads(rules[last]!.guards.map((g) => g.guard));
          if (reads === undefined || !readsUnwritten(reads, written, requires)) break;
          guarded.push(last);
        }
      }
      // Every rule of [start, end) has a pattern.
      for (const root of patterns[last]!.roots) writtenPlaces(root, written);
      if (j - i < 2) continue;
      const members = patterns.slice(i, j) as CompiledMerge[];
      const merge = fuseMerges(members);
      if (merge === undefined) break;
      group = { merge, start: i, end: j, guarded: [...guarded], requires: [...requires], bits: patternBits(members) };
    }
    groups[i] = group;
    i = group?.end ?? i + 1;
  }
  return groups;
}

/**
 * Whether reads at `reads` find the same before and after writes at `written`: no read holds or lies below a
 * leaf written, or holds a map written; below a map written, the map must exist already (added to `requires`).
 */
function readsUnwritten(reads: readonly string[][], written: WrittenPlaces, requires: string[][]): boolean {
  for (const r of reads) {
    if (written.leaves.some((w) => isPrefix(r, w) || isPrefix(w, r))) return false;
    for (const m of written.maps) {
      if (isPrefix(r, m)) return false;
      if (isPrefix(m, r) && !requires.some((q) => q.length === m.length && isPrefix(q, m))) requires.push(m);
    }
  }
  return true;
}

/** Whether the document has a map at each of `paths`. */
function hasMapsAt(doc: JsonValue | null, paths: readonly (readonly string[])[]): boolean {
  for (let p = 0; p < paths.length; p++) {
    const path = paths[p]!;
    let v: JsonValue | undefined | null = doc;
    for (let i = 0; i < path.length; i++) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
      v = ownField(v, path[i]!);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  }
  return true;
}

/** Per member, the bits of its roots among all the members' roots in order. */
function patternBits(members: readonly CompiledMerge[]): number[] {
  let next = 0;
  return members.map((m) => {
    let bits = 0;
    for (let r = 0; r < m.roots.length; r++) bits |= 1 << next++;
    return bits;
  });
}

function ruleRunner(rules: readonly CompiledRule[], patterns: readonly (CompiledMerge | undefined)[], groups: readonly (FusedGroup | undefined)[], slots: readonly number[], end: number): RuleRunner {
  // Only a `null` at the top of a pattern takes a key off the object: the others keep it non-empty.
  const removesTopLevelKeys = patterns.map((p) => p !== undefined && p.roots.some((r) => r.entries.some((e) => e.node === undefined && e.list === undefined && e.value === null)));
  const plan: RunPlan = { rules, patterns, groups, slots, end, removesTopLevelKeys };
  return (st, from, kept, admitted, scope) => (st.runtime.merges.smp !== SMP_ENGINE ? from : new RuleRun(plan, st, scope).go(from, kept, admitted));
}

interface RunPlan {
  readonly rules: readonly CompiledRule[];
  readonly patterns: readonly (CompiledMerge | undefined)[];
  readonly groups: readonly (FusedGroup | undefined)[];
  readonly slots: readonly number[];
  readonly end: number;
  readonly removesTopLevelKeys: readonly boolean[];
}

/** One call of a runner: the merges so far and what they made of the object. */
class RuleRun {
  /** The maps the run may write in place: those earlier root merges created, while nothing ended the epoch (ops/merge.ts ownedMaps). */
  private owned!: Owned;
  private run: CompiledMergeRun | undefined;
  /** Whether the run wrote (merged) since it was last published. */
  private ran = false;
  private root: JsonValue | null = null;
  /** Whether the object is non-empty, known until a merge that may remove a top-level key. */
  private nonEmpty: boolean | undefined;

  constructor(
    private readonly plan: RunPlan,
    private readonly st: EvalState,
    private readonly scope: Scope,
  ) {
    this.adopt();
  }

  /** Takes up the state as the last merge op or run left it. */
  private adopt(): void {
    const st = this.st;
    const merges = st.merges;
    this.owned = merges !== undefined && merges.epoch === st.owned ? merges.owned : newEpoch();
    this.root = st.object;
    this.run = undefined;
    this.ran = false;
    this.nonEmpty = undefined;
  }

  go(from: number, kept: (MatchOutcome | undefined)[] | undefined, admitted: boolean): number {
    const { rules, groups, slots, end } = this.plan;
    let i = from;
    for (; i < end; i++) {
      const rule = rules[i]!;
      const match = rule.match;
      // The loop tested this rule's match and guards.
      const tested = admitted && i === from;
      if (!tested && match !== undefined) {
        // A kept outcome holds while the object is non-empty (run-policy.ts ruleMatch); before anything was
        // written the match may be tested here, afterwards the loop tests it against the current object.
        let m = kept !== undefined && (this.nonEmpty ??= isNonEmptyObject(this.root)) ? kept[slots[i]!] : undefined;
        if (m === undefined) {
          if (this.ran || kept === undefined) break;
          m = ruleMatch(match, slots[i]!, kept, this.st);
          if (m.error) break;
        }
        if (!m.matched) continue;
      }
      // A group's rules share this match outcome; their guards are tested first, on the object as it is now, a
      // failed one skipping its rule's patterns. Only on a document in normal form: a merge the general path
      // takes then changes nothing but its pattern's places, which the guards tested ahead do not read.
      const group = groups[i];
      if (group === undefined || !hasMapsAt(this.root, group.requires) || !this.ready(group.merge)) {
        if (!tested && rule.guards.length > 0 && this.blocked(i)) continue;
        if (!this.single(i, tested)) break;
        continue;
      }
      let skip = 0;
      if (!tested && rule.guards.length > 0 && this.blocked(i)) skip |= group.bits[0]!;
      for (const j of group.guarded) if (this.blocked(j, skip, group)) skip |= group.bits[j - i]!;
      const all = this.step(group.merge, skip);
      if (all !== undefined) {
        if (typeof all !== 'string') this.root = all; // set-only: no key removed
      } else this.oneByOne(i, group.end, skip, group);
      i = group.end - 1;
    }
    this.st.object = this.root;
    if (this.ran) {
      this.st.ruleName = rules[i - 1]!.rule.name;
      this.publish();
    }
    return i;
  }

  /** See CompiledMergeRun.ready. */
  private ready(compiled: CompiledMerge): boolean {
    return (this.run ??= new CompiledMergeRun(smpNormalForms(evalMemo(this.st)), this.owned)).ready(compiled, this.root);
  }

  /** The run's merge of `compiled` into the object, see CompiledMergeRun.step. */
  private step(compiled: CompiledMerge, skip: number): JsonObject | string | undefined {
    const run = (this.run ??= new CompiledMergeRun(smpNormalForms(evalMemo(this.st)), this.owned));
    const merged = run.step(compiled, this.root, skip);
    if (merged !== undefined) this.ran = true;
    return merged;
  }

  /**
   * Rule `i` merged alone; false when the general path must decide and the loop is to run it (its guards
   * untested by the run, or `admitted`). A rule whose guards the run tested runs its body here instead.
   */
  private single(i: number, admitted: boolean): boolean {
    const rule = this.plan.rules[i]!;
    const merged = this.step(this.plan.patterns[i]!, 0);
    if (merged === undefined) {
      if (rule.guards.length === 0 || admitted) return false;
      this.general(i);
      return true;
    }
    if (typeof merged !== 'string') {
      this.root = merged;
      if (this.plan.removesTopLevelKeys[i]) this.nonEmpty = undefined;
    }
    return true;
  }

  /** Rule `i`'s body the ordinary way (ops/merge.ts), on the object as the run left it. */
  private general(i: number): void {
    const st = this.st;
    st.object = this.root;
    if (this.ran) this.publish();
    st.ruleName = this.plan.rules[i]!.rule.name;
    this.plan.rules[i]!.body(st, this.scope);
    this.adopt();
  }

  /**
   * The group's rules [from, to) one by one, `skip` holding the bits of those whose guards failed (all its
   * guards were tested): where the fused merge cannot decide, or before a guard that failed.
   */
  private oneByOne(from: number, to: number, skip: number, group: FusedGroup): void {
    for (let k = from; k < to; k++) {
      if ((skip & group.bits[k - group.start]!) !== 0) continue;
      if (!this.single(k, false)) this.general(k);
    }
  }

  /**
   * Whether rule `j`'s guards are false, tested on the object as the run left it. A guard that stored a value
   * read from the object ends the run's in-place writes, as it ends the merge op's. When a guard of a `group`
   * rule (tested ahead of the group's writes) fails (EvalFailure), the group's rules before `j` are applied
   * first, as they would have been, with the guard bits in `skip`.
   */
  private blocked(j: number, skip = 0, group?: FusedGroup): boolean {
    const st = this.st;
    st.object = this.root;
    st.ruleName = this.plan.rules[j]!.rule.name;
    const epoch = st.owned;
    let blocked: boolean;
    try {
      blocked = firstFalse(st, this.plan.rules[j]!.guards, this.scope) !== undefined;
    } catch (e) {
      if (group !== undefined) this.oneByOne(group.start, j, skip, group);
      st.object = this.root;
      if (this.ran) this.publish();
      st.ruleName = this.plan.rules[j]!.rule.name;
      throw e;
    }
    if (st.owned !== epoch) {
      if (this.ran) this.publish();
      this.run = undefined;
      this.owned = newEpoch();
    }
    return blocked;
  }

  /** The run's writes committed and handed to the state (`st.object` is its result) as a merge op leaves them. */
  private publish(): void {
    const st = this.st;
    // Same identity, new content: what was derived from the object by identity is stale (ops/merge.ts IN_PLACE).
    if (this.run!.finish()) st.matchRequest = undefined;
    this.run = undefined;
    this.ran = false;
    st.owned = newEpoch();
    st.merges = { epoch: st.owned, owned: this.owned };
  }
}
