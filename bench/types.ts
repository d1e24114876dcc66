/**
 * A benchmark compares transmute doing a job with a hand-written TypeScript function doing the same job,
 * in the same process and run. `setup` builds both (compile once), then the harness times `run` and
 * `baseline` over `items` objects each.
 */
export interface Benchmark {
  name: string;
  setup(): Promise<BenchmarkCase> | BenchmarkCase;
}

export interface BenchmarkCase {
  /** Number of objects one call of `run` or `baseline` processes. */
  items: number;
  run(): void;
  baseline(): void;
  /** Optional third column, e.g. another library doing the same. */
  others?: Record<string, () => void>;
  /** Throws when `run` and `baseline` disagree on their results: a benchmark must prove it measures the same work. */
  verify?(): void;
}
