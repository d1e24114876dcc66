/** A whole conformance run: discover the cases under the DIR arguments, load each, run each, in order. */
import { discoverCases } from './discover.js';
import { LoadCache, loadCase } from './loaders/index.js';
import { runCase, type RunContext } from './runners.js';
import type { CaseOutcome } from './types.js';

export interface ConformanceRun {
  outcomes: CaseOutcome[];
  /** DIR arguments that do not exist (nothing was run for them). */
  missing: string[];
  /** With `via`: the generated documents the cluster's admission checks passed. */
  admittedDocuments?: number;
}

export interface RunOptions extends RunContext {
  cwd?: string;
  /** Called after each case, for progress output. */
  onCase?: (outcome: CaseOutcome) => void;
}

export async function runConformance(dirs: readonly string[], opts: RunOptions = {}): Promise<ConformanceRun> {
  const { refs, missing } = discoverCases(dirs, opts.cwd);
  const ctx: RunContext = {
    ...(opts.via !== undefined ? { via: opts.via, admitted: { documents: 0 } } : {}),
    ...(opts.runtime ? { runtime: opts.runtime } : {}),
    ...(opts.runners ? { runners: opts.runners } : {}),
    ...(opts.dialects ? { dialects: opts.dialects } : {}),
  };
  const cache = new LoadCache();
  const outcomes: CaseOutcome[] = [];
  for (const ref of refs) {
    const loaded = loadCase(ref, cache);
    const result = loaded.ok
      ? await runCase(loaded.value, ctx)
      : { status: 'error' as const, reason: loaded.diagnostics.map((d) => `${d.code}: ${d.message}`).join('; ') };
    const outcome: CaseOutcome = { id: ref.id, ...result };
    outcomes.push(outcome);
    opts.onCase?.(outcome);
  }
  return { outcomes, missing, ...(ctx.admitted ? { admittedDocuments: ctx.admitted.documents } : {}) };
}
