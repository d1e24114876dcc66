/**
 * `transmute apply` with what kyverno apply users give (issue 14.4): a Values file, --set, PolicyExceptions,
 * and Namespace objects among the resources for namespace selectors.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { run } from '../cli/support.js';
import { tempDir } from '../support/temp.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: owner}
spec:
  rules:
  - name: owner
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: settings
      configMap: {name: settings, namespace: default}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            owner: "{{ settings.data.config | parse_yaml(@).name }}"
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: app, image: nginx}]}
`;
const VALUES = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
- name: owner
  rules:
  - name: owner
    values:
      settings.data.config: "name: alice"
`;

describe('transmute apply with Kyverno CLI inputs', () => {
  it('-f values.yaml resolves a configMap context entry offline; --set gives global values', async () => {
    const dir = tempDir('kyapply-values', { 'policy.yaml': POLICY, 'pod.yaml': POD, 'values.yaml': VALUES });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '-f', join(dir, 'values.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('owner: alice');
    const set = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--set', 'settings.data.config=name: bob']);
    expect(set.stdout).toContain('owner: bob');
    const wrong = tempDir('kyapply-not-values', { 'v.yaml': 'apiVersion: v1\nkind: ConfigMap\n' });
    const bad = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '--values-file', join(wrong, 'v.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a Kyverno Values document/);
  });

  it('-e applies a kyverno.io PolicyException; a Namespace among -r feeds namespace selectors', async () => {
    const labels = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: tier}
spec:
  rules:
  - name: tier
    match:
      any:
      - resources:
          kinds: [Pod]
          namespaceSelector: {matchLabels: {tier: gold}}
    mutate:
      patchStrategicMerge: {metadata: {labels: {tier: gold}}}
`;
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: not-web, namespace: gold}
spec:
  exceptions: [{policyName: tier, ruleNames: [tier]}]
  match: {any: [{resources: {kinds: [Pod], names: [web]}}]}
`;
    const resources = `apiVersion: v1
kind: Namespace
metadata: {name: gold, labels: {tier: gold}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: gold}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: gold}
spec: {containers: [{name: app, image: nginx}]}
`;
    const dir = tempDir('kyapply-exception', { 'policy.yaml': labels, 'exception.yaml': exception, 'resources.yaml': resources });
    type Obj = { metadata: { name: string; labels?: Record<string, string> } };
    const objects = (yaml: string): Obj[] => parseAllDocuments(yaml).map((d) => d.toJS() as Obj);
    const without = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')]);
    expect(objects(without.stdout).map((o) => [o.metadata.name, o.metadata.labels?.tier ?? null])).toEqual([
      ['gold', 'gold'],
      ['web', 'gold'],
      ['api', 'gold'],
    ]);
    const withException = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '-e', join(dir, 'exception.yaml')]);
    expect(objects(withException.stdout).map((o) => [o.metadata.name, o.metadata.labels?.tier ?? null])).toEqual([
      ['gold', 'gold'],
      ['web', null],
      ['api', 'gold'],
    ]);
  });
});
