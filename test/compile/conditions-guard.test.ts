/**
 * Kyverno preconditions evaluated against the object directly in generated code (src/compile/conditions-guard.ts)
 * against the closure interpreter's general guard: blocks the direct path takes (whole holes reading
 * `request.object` or `request.operation`, failing queries among them) and blocks it leaves to the general one (other variables,
 * partial strings), on CREATE and DELETE requests. Same object, verdict and diagnostics.
 */
import { describe, expect, it } from 'vitest';
import { conditionsGuard } from '../../src/compile/conditions-guard.js';
import { apply } from '../../src/interpreter/index.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Guard, Policy } from '../../src/ir/nodes.js';
import { parsePolicyDocs } from '../../src/pipeline.js';
import { differences } from '../support/run-differential.js';

function policy(preconditions: string): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: guarded
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
  rules:
  - name: label
    match:
      any:
      - resources:
          kinds: [Pod]
    preconditions:
${preconditions.replace(/^/gm, '      ')}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            guarded: "yes"
`;
  const docs = loadYamlText('guarded.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  return parsePolicyDocs(docs.value).policies;
}

const BLOCKS: { block: string; direct: boolean }[] = [
  { block: 'all:\n- key: "{{ request.object.metadata.labels.tier }}"\n  operator: Equals\n  value: web', direct: true },
  { block: "any:\n- key: \"{{ request.object.metadata.labels.tier || '' }}\"\n  operator: AnyIn\n  value: [web, backend]\n- key: \"{{ length(request.object.spec.containers) }}\"\n  operator: GreaterThan\n  value: 1", direct: true },
  { block: 'all:\n- key: "{{ request.object.metadata.name }}"\n  operator: Equals\n  value: "{{ request.object.metadata.labels.app }}"', direct: true },
  { block: 'all:\n- key: "{{ request.operation }}"\n  operator: Equals\n  value: CREATE', direct: true },
  { block: 'all:\n- key: "{{ request.namespace }}"\n  operator: Equals\n  value: ns', direct: false },
  { block: 'all:\n- key: "x-{{ request.object.metadata.name }}"\n  operator: Equals\n  value: x-p', direct: false },
];

const PODS: JsonObject[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { tier: 'web', app: 'p' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'q' } }, spec: { containers: [{ name: 'a' }] } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
];

describe('preconditions in generated code', () => {
  it('are evaluated directly only where every variable reads request.object through a whole hole', () => {
    for (const { block, direct } of BLOCKS) {
      const guard = policy(block)[0]!.rules[0]!.guards[0]! as Guard;
      expect(conditionsGuard(guard, () => true) !== undefined, block).toBe(direct);
    }
  });

  it('give what the general guard gives, on CREATE and DELETE', () => {
    let compared = 0;
    for (const { block } of BLOCKS) {
      const set = policy(block);
      for (const object of PODS) {
        for (const request of [{ object, operation: 'CREATE' as const }, { object: null, oldObject: object, operation: 'DELETE' as const }]) {
          const compiled = apply(set, request, { trace: false, interpret: false });
          const interpreted = apply(set, request, { trace: false, interpret: true });
          expect(differences(compiled, interpreted), JSON.stringify({ block, request })).toEqual([]);
          compared++;
        }
      }
    }
    expect(compared).toBe(36);
  });
});
