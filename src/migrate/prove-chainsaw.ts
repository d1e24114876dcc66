/**
 * Proof rows from the library's chainsaw tests (`transmute test` replays them, conformance/loaders/
 * chainsaw-test.ts): a test that applies the file of a migrated policy runs once from DIR and once, copied,
 * from the staged OUT, where that file holds the migration. Only a test the replay runs and passes on the
 * source proves anything: one it does not run, or that fails on the source (a cluster the replay does not
 * stand for), gives no row. A row is about the whole test, for every migrated policy it applies.
 */
import { basename, relative, resolve } from 'node:path';
import { CHAINSAW_TEST_FILE_NAME, loadChainsawTest } from '../conformance/loaders/chainsaw-test.js';
import type { CaseFiles } from '../conformance/loaders/common.js';
import { runChainsawCase } from '../conformance/runners/chainsaw.js';
import type { Library, ProofRow, RowResult } from './model.js';
import { isInside } from './paths.js';

/** A test's result as a proof row's side: the test's mutating policies, passed or failed with the reason. */
function replayed(path: string, display: string, readFrom?: CaseFiles['readFrom']): { result: RowResult; policyFiles: string[]; policies: string[] } | undefined {
  const loaded = loadChainsawTest(path, display, undefined, readFrom);
  if (!loaded.ok || loaded.value.kind === 'not-run') return undefined;
  const r = runChainsawCase(loaded.value.case, {});
  const policy = loaded.value.policies.join(', ');
  const status = r.status === 'passed' ? 'passed' : r.status === 'failed' || r.status === 'error' ? 'failed' : undefined;
  if (status === undefined) return undefined;
  return { result: { policy, rule: '', status, reason: r.reason ?? 'Ok' }, policyFiles: loaded.value.policyFiles, policies: loaded.value.policies };
}

/**
 * Proof rows by source policy key, for the `migrated` policy keys (`staged(rel)`: where OUT's copy of a file
 * was written; `outDisplay`: how rows name OUT).
 */
export function proveByChainsaw(library: Library, migrated: ReadonlySet<string>, staged: (rel: string) => string, outDisplay: string): Map<string, ProofRow[]> {
  const out = new Map<string, ProofRow[]>();
  // A file a staged test names outside the staged copy of DIR (a shared step template, say) is read where the
  // test in DIR finds it: the migration leaves it as it is.
  const stagedRoot = resolve(staged(''));
  const libraryRoot = resolve(library.dir);
  const outsideFromLibrary = (dir: string, name: string): string => {
    const named = resolve(dir, name);
    // Resolved from the test's place in DIR: the staged copy may lie fewer levels below the root.
    return !isInside(dir, stagedRoot) || isInside(named, stagedRoot) ? named : resolve(libraryRoot, relative(stagedRoot, dir), name);
  };
  for (const file of library.files) {
    if (basename(file.rel) !== CHAINSAW_TEST_FILE_NAME) continue;
    const original = replayed(file.abs, file.path);
    if (original === undefined || original.result.status !== 'passed') continue;
    const applied = new Set(original.policyFiles.map((f) => resolve(f)));
    const keys = library.policies.filter((p) => migrated.has(p.key) && applied.has(resolve(p.file.abs)) && original.policies.includes(p.name)).map((p) => p.key);
    if (keys.length === 0) continue;
    const after = replayed(staged(file.rel), `${outDisplay.replace(/\/+$/, '')}/${file.rel}`, outsideFromLibrary);
    // A migrated test the replay cannot run (its policies now mix dialects, say) proves nothing either way.
    if (after === undefined) continue;
    const row: ProofRow = {
      suite: file.path,
      entry: 0,
      resource: '(chainsaw test)',
      original: original.result,
      migrated: after.result,
    };
    for (const k of keys) out.set(k, [...(out.get(k) ?? []), row]);
  }
  return out;
}
