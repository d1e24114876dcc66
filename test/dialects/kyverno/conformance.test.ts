import { expect, it } from 'vitest';
import '../../../src/conformance/plugins/kyverno.js';
import { runConformance } from '../../../src/conformance/run.js';
import { describeShared, sharedPath } from '../../support/shared.js';

describeShared('kyverno conformance corpus (kyverno-cli, kyverno-unit)', () => {
  it('passes the offline Kyverno-dialect cases it supports', async () => {
    const run = await runConformance([sharedPath('conformance/kyverno/kyverno-unit'), sharedPath('conformance/kyverno/kyverno-cli')]);
    const kyverno = run.outcomes.filter((o) => !/mutating-admission-policy|mutating-policy|mpol/.test(o.id));
    const passed = kyverno.filter((o) => o.status === 'passed').length;
    const broken = kyverno.filter((o) => o.status === 'error');
    expect(broken).toEqual([]);
    // 49 unit + 33 CLI cases, a ratchet: the one that fails is Test_Container_InitContainer_foreach (whose
    // expected_partial looks mistranscribed).
    expect(passed).toBeGreaterThanOrEqual(81);
  }, 120_000);
});
