/** `kyverno-test.yaml` suites: load (`loadTestSuites`, each document a test), find (`findTestFiles`), run (`runTestSuite`). */
export { findTestFiles } from './discover.js';
export { loadTestSuite, loadTestSuites, TEST_FILE_NAME } from './load.js';
export type { RowStatus, SuiteResult, SuiteRow, TestSuite } from './model.js';
export { runTestSuite, type RunOptions } from './run.js';
export { findResource, policyChain, resourceLabel } from './select.js';
