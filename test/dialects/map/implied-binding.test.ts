import { describe, expect, it } from 'vitest';
import { impliedBindingDocs, impliedBindingValues } from '../../../src/dialects/map/implied-binding.js';
import { docs } from './support.js';

const POLICY = (name: string) => `apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec: {mutations: []}
`;

describe('bindings the Kyverno CLI implies', () => {
  it('binds each policy no binding names, without restriction, and leaves bound ones alone', () => {
    const input = docs(`${POLICY('a')}---\n${POLICY('b')}---
apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b-only-prod}
spec: {policyName: b}
`);
    expect(impliedBindingValues(input)).toEqual([
      { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'a-binding' }, spec: { policyName: 'a' } },
    ]);
    const made = impliedBindingDocs(input, 'suite.yaml (implied)');
    expect(made).toHaveLength(1);
    expect(made[0]!.file).toBe('suite.yaml (implied)');
  });
});
