/**
 * `kyverno test` reports a MutatingPolicy or MutatingAdmissionPolicy that matched and ran without changing
 * the resource as `pass` (mpol engine handlePolicy, admissionpolicy mutate.go), where a mutate rule whose
 * patch changed nothing is `skip` (mutate.Mutate "no patches applied"); see
 * src/dialects/kyverno/test-suite/verdict.ts. A migrated entry expecting `skip` therefore expects `pass`
 * where the migrated policy runs on the resource and leaves it as it was, and `skip` still where its
 * matchConditions are false.
 *
 * Which of the two it is, the migrated entry tells for each resource it names, judged expecting `skip` twice:
 * as a mutate rule is judged (an unchanged CEL policy is `skip`) it passes when the policy changed nothing,
 * and as `kyverno test` judges it, it then fails only because the policy ran and reported `pass`. An entry
 * whose every resource is in that case is rewritten to expect `pass`; one naming others too (a rule skipped
 * on some resources by its match, on others because its patch changed nothing) keeps them and `skip`, and
 * the resources that now pass move to an entry of their own, expecting `pass`, appended to the results (the
 * entries' indices, by which the proof pairs them, stay). A policy that changed the resource keeps `skip`,
 * and its difference is reported by the proof.
 */
import { loadTestSuite, runTestSuite, type SuiteResult, type TestSuite } from '../dialects/kyverno/test-suite/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { suiteText, type RewrittenSuite } from './suites.js';

/** Whether the migrated `entry`, expecting `skip`, runs on its resources and leaves them as they were. */
function runsUnchanged(suite: TestSuite, entry: SuiteResult): boolean {
  const alone = { ...suite, results: [entry] };
  const asRule = runTestSuite(alone, 'strict', { asKyvernoTest: false });
  const asKyverno = runTestSuite(alone, 'strict', { asKyvernoTest: true });
  const leftAsItWas = asRule.length > 0 && asRule.every((r) => r.status === 'passed');
  const reportedPass = asKyverno.length === asRule.length && asKyverno.every((r) => r.status === 'failed');
  return leftAsItWas && reportedPass;
}

/**
 * Per entry of a staged migrated suite expecting `skip` (by its index in it), the resources it names that now
 * expect `pass`: all of them, or each checked alone when not all are.
 */
function unchangedResources(suite: TestSuite, candidates: readonly number[]): Map<number, { all: boolean; names: string[] }> {
  const out = new Map<number, { all: boolean; names: string[] }>();
  for (const index of candidates) {
    const entry = suite.results[index];
    if (!entry || entry.result !== 'skip') continue;
    if (runsUnchanged(suite, entry)) {
      out.set(index, { all: true, names: entry.resources });
      continue;
    }
    if (entry.resources.length < 2) continue;
    const names = entry.resources.filter((name) => runsUnchanged(suite, { ...entry, resources: [name] }));
    if (names.length > 0) out.set(index, { all: false, names });
  }
  return out;
}

/**
 * Rewrites the staged migrated suites whose entries expect `skip` from a policy that runs and changes
 * nothing; returns the new texts by the suite's path relative to DIR (the caller stages them again). An entry
 * split in two is recorded on the proof links that read it (EntryLink.alsoIn).
 */
export function settleUnchanged(suites: readonly RewrittenSuite[], staged: (rel: string) => string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const s of suites) {
    const candidates = s.rewrittenEntries ?? [];
    if (!s.documents || candidates.length === 0) continue;
    const loaded = loadTestSuite(staged(s.file.rel), s.file.rel);
    if (!loaded.ok) continue; // the proof reports it
    const flips = unchangedResources(loaded.value, candidates);
    if (flips.size === 0) continue;
    const results = s.documents.test.results;
    if (!Array.isArray(results)) continue;
    let changed = false;
    // Two entries (of two rules merged into one policy) may move the same resources: one entry holds them.
    const appended = new Map<string, number>();
    for (const [i, { all, names }] of flips) {
      const entry = results[i];
      if (!isJsonObject(entry)) continue;
      const listed = entry.resources;
      // What the entry keeps when the resources that now pass leave it (only from a list of those names, not
      // the legacy single `resource`): an entry naming no resource would check every resource of the test.
      const rest = Array.isArray(listed) ? listed.filter((n) => typeof n !== 'string' || !names.includes(n)) : undefined;
      if (all || rest?.length === 0) {
        setExpected(entry, 'pass');
        changed = true;
        continue;
      }
      if (rest === undefined || !names.every((n) => (listed as JsonValue[]).includes(n))) continue;
      const passing = structuredClone(entry);
      passing.resources = names;
      setExpected(passing, 'pass');
      entry.resources = rest;
      const text = JSON.stringify(passing);
      const at = appended.get(text) ?? results.push(passing) - 1;
      appended.set(text, at);
      for (const link of s.links) if ((link.migratedEntry ?? link.entry) === i) link.alsoIn = [...(link.alsoIn ?? []), at];
      changed = true;
    }
    if (changed) texts.set(s.file.rel, suiteText(s.documents));
  }
  return texts;
}

function setExpected(entry: JsonObject, result: string): void {
  if (entry.result === undefined && entry.status !== undefined) entry.status = result;
  else entry.result = result;
}
