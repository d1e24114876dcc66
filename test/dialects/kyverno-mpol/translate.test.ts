import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/golden/run.js';
import { parsePolicyDocs, translate, translateDocuments } from '../../../src/pipeline.js';
import { docs, podPolicy } from './support.js';

describe('kyverno-mpol: translation', () => {
  it('refuses to pass MutatingPolicy CEL through as MAP CEL (Kyverno environment), at the policy', () => {
    const text = podPolicy('p', `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"name": request.object.metadata.name}}]'`);
    const parsed = parseText('mpol.yaml', text);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const g = translate(parsed.policies, 'map', 'error');
    expect(g.diagnostics.map((d) => d.code)).toContain('TM4001');
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.message).toContain("Kyverno's request carries it");
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.unsupported).toBe('cannot');
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.span?.file).toBe('mpol.yaml');
    expect(g.text).toBe('');
  });

  it('carries MutatingPolicy CEL that means the same in kube-apiserver over to MAP', () => {
    const text = podPolicy('p', `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"name": object.metadata.name}}]'`);
    const parsed = parseText('mpol.yaml', text);
    const g = translate(parsed.policies, 'map', 'error');
    expect(g.diagnostics).toEqual([]);
    expect(g.text).toContain('value: {"name": object.metadata.name}');
  });

  it('writes a MutatingPolicy that mutates existing resources back whole, once, and refuses it for MAP (cannot)', () => {
    for (const admission of [false, true]) {
      const text = `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata: {name: scan, labels: {team: a}, resourceVersion: "7"}
spec:
  evaluation:
    admission: {enabled: ${admission}}
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: Object.metadata.labels{scanned: "yes"}}}'
status: {conditionStatus: {ready: true}}`;
      const all = docs(text);
      const parsed = parsePolicyDocs(all);
      const mpol = translateDocuments(all, parsed.policies, 'kyverno-mpol', 'error');
      expect(mpol.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(mpol.documents).toEqual([
        {
          apiVersion: 'policies.kyverno.io/v1',
          kind: 'MutatingPolicy',
          metadata: { name: 'scan', labels: { team: 'a' } },
          spec: (all[0]!.value as { spec: unknown }).spec,
        },
      ]);
      const map = translateDocuments(all, parsed.policies, 'map', 'error');
      const refusal = map.diagnostics.find((d) => d.code === 'TM4001' && d.message.includes('mutates existing resources'));
      expect(refusal?.unsupported).toBe('cannot');
      expect(refusal?.span?.line).toBe(7);
    }
  });
});
