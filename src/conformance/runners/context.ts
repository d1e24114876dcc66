/** What every runner is told about the run. */
export interface RunContext {
  /** `--via D`: translate the case's policies into dialect D and run the translation. */
  via?: string;
}
