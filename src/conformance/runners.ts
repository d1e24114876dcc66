/**
 * How a case is executed: one runner per format, listed once below; a run replaces any of them through its
 * context (`runConformance(dirs, { runners: { 'smd-triplet': runner } })`). The harness skips cases that need a
 * cluster before any runner sees them, and turns a runner's exception into an `error` case.
 */
import type { CaseFormat, CaseResult, ConformanceCase } from './types.js';
import type { RunContext } from './runners/context.js';
import { runChainsawCase } from './runners/chainsaw.js';
import { runSuiteCase } from './runners/mutate-existing.js';
import { runSmdTriplet, tableRowRunner } from './runners/engines.js';
import { runGatorExpandCase } from './runners/gator-expand.js';
import { GATEKEEPER_TABLE_RUNNERS, runGatekeeperCase } from './plugins/gatekeeper.js';
import { runKyvernoCase } from './plugins/kyverno.js';
import { runMapCase } from './plugins/map.js';
import { createRuntime } from '../runtime/create.js';
import { deriveRuntime } from '../runtime/runtime.js';

export type { RunContext } from './runners/context.js';
export { smdTripletRunner, tableRowRunner, type SmdEngine, type TableRowRunner, type TableRowRunners } from './runners/engines.js';

type CaseOf<F extends CaseFormat> = Extract<ConformanceCase, { format: F }>;
export type CaseRunner<F extends CaseFormat = CaseFormat> = (c: CaseOf<F>, ctx: RunContext) => CaseResult | Promise<CaseResult>;
export type CaseRunners = { [F in CaseFormat]: CaseRunner<F> };

/** The runner of every format: the dialects' own (gatekeeper, map, kyverno) and the generic ones. */
export const DEFAULT_RUNNERS: Readonly<CaseRunners> = Object.freeze({
  gatekeeper: runGatekeeperCase,
  map: runMapCase,
  'kyverno-cli': runKyvernoCase,
  'kyverno-unit': runKyvernoCase,
  'kyverno-suite': runSuiteCase,
  'kyverno-chainsaw': runChainsawCase,
  'gatekeeper-table': tableRowRunner(GATEKEEPER_TABLE_RUNNERS),
  'smd-triplet': runSmdTriplet,
  'gator-expand': runGatorExpandCase,
});

export function caseRunner<F extends CaseFormat>(format: F, ctx: RunContext = {}): CaseRunner<F> {
  return (ctx.runners?.[format] as CaseRunner<F> | undefined) ?? (DEFAULT_RUNNERS[format] as CaseRunner<F>);
}

export async function runCase(c: ConformanceCase, ctx: RunContext): Promise<CaseResult> {
  if (c.needsCluster) return { status: 'skipped', reason: c.needsCluster };
  // A translation (`--via`) runs on the source corpus' objects, whose custom kinds (Gatekeeper's `Foo`, Kyverno's
  // CRDs) have no schema: their engines work on unstructured objects, so MAP types them with the deduced schema.
  // A Kyverno MutatingPolicy case replays the Kyverno CLI or a cluster whose kinds Kyverno typed for itself; the
  // corpus ships no schema for them (core/v1 Binding, test CRDs), so they are deduced too.
  const deduced = ctx.via !== undefined || c.dialect === 'kyverno-mpol';
  const base = ctx.runtime ?? createRuntime();
  const runtime = deduced ? deriveRuntime(base, { schemas: { unknownKinds: 'deduced' } }) : base;
  try {
    const runner = caseRunner(c.format, ctx) as CaseRunner;
    const result = await runner(c as never, { ...ctx, runtime });
    return result.status === 'passed' ? { status: 'passed' } : result;
  } catch (e) {
    const err = e as Error;
    const where = err.stack?.split('\n')[1]?.trim();
    return { status: 'error', reason: `crash: ${err.message ?? String(e)}${where ? ` (${where})` : ''}` };
  }
}
