/**
 * The proof of a migration: every result entry about a migrated policy's mutate rules is run twice as
 * `transmute test` runs kyverno-test.yaml (load + runTestSuite, judged as `kyverno test` judges: a rule
 * that does not match the resource is "Excluded" and passes, a CEL policy that ran without changing the
 * resource is `pass`), once in the original suite from DIR and once, rewritten, in the migrated suite from
 * the staged OUT; the rows are paired by entry and resource.
 */
import { renderDiagnosticLine } from '../diagnostics/render.js';
import { loadTestSuite, runTestSuite, type SuiteRow, type TestSuite } from '../dialects/kyverno/test-suite/index.js';
import { needsClusterObjects } from '../cel/lib/kyverno-context.js';
import type { ProofRow, RowResult } from './model.js';
import type { RewrittenSuite } from './suites.js';

type Loaded = { ok: true; suite: TestSuite } | { ok: false; reason: string };

function load(path: string, display: string): Loaded {
  const r = loadTestSuite(path, display);
  if (r.ok) return { ok: true, suite: r.value };
  return { ok: false, reason: r.diagnostics.map((d) => renderDiagnosticLine(d)).join('; ') };
}

/** The rows of one result entry, run alone (the runner keeps no state between entries). */
function entryRows(loaded: Loaded, entry: number): SuiteRow[] | string {
  if (!loaded.ok) return `the suite does not load: ${loaded.reason}`;
  const result = loaded.suite.results[entry];
  if (!result) return `the suite has no results[${entry}]`;
  return runTestSuite({ ...loaded.suite, results: [result] }, 'strict', { asKyvernoTest: true });
}

/**
 * The rows of the migrated entry, with the rows of the entries holding some of its resources (EntryLink.alsoIn);
 * then, of all those, the rows of the resources the original entry names (a holder names others too).
 */
function migratedRows(loaded: Loaded, entry: number, alsoIn: readonly number[] | undefined, original: SuiteRow[] | string): SuiteRow[] | string {
  const rows = entryRows(loaded, entry);
  if (alsoIn === undefined || typeof rows === 'string' || typeof original === 'string') return rows;
  const named = new Set(original.map((r) => r.resource));
  const out = rows.filter((r) => named.has(r.resource));
  for (const other of alsoIn) {
    const more = entryRows(loaded, other);
    if (typeof more === 'string') return more;
    for (const r of more) if (named.has(r.resource) && !out.some((x) => x.resource === r.resource)) out.push(r);
  }
  return out;
}

function resultOf(row: SuiteRow | undefined, fallback: { policy: string; rule: string; reason: string }): RowResult {
  if (!row) return { ...fallback, status: 'failed' };
  return { policy: row.policy, rule: row.rule, status: row.status, reason: row.reason, ...(row.diff ? { diff: row.diff } : {}) };
}

/**
 * Proof rows by source policy key. `staged(rel)` is where the migrated suite was written; `outDisplay` how
 * rows name OUT.
 */
export function prove(suites: readonly RewrittenSuite[], staged: (rel: string) => string, outDisplay: string): Map<string, ProofRow[]> {
  const out = new Map<string, ProofRow[]>();
  for (const s of suites) {
    const proofs = s.links.filter((l) => l.role === 'proof');
    if (proofs.length === 0) continue;
    const original = load(s.file.abs, s.file.path);
    const migrated = load(staged(s.file.rel), `${outDisplay.replace(/\/+$/, '')}/${s.file.rel}`);
    // A suite in DIR that does not load (kyverno test refuses it too: an unknown field, the old schema) proves
    // nothing either way; one that loads in DIR and not in OUT is a difference the migration made.
    const unloaded = original.ok ? undefined : `the original suite does not load (kyverno test refuses it too): ${original.reason}`;
    for (const link of proofs) {
      const before = entryRows(original, link.entry);
      const after = migratedRows(migrated, link.migratedEntry ?? link.entry, link.alsoIn, before);
      const rows: ProofRow[] = [];
      const beforeRows = typeof before === 'string' ? [] : before;
      const afterRows = typeof after === 'string' ? [] : after;
      // A retargeted entry's rows name the targets its original's rows reached from their triggers: each is
      // paired with the original entry's verdict (its first failed row, else its first).
      const verdict = beforeRows.find((r) => r.status === 'failed') ?? beforeRows[0];
      const labels = link.retargeted ? afterRows.map((r) => r.resource) : [...new Set([...beforeRows.map((r) => r.resource), ...afterRows.map((r) => r.resource)])];
      if (labels.length === 0) labels.push('');
      labels.forEach((resource, i) => {
        const b = link.retargeted ? verdict : (beforeRows.find((r) => r.resource === resource) ?? (beforeRows.length === afterRows.length ? beforeRows[i] : undefined));
        const a = afterRows.find((r) => r.resource === resource) ?? (beforeRows.length === afterRows.length ? afterRows[i] : undefined);
        // A row either side could not run (data no offline run has: a registry's image metadata) proves nothing,
        // nor one whose migrated policy found no cluster to read what the suite gives the source as values.
        const unrun = notRun(b) ? b : notRun(a) ? a : undefined;
        const valuesOnly = unrun === undefined && readsValuesFromCluster(b, a);
        rows.push({
          suite: s.file.path,
          entry: link.entry,
          resource,
          original: resultOf(b, { policy: '', rule: '', reason: typeof before === 'string' ? before : 'no such row' }),
          migrated: resultOf(a, { policy: '', rule: '', reason: typeof after === 'string' ? after : 'no such row' }),
          ...(link.before ? { before: link.before } : {}),
          ...(unloaded ? { notRun: unloaded } : unrun ? { notRun: `${unrun === b ? 'the original' : 'the migrated'} suite could not run it: ${unrun.reason.replace(/^not run: /, '')}` } : {}),
          ...(valuesOnly ? { notRun: VALUES_ONLY } : {}),
        });
      });
      const list = out.get(link.key) ?? [];
      list.push(...rows);
      out.set(link.key, list);
    }
  }
  return out;
}

/**
 * The original row passed and the migrated one failed only because its policy read the cluster, of which the
 * suite has none: the source read what the suite gives it (values, a mocked call) where the migrated policy
 * reads the cluster through Kyverno's resource library, which only clusterResources feed.
 */
function readsValuesFromCluster(original: SuiteRow | undefined, migrated: SuiteRow | undefined): boolean {
  return original?.status === 'passed' && migrated?.status === 'failed' && needsClusterObjects(migrated.reason);
}

const VALUES_ONLY =
  "the migrated suite could not run it: the source's context is given by the suite (values or mocks), which only a ClusterPolicy reads; the MutatingPolicy reads the cluster, which the suite's clusterResources would give it";

function notRun(row: SuiteRow | undefined): boolean {
  return row !== undefined && row.status === 'skipped' && row.reason.startsWith('not run:');
}

export function passes(r: RowResult): boolean {
  return r.status !== 'failed';
}
