/** What every runner is told about the run. */
export interface RunContext {
  /** `--via D`: translate the case's policies into dialect D and run the translation. */
  via?: string;
  /** With `via`: how many generated documents passed the cluster's admission checks (counted as they are). */
  admitted?: { documents: number };
}
