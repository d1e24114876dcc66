import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactDirections, listCases, readCase, type GoldenCase } from '../../src/golden/case.js';
import { loadExceptions } from '../../src/golden/exceptions.js';
import { REPO_ROOT } from '../support/shared.js';

const DIALECTS = ['gatekeeper', 'kyverno', 'map'];

const exceptions = loadExceptions(join(REPO_ROOT, 'golden', 'exceptions.yaml'));
const excused = new Set(Array.isArray(exceptions) ? exceptions.map((e) => e.case) : []);

/**
 * Cases that state one behaviour in all three dialects and check all six directions exactly; a case with a
 * known divergence in golden/exceptions.yaml does not count (test/golden.test.ts runs the checks themselves).
 */
function threeDialectCases(): GoldenCase[] {
  return listCases(join(REPO_ROOT, 'golden', 'cases'))
    .map(readCase)
    .filter((c): c is GoldenCase => !('error' in c))
    .filter((c) => DIALECTS.every((d) => c.inputs.some((i) => i.dialect === d)))
    .filter((c) => exactDirections(c).length === 6 && !excused.has(c.name));
}

describe('three-dialect golden cases', () => {
  it('at least 15 cases have Gatekeeper, Kyverno and MAP inputs with every direction exact', () => {
    const cases = threeDialectCases();
    expect(cases.map((c) => c.name).length, cases.map((c) => c.name).join(', ')).toBeGreaterThanOrEqual(15);
    for (const c of cases) {
      const directions = exactDirections(c).map((d) => `${d.from}->${d.to}`).sort();
      expect(directions).toEqual(['gatekeeper->kyverno', 'gatekeeper->map', 'kyverno->gatekeeper', 'kyverno->map', 'map->gatekeeper', 'map->kyverno']);
    }
  });
});
