/**
 * How a case is executed: one runner per format, with a registration hook so an engine or dialect can supply a
 * better one in one line (`registerCaseRunner('kyverno-chainsaw', runner)`). The harness skips
 * cases that need a cluster before any runner sees them, and turns a runner's exception into an `error` case.
 */
import type { CaseFormat, CaseResult, ConformanceCase } from './types.js';
import type { RunContext } from './runners/context.js';
import { runAdmissionCase } from './runners/admission.js';
import { runChainsawCase } from './runners/chainsaw.js';
import { runSuiteCase } from './runners/mutate-existing.js';
import { runSmdTriplet, runTableRow } from './runners/engines.js';
import { enterSchemaEnvironment } from '../engines/ssa.js';

export type { RunContext } from './runners/context.js';
export { registerTableRunner, smdTripletRunner, type SmdEngine, type TableRowRunner } from './runners/engines.js';

type CaseOf<F extends CaseFormat> = Extract<ConformanceCase, { format: F }>;
export type CaseRunner<F extends CaseFormat = CaseFormat> = (c: CaseOf<F>, ctx: RunContext) => CaseResult | Promise<CaseResult>;

const DEFAULT_RUNNERS: { [F in CaseFormat]: CaseRunner<F> } = {
  gatekeeper: runAdmissionCase,
  map: runAdmissionCase,
  'kyverno-cli': runAdmissionCase,
  'kyverno-unit': runAdmissionCase,
  'kyverno-suite': runSuiteCase,
  'kyverno-chainsaw': runChainsawCase,
  'gatekeeper-table': runTableRow,
  'smd-triplet': runSmdTriplet,
};

// Keyed by format; the value's case type matches its key (enforced by registerCaseRunner's signature).
const registered = new Map<CaseFormat, unknown>();

/** Replaces the runner of a format (the last registration wins). */
export function registerCaseRunner<F extends CaseFormat>(format: F, runner: CaseRunner<F>): void {
  registered.set(format, runner);
}

export function caseRunner<F extends CaseFormat>(format: F): CaseRunner<F> {
  return (registered.get(format) as CaseRunner<F> | undefined) ?? DEFAULT_RUNNERS[format];
}

export async function runCase(c: ConformanceCase, ctx: RunContext): Promise<CaseResult> {
  if (c.needsCluster) return { status: 'skipped', reason: c.needsCluster };
  // A translation (`--via`) runs on the source corpus' objects, whose custom kinds (Gatekeeper's `Foo`, Kyverno's
  // CRDs) have no schema: their engines work on unstructured objects, so MAP types them with the deduced schema.
  // A Kyverno MutatingPolicy case replays the Kyverno CLI or a cluster whose kinds Kyverno typed for itself; the
  // corpus ships no schema for them (core/v1 Binding, test CRDs), so they are deduced too.
  const deduced = ctx.via !== undefined || c.dialect === 'kyverno-mpol';
  const leave = deduced ? enterSchemaEnvironment({ unknownKinds: 'deduced' }) : undefined;
  try {
    const runner = caseRunner(c.format) as CaseRunner;
    const result = await runner(c as never, ctx);
    return result.status === 'passed' ? { status: 'passed' } : result;
  } catch (e) {
    const err = e as Error;
    const where = err.stack?.split('\n')[1]?.trim();
    return { status: 'error', reason: `crash: ${err.message ?? String(e)}${where ? ` (${where})` : ''}` };
  } finally {
    leave?.();
  }
}
