import { defineConfig } from 'vitest/config';

/**
 * Test files that replace modules or spy on their exports (vi.mock, vi.spyOn, ...): each needs a module graph
 * of its own. test/meta/isolated-tests.test.ts keeps this list complete.
 */
export const ISOLATED = [
  'test/api/one-pipeline-function.test.ts',
  'test/compile/differential.test.ts',
  'test/compile/fused-pass-corpus.test.ts',
  'test/compile/fused-pass.test.ts',
  'test/compile/map-rule-runs.test.ts',
  'test/compile/rule-match-slots.test.ts',
  'test/conformance/one-pipeline.test.ts',
];

// Every other file shares its worker's modules with the files before it (isolate: false): importing the
// compiler, engines and schemas again for each of some 280 files took most of the suite's time (about 230 of
// 670 s on the 2-core machine). A hook a shared module registers runs for the first file only: hooks every
// file needs are the setup file's (test/support/setup.ts).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Per test file, whether or not it shares modules: the removal of the temporary folders it made.
    setupFiles: ['test/support/setup.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
