import { describe, expect, it } from 'vitest';
import { renderDiagnosticLine } from '../../../src/diagnostics/render.js';
import { dialectByName, dialectFor } from '../../../src/dialects/registry.js';
import { kyvernoMpolDialect } from '../../../src/dialects/kyverno-mpol/index.js';
import { docs, parse, podPolicy, run } from './support.js';

const LABEL = `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'`;

describe('kyverno-mpol: recognition', () => {
  it('is registered and reads MutatingPolicy, NamespacedMutatingPolicy and CEL PolicyException', () => {
    expect(dialectByName('kyverno-mpol')).toBe(kyvernoMpolDialect);
    const [p, n, e, c, m] = docs(`apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
---
apiVersion: policies.kyverno.io/v1alpha1
kind: NamespacedMutatingPolicy
---
apiVersion: policies.kyverno.io/v1
kind: PolicyException
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
`);
    expect([p, n, e].map((d) => dialectFor(d!)?.name)).toEqual(['kyverno-mpol', 'kyverno-mpol', 'kyverno-mpol']);
    expect(kyvernoMpolDialect.recognizes(c!)).toBe(false);
    expect(kyvernoMpolDialect.recognizes(m!)).toBe(false);
  });

  it('needs no binding: one policy yields one IR policy, plus autogen variants for Pod controllers', () => {
    const r = parse(podPolicy('add-label', LABEL));
    expect(r.diagnostics).toEqual([]);
    // defaults (deployments, daemonsets, jobs, replicasets, statefulsets) and cronjobs
    expect(r.policies.map((p) => p.rules[0]!.name)).toEqual(['mutations', 'mutations (autogen cronjobs)', 'mutations (autogen defaults)']);
    expect(r.policies.every((p) => p.id === 'add-label' && p.semantics.order === 'ordered')).toBe(true);
  });

  it('yields no admission policy when evaluation.admission is disabled', () => {
    const r = parse(podPolicy('existing', `evaluation:\n  admission:\n    enabled: false\n  mutateExisting:\n    enabled: true\n${LABEL}`));
    expect(r.diagnostics).toEqual([]);
    expect(r.policies).toEqual([]);
  });
});

describe('kyverno-mpol: validation errors carry file:line:col', () => {
  it('reports a missing patchType and an unknown operation where they are', () => {
    const r = parse(`apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: bad
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [PATCH]
      resources: [pods]
  mutations:
  - applyConfiguration:
      expression: Object{}
`);
    expect(r.policies).toEqual([]);
    const lines = r.diagnostics.map((d) => renderDiagnosticLine(d));
    expect(lines).toContainEqual(expect.stringMatching(/^mpol\.yaml:10:20: error TM2002: .*operations\[0\]: Unsupported value: "PATCH"/));
    expect(lines).toContainEqual(expect.stringMatching(/^mpol\.yaml:13:5: error TM2005: spec\.mutations\[0\]\.patchType: Required value/));
    expect(r.diagnostics.every((d) => d.dialect === 'kyverno-mpol')).toBe(true);
  });

  it('rejects MAP-only variables (no params in a MutatingPolicy) at the offending character', () => {
    const r = parse(podPolicy('p', `matchConditions:
- name: uses-params
  expression: params.x == 1
${LABEL}`));
    expect(r.policies).toEqual([]);
    const d = r.diagnostics.find((x) => x.code === 'TM5002');
    expect(d && renderDiagnosticLine(d)).toMatch(/^mpol\.yaml:14:17: error TM5002: .*params/);
  });

  it('checks the result type of a mutation and forward variable references', () => {
    const r = parse(podPolicy('p', `variables:
- name: a
  expression: variables.b
- name: b
  expression: "1"
mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '"not a patch list"'`));
    const codes = r.diagnostics.map((d) => `${d.code} ${d.message}`);
    expect(codes).toContainEqual(expect.stringContaining("undefined field 'b'"));
    expect(codes).toContainEqual(expect.stringContaining('JSONPatch'));
  });
});

describe('kyverno-mpol: generation', () => {
  it('writes a policy read from MutatingPolicy back with its autogen variants folded into its autogen setting', () => {
    const parsed = parse(podPolicy('add-label', LABEL));
    const g = kyvernoMpolDialect.generate(parsed.policies, { unsupported: 'error' });
    expect(g.diagnostics).toEqual([]);
    expect(g.documents).toHaveLength(1);
    const spec = (g.documents[0] as { spec: { autogen?: unknown; mutations: unknown[] } }).spec;
    expect(spec.autogen).toEqual({ podControllers: { controllers: ['cronjobs', 'daemonsets', 'deployments', 'jobs', 'replicasets', 'statefulsets'] } });
    const again = parse(g.text);
    expect(again.diagnostics).toEqual([]);
    expect(again.policies.map((p) => p.rules[0]!.name)).toEqual(parsed.policies.map((p) => p.rules[0]!.name));
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } };
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { metadata: {} } } };
    for (const object of [pod, deployment]) expect(run(g.text, object).object).toEqual(run(podPolicy('add-label', LABEL), object).object);
  });
});
