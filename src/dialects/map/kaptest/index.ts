/** kaptest manifests (pfnet/kaptest `mapTestSuites`): find (`findKaptestFiles`), load (`loadKaptest`), run (`runKaptest`). */
export { findKaptestFiles, isKaptestFile } from './discover.js';
export { KAPTEST_FILE_NAME, loadKaptest, looksLikeKaptest } from './load.js';
export type { Expectation, KaptestManifest, KaptestRow, MapTestCase, MapTestSuite, RowStatus } from './model.js';
export { requestLabel, runKaptest, type KaptestOptions } from './run.js';
