/**
 * `transmute apply` admits a resource as kube-apiserver sends it to admission: a Kyverno ClusterPolicy reads the
 * whole AdmissionRequest (kind, resource, name, dryRun) as its webhook does, as a MutatingAdmissionPolicy's CEL
 * `request` does; `transmute test` keeps the Kyverno CLI's request, which holds none of them. Found translating
 * MAP's own test of the `request` variable to a ClusterPolicy: the translation read `request.kind` and failed
 * where the MAP gave 10 replicas.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempFiles } from './support.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: request-attributes
spec:
  background: false
  rules:
  - name: stamp
    match:
      any:
      - resources:
          kinds: [apps/v1/Deployment]
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            kind: "{{ request.kind.group }}/{{ request.kind.version }}/{{ request.kind.kind }}"
            resource: "{{ request.resource.resource }}"
            name: "{{ request.name || '(none)' }}"
            dry-run: "{{ to_string(request.dryRun) }}"
`;

const deployment = (metadata: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
${metadata}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
`;

const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: request-attributes
policies: [policy.yaml]
resources: [named.yaml]
results:
- policy: request-attributes
  rule: stamp
  resources: [web]
  kind: Deployment
  result: error
`;

describe('transmute apply: the admission request a Kyverno policy reads', () => {
  const dir = tempFiles({
    'policy.yaml': POLICY,
    'named.yaml': deployment('  name: web\n  namespace: prod'),
    'generated.yaml': deployment('  generateName: web-\n  namespace: prod'),
    'kyverno-test.yaml': TEST,
  });

  it("holds the kind, resource, name and dryRun kube-apiserver gives a webhook", async () => {
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'named.yaml'), '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).metadata.annotations).toEqual({ kind: 'apps/v1/Deployment', resource: 'deployments', name: 'web', 'dry-run': 'false' });
  });

  it('leaves out the name of an object that has only a generateName (the field is omitempty)', async () => {
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'generated.yaml'), '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).metadata.annotations.name).toBe('(none)');
  });

  it('transmute test keeps the Kyverno CLI request, which has no kind: the rule errors as kyverno test reports it', async () => {
    const r = await run(['test', dir]);
    expect(r.stdout).toContain('1 passed, 0 failed');
  });
});
