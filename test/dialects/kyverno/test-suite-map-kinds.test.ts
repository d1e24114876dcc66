/**
 * kyverno test types a MutatingAdmissionPolicy's object with a schema deduced from the object itself
 * (pkg/admissionpolicy/mutate.go: managedfields.NewDeducedTypeConverter()): a row of a custom kind whose CRD
 * the suite does not give runs, where kube-apiserver's dispatcher (transmute apply) fails without the CRD.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestSuite, runTestSuite } from '../../../src/dialects/kyverno/test-suite/index.js';
import { apply } from '../../../src/interpreter/index.js';
import { parsePolicyDocs } from '../../../src/pipeline.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { suiteDir } from './test-suite-support.js';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: label-gadgets
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [gadgets]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"labelled": "yes"}}}'
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/size", value: "small"}]'
`;
const GADGET = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop}\nspec: {tier: gold}\n';
const PATCHED = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop, labels: {labelled: "yes"}}\nspec: {tier: gold, size: small}\n';
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {isMutatingAdmissionPolicy: true, policy: label-gadgets, kind: Gadget, resources: [g], result: pass, patchedResources: patched.yaml}
`;

describe('kyverno test: a MutatingAdmissionPolicy on a custom kind without its CRD', () => {
  it('runs with the deduced schema, as the Kyverno CLI types it', () => {
    const dir = suiteDir({ 'policy.yaml': POLICY, 'resources.yaml': GADGET, 'patched.yaml': PATCHED, 'kyverno-test.yaml': TEST });
    const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
    if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
    const rows = runTestSuite(suite.value, 'strict', { asKyvernoTest: true });
    expect(rows.map((r) => [r.status, r.reason])).toEqual([['passed', expect.any(String)]]);
  });

  it('transmute apply keeps kube-apiserver: without the CRD every mutation fails', () => {
    const docs = loadYamlText('p.yaml', `${POLICY}---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: label-gadgets}\n`);
    if (!docs.ok) throw new Error('policy does not load');
    const gadget = loadYamlText('g.yaml', GADGET);
    if (!gadget.ok) throw new Error('gadget does not load');
    const r = apply(parsePolicyDocs(docs.value).policies, { object: gadget.value[0]!.value as never, operation: 'CREATE' });
    expect(r.allowed).toBe(false);
    expect(r.diagnostics.map((d) => d.message).join('\n')).toMatch(/Resource kind example\.com\/v1, Kind=Gadget not found/);
  });
});
