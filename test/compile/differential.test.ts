/**
 * Compiled vs interpreted (issue 17): every `apply` made while running the golden set and the three upstream
 * corpora (../shared/conformance) runs twice, once with the code generated per policy (src/compile, the
 * default) and once with the closure interpreter (`interpret: true`, the reference), and both must give the
 * same object, patch, verdict, diagnostics and trace. The interpreter module is wrapped, so every caller
 * (runners, plugins, suites, the golden harness) is covered without knowing about it.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as Interpreter from '../../src/interpreter/index.js';
import { report } from '../support/run-differential.js';
import { REPO_ROOT, describeShared, sharedPath } from '../support/shared.js';

const seen = vi.hoisted(() => ({ applies: 0, divergences: [] as { where: string; what: string }[] }));

vi.mock('../../src/interpreter/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof Interpreter>();
  // Imported here: a mock factory runs before the file's own imports.
  const { differences } = await import('../support/run-differential.js');
  const apply: typeof real.apply = (policies, request, opts = {}) => {
    const compiled = real.apply(policies, request, { ...opts, interpret: false });
    const interpreted = real.apply(policies, request, { ...opts, interpret: true });
    seen.applies++;
    const where = policies.map((p) => p.id).join(', ');
    for (const what of differences(compiled, interpreted, { trace: true })) seen.divergences.push({ where, what });
    return compiled;
  };
  return { ...real, apply };
});


describe('generated code agrees with the closure interpreter', () => {
  afterAll(() => {
    // Every group below must have made the runs it claims to compare.
    expect(seen.applies).toBeGreaterThan(0);
  });

  it('on every golden case', async () => {
    const { listCases } = await import('../../src/golden/case.js');
    const { runCaseDir } = await import('../../src/golden/run.js');
    const before = seen.applies;
    for (const dir of listCases(join(REPO_ROOT, 'golden', 'cases'))) {
      seen.divergences.length = 0;
      runCaseDir(dir, {});
      expect(seen.divergences, `${dir}\n${report(seen.divergences)}`).toEqual([]);
    }
    expect(seen.applies - before).toBeGreaterThan(100);
  }, 300_000);

  describeShared('on every case of the upstream corpora', () => {
    for (const corpus of ['gatekeeper', 'map', 'kyverno']) {
      it(corpus, async () => {
        await import('../../src/conformance/plugins/gatekeeper.js');
        await import('../../src/conformance/plugins/map.js');
        await import('../../src/conformance/plugins/kyverno.js');
        const { runConformance } = await import('../../src/conformance/run.js');
        const before = seen.applies;
        seen.divergences.length = 0;
        const run = await runConformance([sharedPath('conformance', corpus)]);
        expect(run.outcomes.length).toBeGreaterThan(50);
        expect(seen.divergences, report(seen.divergences)).toEqual([]);
        expect(seen.applies - before).toBeGreaterThan(50);
      }, 900_000);
    }
  });
});
