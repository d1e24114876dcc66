/** A small, seeded fuzzing budget for every parser and for `apply` (`npm run fuzz` runs a large one). */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { applyEndsWell, PARSERS, POD, seedTexts, textFrom } from './properties.js';
import { DIFFERENTIALS } from './differential-properties.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const texts = seedTexts([join(REPO, 'golden', 'cases'), join(REPO, 'examples')]);

describe('fuzz (seeded, small budget)', () => {
  for (const [name, p] of Object.entries(PARSERS)) {
    it(`${name}: every input ends in a result or a positioned error, never a throw`, () => {
      fc.assert(fc.property(textFrom(p.seeds(texts)), p.check), { seed: 20261126, numRuns: 300 });
    });
  }

  it('cel-diff: transmute and @bufbuild/cel agree on random expressions and data (test/fuzz/differential.ts)', () => {
    fc.assert(DIFFERENTIALS['cel-diff']!(), { seed: 20261126, numRuns: 400 });
  }, 30_000);

  it('jmespath-diff: transmute and the jmespath package agree on random expressions and data (test/fuzz/differential.ts)', () => {
    fc.assert(DIFFERENTIALS['jmespath-diff']!(), { seed: 20261126, numRuns: 2000 });
  }, 30_000);

  it('apply: every policy text ends with exit 0, 1 or 2 and no internal error', async () => {
    const pod = join(tempDir('fuzz', { 'pod.yaml': POD }), 'pod.yaml');
    await fc.assert(fc.asyncProperty(textFrom(texts), (policy) => applyEndsWell(policy, pod)), { seed: 20261126, numRuns: 60 });
  }, 60_000);
});
