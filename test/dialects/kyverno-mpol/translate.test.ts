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

describe('MAP → MutatingPolicy: JSONPatch values the API server would not decode', () => {
  const map = (value: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: d1}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [deployments]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: ${value}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: d1-binding}
spec: {policyName: d1}`;

  it('refuses (cannot) an Object initializer written with a field the built-in type does not declare', () => {
    const parsed = parseText('map.yaml', map('Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}'));
    const g = translate(parsed.policies, 'kyverno-mpol', 'error');
    const d = g.diagnostics.find((x) => x.code === 'TM4001');
    expect(d?.unsupported).toBe('cannot');
    expect(d?.message).toContain('Deployment: spec.template.spec.containers.ports.containerPortZ is not declared in the schema');
    expect(d?.span?.file).toBe('map.yaml');
    expect(g.text).toBe('');
  });

  it('carries declared fields, and initializers that are compared rather than written', () => {
    for (const value of [
      'Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}]}',
      'Object.spec.template.spec.containers{name: string(Object{field: "x"} == Object{field: "x"})}',
      'true ? Object.spec.template.spec.containers{name: "x"} : Object.spec.template.spec.containers{name: "y"}',
    ]) {
      const parsed = parseText('map.yaml', map(value));
      const g = translate(parsed.policies, 'kyverno-mpol', 'error');
      expect(g.diagnostics.filter((x) => x.severity === 'error'), value).toEqual([]);
    }
    const parsed = parseText('map.yaml', map('true ? Object.spec.template.spec.containers{name: "x"} : Object.spec.template.spec.containers{nameZ: "y"}'));
    expect(translate(parsed.policies, 'kyverno-mpol', 'error').diagnostics.find((x) => x.code === 'TM4001')?.message).toContain('containers.nameZ is not declared');
  });

  it('keeps the MAP → MAP translation as it is (the same error in the same engine)', () => {
    const parsed = parseText('map.yaml', map('Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}'));
    expect(translate(parsed.policies, 'map', 'error').diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  });
});
