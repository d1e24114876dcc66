import type { DialectSet } from '../../dialects/registry.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { CaseRunners } from '../runners.js';

/** What every runner is told about the run. */
export interface RunContext {
  /** `--via D`: translate the case's policies into dialect D and run the translation. */
  via?: string;
  /** With `via`: how many generated documents passed the cluster's admission checks (counted as they are). */
  admitted?: { documents: number };
  /**
   * The runtime the case's evaluations start from (default: a fresh default runtime per case); a runner adds
   * the case's own schemas and data to it (see runCase).
   */
  runtime?: Runtime;
  /** The dialects that read the cases' policies and `via` names (default: the built-in ones). */
  dialects?: DialectSet;
  /** Runners that replace the default ones of their formats (DEFAULT_RUNNERS in ../runners.ts). */
  runners?: Partial<CaseRunners>;
}
