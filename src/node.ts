/**
 * The public API for Node programs (`transmute-policies/node`): everything of the browser-safe entry
 * (index.ts), plus what reads files: policy files and folders, and `test` (golden cases, kyverno-test.yaml
 * suites and kaptest manifests, as `transmute test` runs them).
 */
export * from './index.js';
export { loadPolicyFiles } from './io/load-files.js';
export type { LoadedFiles } from './io/load-files.js';
export { test } from './api/test-files.js';
export type { TestOptions, TestRun } from './api/test-files.js';
export type { TestRow, RowStatus } from './io/test-row.js';
