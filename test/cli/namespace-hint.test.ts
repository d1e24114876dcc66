/**
 * `apply` without the Namespace a namespace selector needs: the denial keeps kube-apiserver's (or Gatekeeper's)
 * message and gets a note saying where the Namespace is given offline; given, the policy matches.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAMESPACE_HINT } from '../../src/cli/namespace-hint.js';
import { run, tempFiles } from './support.js';

const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"env": "test"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec:
  policyName: label
  matchResources:
    namespaceSelector:
      matchLabels: {environment: test}
`;

const GATEKEEPER = `apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata: {name: label}
spec:
  match:
    scope: Namespaced
    namespaceSelector:
      matchLabels: {environment: test}
  location: metadata.labels.env
  parameters:
    assign: {value: test}
`;

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec:
  containers:
  - {name: app, image: nginx}
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels: {environment: test}
`;

describe('apply: a namespace selector without the Namespace', () => {
  for (const [dialect, policy, message] of [
    ['MutatingAdmissionPolicy', MAP, 'namespace "team" not found for namespaceSelector'],
    ['Gatekeeper', GATEKEEPER, 'namespace selector for namespace-scoped object but missing Namespace'],
  ] as const) {
    it(`${dialect}: the upstream denial, with a note naming --namespace-object; matched once given`, async () => {
      const dir = tempFiles({ 'policy.yaml': policy, 'pod.yaml': POD, 'ns.yaml': NAMESPACE });
      const args = ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '-o', 'json'];
      const missing = await run(args);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(message);
      expect(missing.stderr).toContain(`  note: ${NAMESPACE_HINT}`);

      const given = await run([...args, '--namespace-object', join(dir, 'ns.yaml')]);
      expect(given.stderr).toBe('');
      expect(given.code).toBe(0);
      expect(JSON.parse(given.stdout).metadata.labels).toEqual({ env: 'test' });
    });
  }

  it('the note is in --diagnostics json as related information', async () => {
    const dir = tempFiles({ 'policy.yaml': MAP, 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--diagnostics', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(JSON.stringify(NAMESPACE_HINT));
  });

  it('another denial gets no such note', async () => {
    const dir = tempFiles({ 'policy.yaml': MAP.replace('"env": "test"', '"env": 1'), 'pod.yaml': POD, 'ns.yaml': NAMESPACE });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--namespace-object', join(dir, 'ns.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain(NAMESPACE_HINT);
  });
});
