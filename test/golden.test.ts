import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../src/golden/case.js';
import { loadExceptions, verdict } from '../src/golden/exceptions.js';
import { runCaseDir } from '../src/golden/run.js';
import { REPO_ROOT } from './support/shared.js';

const CASES = join(REPO_ROOT, 'golden', 'cases');
const update = process.env.UPDATE_GOLDEN === '1';
const exceptions = loadExceptions(join(REPO_ROOT, 'golden', 'exceptions.yaml'));

describe('golden cases', () => {
  it('exceptions file is well formed', () => {
    expect(exceptions).not.toHaveProperty('error');
  });

  it('has at least 15 cases', () => {
    expect(listCases(CASES).length).toBeGreaterThanOrEqual(15);
  });

  for (const dir of listCases(CASES)) {
    it(dir.slice(CASES.length + 1), () => {
      const result = runCaseDir(dir, { update });
      const v = verdict(result, Array.isArray(exceptions) ? exceptions : []);
      if (v.status === 'failed') expect.fail(v.messages.join('\n'));
      expect(result.checks.length).toBeGreaterThan(0);
    });
  }
});
