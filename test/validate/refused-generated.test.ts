/** What transmute generates is admitted whole: the CRD or built-in structure, the webhook, and what the target's engine checks while reading it. */
import { expect, it } from 'vitest';
import { dialectByName } from '../../src/dialects/registry.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { refusedGenerated } from '../../src/validate/generated.js';

const MAP = (conditionName: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConditions:
  - name: ${JSON.stringify(conditionName)}
    expression: "true"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: p-binding
spec:
  policyName: p
`;

function refused(text: string): string[] {
  const docs = loadYamlText('<generated map>', text);
  if (!docs.ok) throw new Error('does not load');
  return refusedGenerated(dialectByName('map')!, docs.value).map((d) => `${d.code} ${d.message}`);
}

it("refuses a generated MAP that kube-apiserver's own validation refuses (checked while the MAP is read)", () => {
  expect(refused(MAP('ok-name'))).toEqual([]);
  const out = refused(MAP('not a name!'));
  expect(out).toHaveLength(1);
  expect(out[0]).toMatch(/^TM4006 the generated MutatingAdmissionPolicy "p" would be refused by the cluster \(TM2002\): spec\.matchConditions\[0\]\.name: Invalid value: "not a name!"/);
});
