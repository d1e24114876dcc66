/**
 * One line `transmute test` reports, whatever the suite format (kyverno-test.yaml, kaptest, golden cases):
 * the same shape feeds the text rows and `--json`'s `results`.
 */
export type RowStatus = 'passed' | 'failed' | 'skipped';

export interface TestRow {
  /** The test file as reached from the PATH argument. */
  file: string;
  policy: string;
  rule: string;
  resource: string;
  status: RowStatus;
  reason: string;
  /** Unified diff of the expected and the actual object (YAML, after the format's normalisation), on a mismatch. */
  diff?: string;
}
