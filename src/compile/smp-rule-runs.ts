/**
 * Runs of Kyverno rules that are each one literal patchStrategicMerge, as one step (issue 17). A ClusterPolicy
 * repeats the same `match` in every rule and most mutate rules are a fixed pattern: `+(team): platform`,
 * an annotation, a condition anchor and a field. Run one by one, each such rule pays for the rule loop, the
 * merge op, the engine call, and a commit of the merge's facts; here consecutive ones run their compiled
 * merges (merge/smp/compiled-merge.ts) back to back on what the one before left, with one commit at the end.
 *
 * Each rule still sees exactly the object the rules before it made, so the result, key order included, is the
 * sequential one. What stays with the ordinary rule loop (run-policy.ts), which the run hands back to by
 * returning the index of the first rule it did not run:
 * - rules with several ops, or a pattern with variables or no compiled form;
 * - guards (preconditions): the run stops before a guarded rule; the loop tests its match and guards as
 *   usual and, when they pass, hands the rule back to the run (`admitted`), which goes on from there;
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
import { isNonEmptyObject, ruleMatch } from '../interpreter/run-policy.js';
import { evalMemo, type EvalState } from '../interpreter/state.js';
import { newEpoch } from '../interpreter/walk.js';
import { compiledPattern, CompiledMergeRun, fuseMerges, type CompiledMerge } from '../merge/smp/index.js';

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
  end: number;
}

/**
 * Per rule of the run [start, end), the group of rules merged as one that starts there: consecutive rules
 * without guards whose matches share one kept outcome (the same slot, or no match at all) and whose patterns
 * fuse. Groups are grown greedily, rule by rule.
 */
function fusedGroups(rules: readonly CompiledRule[], patterns: readonly (CompiledMerge | undefined)[], slots: readonly number[], start: number, end: number): (FusedGroup | undefined)[] {
  const groups: (FusedGroup | undefined)[] = [];
  const shareOutcome = (a: number, b: number): boolean => (rules[a]!.match === undefined ? rules[b]!.match === undefined : rules[b]!.match !== undefined && slots[a] === slots[b]);
  for (let i = start; i < end; ) {
    let group: FusedGroup | undefined;
    for (let j = i + 2; j <= end && rules[i]!.guards.length === 0; j++) {
      if (rules[j - 1]!.guards.length > 0 || !shareOutcome(i, j - 1)) break;
      // Every rule of [start, end) has a pattern.
      const merge = fuseMerges(patterns.slice(i, j) as CompiledMerge[]);
      if (merge === undefined) break;
      group = { merge, end: j };
    }
    groups[i] = group;
    i = group?.end ?? i + 1;
  }
  return groups;
}

function ruleRunner(rules: readonly CompiledRule[], patterns: readonly (CompiledMerge | undefined)[], groups: readonly (FusedGroup | undefined)[], slots: readonly number[], end: number): RuleRunner {
  // Only a `null` at the top of a pattern takes a key off the object: the others keep it non-empty.
  const removesTopLevelKeys = patterns.map((p) => p !== undefined && p.roots.some((r) => r.entries.some((e) => e.node === undefined && e.list === undefined && e.value === null)));
  return (st: EvalState, from: number, kept: (MatchOutcome | undefined)[] | undefined, admitted: boolean): number => {
    if (st.runtime.merges.smp !== SMP_ENGINE) return from;
    // The maps earlier root merges created stay writable in place while nothing else ended the epoch
    // (ops/merge.ts ownedMaps: a literal patch holds none of them).
    const merges = st.merges;
    const owned = merges !== undefined && merges.epoch === st.owned ? merges.owned : newEpoch();
    let run: CompiledMergeRun | undefined;
    let ran = false;
    let root = st.object;
    // Whether the object is non-empty, known until a merge that may remove a top-level key.
    let nonEmpty: boolean | undefined;
    let i = from;
    for (; i < end; i++) {
      const rule = rules[i]!;
      const match = rule.match;
      if (admitted && i === from) {
        // The loop tested the match and the guards.
      } else if (rule.guards.length > 0) break;
      else if (match !== undefined) {
        // A kept outcome holds while the object is non-empty (run-policy.ts ruleMatch); before anything was
        // written the match may be tested here, afterwards the loop tests it against the current object.
        let m = kept !== undefined && (nonEmpty ??= isNonEmptyObject(root)) ? kept[slots[i]!] : undefined;
        if (m === undefined) {
          if (ran || kept === undefined) break;
          m = ruleMatch(match, slots[i]!, kept, st);
          if (m.error) break;
        }
        if (!m.matched) continue;
      }
      run ??= new CompiledMergeRun(smpNormalForms(evalMemo(st)), owned);
      // A group's rules share this match outcome; the group hands back to its rules one by one where its
      // merge cannot decide.
      const group = groups[i];
      if (group !== undefined) {
        const all = run.step(group.merge, root);
        if (all !== undefined && typeof all !== 'string') {
          ran = true;
          root = all; // set-only: no key removed
          i = group.end - 1;
          continue;
        }
      }
      const merged = run.step(patterns[i]!, root);
      if (merged === undefined) break;
      ran = true;
      if (typeof merged !== 'string') {
        root = merged;
        if (removesTopLevelKeys[i]) nonEmpty = undefined;
      }
    }
    if (run !== undefined && ran) {
      st.ruleName = rules[i - 1]!.rule.name;
      const inPlace = run.finish();
      if (root !== st.object) st.object = root;
      else if (inPlace) st.matchRequest = undefined; // same identity, new content (ops/merge.ts IN_PLACE)
      st.owned = newEpoch();
      st.merges = { epoch: st.owned, owned };
    }
    return i;
  };
}
