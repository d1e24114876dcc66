/**
 * `conformance --via kyverno|gatekeeper|map` admits every document it generates as a cluster would before it
 * runs it (a refusal fails the case): no case of the shared corpora fails that way, and the run says how
 * many documents it checked.
 */
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { describeShared, sharedPath } from '../support/shared.js';

describeShared('generated documents in conformance --via', () => {
  for (const via of ['kyverno', 'gatekeeper', 'map']) {
    it(`--via ${via}: every generated document of the shared corpora is admitted`, async () => {
      const corpora = [sharedPath('conformance', 'gatekeeper'), sharedPath('conformance', 'map'), sharedPath('conformance', 'kyverno')];
      const run = await runConformance(corpora, { via });
      const refused = run.outcomes.filter((o) => /would not be admitted/.test(o.reason ?? '')).map((o) => `${o.id}: ${o.reason}`);
      console.log(`[via-admission] --via ${via}: ${run.admittedDocuments} generated documents admitted over ${run.outcomes.length} cases`);
      expect(refused).toEqual([]);
      expect(run.admittedDocuments).toBeGreaterThan(50);
    }, 240_000);
  }
});
