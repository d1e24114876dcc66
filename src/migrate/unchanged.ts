/**
 * `kyverno test` reports a MutatingPolicy or MutatingAdmissionPolicy that matched and ran without changing
 * the resource as `pass` (mpol engine handlePolicy, admissionpolicy mutate.go), where a mutate rule whose
 * patch changed nothing is `skip` (mutate.Mutate "no patches applied"); see
 * src/dialects/kyverno/test-suite/verdict.ts. A migrated entry expecting `skip` therefore expects `pass`
 * where the migrated policy runs on the resource and leaves it as it was, and `skip` still where its
 * matchConditions are false.
 *
 * Which of the two it is, the migrated entry tells when the runner judges it expecting `skip` twice: as a
 * mutate rule is judged (an unchanged CEL policy is `skip`) it passes when the policy changed nothing, and as
 * `kyverno test` judges it, it then fails only because the policy ran and reported `pass`. Such an entry is
 * rewritten to expect `pass` when every resource it names is in that case; a policy that changed the
 * resource keeps `skip`, and its difference is reported by the proof.
 */
import { loadTestSuite, runTestSuite, type TestSuite } from '../dialects/kyverno/test-suite/index.js';
import { isJsonObject, type JsonObject } from '../ir/json.js';
import { suiteText, type RewrittenSuite } from './suites.js';

/** The entries of a staged migrated suite that now expect `pass`, by their index in it. */
function unchangedEntries(suite: TestSuite, candidates: readonly number[]): number[] {
  const out: number[] = [];
  for (const index of candidates) {
    const entry = suite.results[index];
    if (!entry || entry.result !== 'skip') continue;
    const alone = { ...suite, results: [entry] };
    const asRule = runTestSuite(alone, 'strict', { asKyvernoTest: false });
    const asKyverno = runTestSuite(alone, 'strict', { asKyvernoTest: true });
    const leftAsItWas = asRule.length > 0 && asRule.every((r) => r.status === 'passed');
    const reportedPass = asKyverno.length === asRule.length && asKyverno.every((r) => r.status === 'failed');
    if (leftAsItWas && reportedPass) out.push(index);
  }
  return out;
}

/**
 * Rewrites the staged migrated suites whose entries expect `skip` from a policy that runs and changes
 * nothing; returns the new texts by the suite's path relative to DIR (the caller stages them again).
 */
export function settleUnchanged(suites: readonly RewrittenSuite[], staged: (rel: string) => string): Map<string, string> {
  const texts = new Map<string, string>();
  for (const s of suites) {
    const candidates = s.rewrittenEntries ?? [];
    if (!s.documents || candidates.length === 0) continue;
    const loaded = loadTestSuite(staged(s.file.rel), s.file.rel);
    if (!loaded.ok) continue; // the proof reports it
    const flips = unchangedEntries(loaded.value, candidates);
    if (flips.length === 0) continue;
    const results = s.documents.test.results;
    if (!Array.isArray(results)) continue;
    for (const i of flips) {
      const entry = results[i];
      if (isJsonObject(entry)) setExpected(entry, 'pass');
    }
    texts.set(s.file.rel, suiteText(s.documents));
  }
  return texts;
}

function setExpected(entry: JsonObject, result: string): void {
  if (entry.result === undefined && entry.status !== undefined) entry.status = result;
  else entry.result = result;
}
