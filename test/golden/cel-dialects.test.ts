/**
 * `cel-*` golden cases: one behaviour stated as a Kyverno ClusterPolicy, a MutatingAdmissionPolicy with its
 * binding and a Kyverno MutatingPolicy, each translated into the other two and re-executed (test/golden.test.ts
 * runs the checks themselves). A case with any known divergence in golden/exceptions.yaml does not count.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactDirections, listCases, readCase, type GoldenCase } from '../../src/golden/case.js';
import { loadExceptions } from '../../src/golden/exceptions.js';
import { REPO_ROOT } from '../support/shared.js';

const DIALECTS = ['kyverno', 'kyverno-mpol', 'map'];
const ALL_DIRECTIONS = DIALECTS.flatMap((from) => DIALECTS.filter((to) => to !== from).map((to) => `${from}->${to}`)).sort();

const exceptions = loadExceptions(join(REPO_ROOT, 'golden', 'exceptions.yaml'));
const excused = new Set(Array.isArray(exceptions) ? exceptions.map((e) => e.case) : []);

function celCases(): GoldenCase[] {
  return listCases(join(REPO_ROOT, 'golden', 'cases'))
    .map(readCase)
    .filter((c): c is GoldenCase => !('error' in c) && c.name.startsWith('cel-'));
}

const directions = (c: GoldenCase) =>
  exactDirections(c)
    .filter((d) => DIALECTS.includes(d.from) && DIALECTS.includes(d.to))
    .map((d) => `${d.from}->${d.to}`)
    .sort();

describe('CEL golden cases (kyverno, map, kyverno-mpol)', () => {
  it('every cel-* case has the three inputs, each expected exact in every direction', () => {
    const cases = celCases();
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      expect(c.inputs.map((i) => i.dialect).sort(), c.name).toEqual(DIALECTS);
      expect(directions(c), c.name).toEqual(ALL_DIRECTIONS);
      expect(c.resources.length, `${c.name}: at least two resources`).toBeGreaterThanOrEqual(2);
    }
  });

  it('at least 30 cel-* cases are exact in all six directions with no known divergence', () => {
    const counted = celCases().filter((c) => !excused.has(c.name) && directions(c).length === ALL_DIRECTIONS.length);
    expect(counted.length, counted.map((c) => c.name).join(', ')).toBeGreaterThanOrEqual(30);
  });
});
