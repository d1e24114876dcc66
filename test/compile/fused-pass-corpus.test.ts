/**
 * Whole fix-point passes as one generated walk (src/compile/fused-pass.ts) against the closure interpreter
 * (`interpret: true`, the reference): every `apply` made while running the golden set and the Gatekeeper
 * corpus (../shared/conformance/gatekeeper) runs again untraced, generated and interpreted, and both must
 * give the same object (key order included), verdict and diagnostics. Untraced, because the fused pass and
 * the shared matches only run without a trace, and the corpus harness traces.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as FusedPass from '../../src/compile/fused-pass.js';
import type * as Interpreter from '../../src/interpreter/index.js';
import { report } from '../support/run-differential.js';
import { REPO_ROOT, describeShared, sharedPath } from '../support/shared.js';

const seen = vi.hoisted(() => ({ applies: 0, fused: 0, divergences: [] as { where: string; what: string }[] }));

vi.mock('../../src/compile/fused-pass.js', async (importOriginal) => {
  const real = await importOriginal<typeof FusedPass>();
  // Counts the runs that took a fused pass, so the comparison is known to cover it.
  const fusedPasses: typeof real.fusedPasses = (policies, slots) => {
    const passes = real.fusedPasses(policies, slots);
    if (!passes) return passes;
    return {
      program(shared, st) {
        const program = passes.program(shared, st);
        if (program) seen.fused++;
        return program;
      },
    };
  };
  return { ...real, fusedPasses };
});

vi.mock('../../src/interpreter/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof Interpreter>();
  // Imported here: a mock factory runs before the file's own imports.
  const { differences } = await import('../support/run-differential.js');
  const apply: typeof real.apply = (policies, request, opts = {}) => {
    if (policies.some((p) => p.semantics.order === 'fixpoint')) {
      const compiled = real.apply(policies, request, { ...opts, trace: false, interpret: false });
      const interpreted = real.apply(policies, request, { ...opts, trace: false, interpret: true });
      seen.applies++;
      const where = policies.map((p) => p.id).join(', ');
      for (const what of differences(compiled, interpreted)) seen.divergences.push({ where, what });
    }
    return real.apply(policies, request, opts);
  };
  return { ...real, apply };
});


describe('fused fix-point passes agree with the closure interpreter', () => {
  afterAll(() => {
    expect(seen.applies).toBeGreaterThan(0);
  });

  it('on every golden case', async () => {
    const { listCases } = await import('../../src/golden/case.js');
    const { runCaseDir } = await import('../../src/golden/run.js');
    const before = { applies: seen.applies, fused: seen.fused };
    for (const dir of listCases(join(REPO_ROOT, 'golden', 'cases'))) {
      seen.divergences.length = 0;
      runCaseDir(dir, {});
      expect(seen.divergences, `${dir}\n${report(seen.divergences)}`).toEqual([]);
    }
    expect(seen.applies - before.applies).toBeGreaterThan(10);
    expect(seen.fused - before.fused).toBeGreaterThan(0);
  }, 300_000);

  describeShared('on every case of the Gatekeeper corpus', () => {
    it('gatekeeper', async () => {
      await import('../../src/conformance/plugins/gatekeeper.js');
      const { runConformance } = await import('../../src/conformance/run.js');
      const before = { applies: seen.applies, fused: seen.fused };
      seen.divergences.length = 0;
      const run = await runConformance([sharedPath('conformance', 'gatekeeper')]);
      expect(run.outcomes.length).toBeGreaterThan(50);
      expect(seen.divergences, report(seen.divergences)).toEqual([]);
      expect(seen.applies - before.applies).toBeGreaterThan(50);
      console.log(`fused passes: ${seen.fused - before.fused} of ${seen.applies - before.applies} fix-point applies`);
      expect(seen.fused - before.fused).toBeGreaterThan(0);
    }, 600_000);
  });
});
