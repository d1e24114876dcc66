/** matchConditions as kube-apiserver evaluates them (matchconditions/matcher.go): any false skips, even past a failure. */
import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/golden/run.js';
import { apply } from '../../../src/interpreter/index.js';

function policy(conditions: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
${conditions}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"x": "1"}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p}
`;
}

const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
const FAILS = '  - {name: fails, expression: "object.metadata.labels.missing == \'a\'"}';

describe('MAP matchConditions', () => {
  it('skips the policy when a later condition is false, though an earlier one fails', () => {
    const parsed = parseText('p.yaml', policy(`${FAILS}\n  - {name: never, expression: "false"}`));
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(parsed.policies).toHaveLength(1);
    const r = apply(parsed.policies, { object: CM, operation: 'CREATE' });
    expect(r.allowed).toBe(true);
    expect(r.object).toEqual(CM);
  });

  it('fails the request when a condition fails and none is false', () => {
    const parsed = parseText('p.yaml', policy(`${FAILS}\n  - {name: always, expression: "true"}`));
    expect(parsed.policies).toHaveLength(1);
    const r = apply(parsed.policies, { object: CM, operation: 'CREATE' });
    expect(r.allowed).toBe(false);
  });
});
