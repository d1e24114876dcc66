/** Cases stated in both Kyverno and Gatekeeper, translated exactly in both directions. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactDirections, listCases, readCase } from '../../src/golden/case.js';
import { loadExceptions } from '../../src/golden/exceptions.js';
import { REPO_ROOT } from '../support/shared.js';

const CASES = join(REPO_ROOT, 'golden', 'cases');
const exceptions = loadExceptions(join(REPO_ROOT, 'golden', 'exceptions.yaml'));

/** A direction with a known divergence listed in golden/exceptions.yaml does not count. */
function excused(name: string, from: string, to: string): boolean {
  return Array.isArray(exceptions) && exceptions.some((e) => e.case === name && e.check.includes(`${from}->${to}`));
}

function bothWays(): string[] {
  const names: string[] = [];
  for (const dir of listCases(CASES)) {
    const c = readCase(dir);
    if ('error' in c) continue;
    const dialects = c.inputs.map((i) => i.dialect);
    if (!dialects.includes('kyverno') || !dialects.includes('gatekeeper')) continue;
    const d = exactDirections(c);
    const has = (from: string, to: string) => d.some((x) => x.from === from && x.to === to) && !excused(c.name, from, to);
    if (has('kyverno', 'gatekeeper') && has('gatekeeper', 'kyverno')) names.push(c.name);
  }
  return names;
}

describe('golden directions', () => {
  it('has at least 20 cases exact from Kyverno to Gatekeeper and from Gatekeeper to Kyverno', () => {
    const names = bothWays();
    expect(names.length, names.join(', ')).toBeGreaterThanOrEqual(20);
  });

  it('every both-* case with a Kyverno and a Gatekeeper input states expectations for both targets', () => {
    for (const dir of listCases(CASES)) {
      const c = readCase(dir);
      if ('error' in c || !c.name.startsWith('both-') || c.inputs.length < 2) continue;
      expect(c.expect.gatekeeper ?? c.expectFrom.kyverno?.gatekeeper, c.name).toBeDefined();
      expect(c.expect.kyverno ?? c.expectFrom.gatekeeper?.kyverno, c.name).toBeDefined();
    }
  });
});
