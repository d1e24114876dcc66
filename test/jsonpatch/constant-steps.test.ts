/**
 * MAP JSONPatch mutations whose CEL expression returns a constant list (one frozen list, src/cel/codegen.ts
 * patchList) take steps prepared once, with their paths decoded (src/interpreter/ops/json-patch.ts stepsOf).
 * Differential test: each patch as a constant list against the same patch with its path read from a
 * variable, whose steps are computed at every evaluation: the same object, diagnostics and admission.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import { apply } from '../../src/interpreter/index.js';
import type { Policy } from '../../src/ir/nodes.js';
import { applyConfiguration, jsonPatch, mapPolicies, namedExpression } from '../support/map-policy.js';

/** Patches as lists of [op, path, value JSON or undefined, from or undefined]. */
const PATCHES: [string, string, string | undefined, string | undefined][][] = [
  [['add', '/metadata/labels/team', '"platform"', undefined]],
  [['replace', '/metadata/labels/absent', '"x"', undefined]],
  [['add', '/metadata/annotations/a~1b~0c', '"escaped"', undefined]],
  [['add', '/spec/tolerations/-', '{"key": "k", "operator": "Exists"}', undefined]],
  [['add', '/spec/tolerations', '[{"key": "k", "operator": "Exists"}]', undefined]],
  [['replace', '/spec/containers/0/image', '"nginx:2"', undefined]],
  [['add', '/spec/containers/-1/name', '"renamed"', undefined]],
  [['remove', '/metadata/labels/tier', undefined, undefined]],
  [['remove', '/metadata/labels/never-there', undefined, undefined]],
  [['add', '/spec/nodeSelector/pool', '"backend"', undefined]],
  [['add', '/missing/deeper', '"x"', undefined]],
  [['add', '/metadata/constructor/x', '"x"', undefined]],
  [['add', '/metadata/__proto__', '{"a": "b"}', undefined]],
  [['test', '/metadata/labels/tier', '"backend"', undefined], ['add', '/metadata/labels/tested', '"yes"', undefined]],
  [['move', '/metadata/labels/moved', undefined, '/metadata/labels/tier']],
  [
    ['add', '/metadata/labels/first', '"1"', undefined],
    ['remove', '/metadata/labels/never-there', undefined, undefined],
  ],
  [
    ['add', '/metadata/labels/first', '"1"', undefined],
    ['add', '/spec/containers/0/ports/-', '{"containerPort": 80}', undefined],
  ],
  [['replace', '/spec/containers/9/name', '"x"', undefined]],
];

function literal([op, path, value, from]: [string, string, string | undefined, string | undefined], pathExpr: string): string {
  const fields = [`op: "${op}"`, `path: ${pathExpr}`];
  if (from !== undefined) fields.push(`from: "${from}"`);
  if (value !== undefined) fields.push(`value: ${value}`);
  return `JSONPatch{${fields.join(', ')}}`;
}

/** A MAP policy: an ApplyConfiguration (so later patches write in place), then the patch. */
function policy(patch: string): Policy[] {
  return mapPolicies('p', {
    reinvocationPolicy: 'Never',
    variables: [namedExpression('empty', '""')],
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": "yes"}}}'), jsonPatch(patch)],
  });
}

describe('constant JSONPatch lists', () => {
  it('patch as the same steps computed at each evaluation', () => {
    const pods = makePods(30);
    for (const steps of PATCHES) {
      const constant = policy(`[${steps.map((s) => literal(s, JSON.stringify(s[1]))).join(', ')}]`);
      const computed = policy(`[${steps.map((s) => literal(s, `${JSON.stringify(s[1])} + variables.empty`)).join(', ')}]`);
      for (const pod of pods) {
        // Twice in a row: the second evaluation of a constant list takes the steps prepared by the first.
        for (let round = 0; round < 2; round++) {
          const a = apply(constant, { object: pod, operation: 'CREATE' }, { trace: false, patch: false });
          const b = apply(computed, { object: pod, operation: 'CREATE' }, { trace: false, patch: false });
          const label = `${JSON.stringify(steps)} on ${JSON.stringify(pod)}`;
          expect(JSON.stringify(a.object), label).toBe(JSON.stringify(b.object));
          expect(a.allowed, label).toBe(b.allowed);
          expect(
            a.diagnostics.map((d) => d.message),
            label,
          ).toEqual(b.diagnostics.map((d) => d.message));
        }
      }
    }
  });
});
