/**
 * Inputs nested far beyond any Kubernetes object end in a positioned diagnostic, never in a stack overflow
 * ("internal error: input nested too deeply"): each parser enforces its own depth limit.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POD, run, tempFiles } from './support.js';

const chain = (n: number): string => Array(n).fill('1').join(' + ');
const segments = (sep: string, n: number): string => Array(n).fill(`${sep}a`).join('');

const MAP = (expression: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: deep
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '${expression}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: deep
spec:
  policyName: deep
`;

const CASES: Record<string, { policy: string; expect: RegExp }> = {
  'a CEL chain of 20,000 additions': {
    policy: MAP(`[JSONPatch{op: "add", path: "/metadata/labels/x", value: string(${chain(20000)})}]`),
    expect: /deep\.yaml:17:\d+: error TM5001: expression recursion limit exceeded: 250/,
  },
  'a Gatekeeper location of 6,000 segments': {
    policy: `apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: deep\nspec:\n  applyTo:\n  - groups: [""]\n    kinds: [Pod]\n    versions: [v1]\n  location: "spec${segments('.', 6000)}"\n  parameters:\n    assign:\n      value: x\n`,
    expect: /deep\.yaml:10:13: error TM1007: spec\.location has 6001 segments; transmute follows at most 256/,
  },
  'an IR path of 6,000 segments': {
    policy: `apiVersion: transmute.dev/v1alpha1\nkind: Policy\nmetadata:\n  name: deep\nspec:\n  semantics: {order: sequential}\n  match: {globs: wildcard}\n  rules:\n  - name: r\n    body:\n    - set: object.metadata${segments('.', 6000)}\n      value: x\n`,
    expect: /deep\.yaml:11:\d+: error TM2006: invalid path "object\.metadata\.a[.a]*\.\.\.": the path has 6001 segments; transmute follows at most 256/,
  },
  'a Kyverno JSON patch path of 6,000 segments': {
    policy: `apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: deep\nspec:\n  background: false\n  rules:\n  - name: r\n    match:\n      any:\n      - resources:\n          kinds: [Pod]\n    mutate:\n      patchesJson6902: |-\n        - op: add\n          path: "/metadata${segments('/', 6000)}"\n          value: x\n`,
    expect: /deep\.yaml:\d+:\d+: error TM3006: the path has 6001 segments; transmute follows at most 256/,
  },
};

describe('deeply nested input', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: a positioned diagnostic, no internal error`, async () => {
      const dir = tempFiles({ 'deep.yaml': c.policy, 'pod.yaml': POD });
      const r = await run(['apply', '-p', join(dir, 'deep.yaml'), '-r', join(dir, 'pod.yaml')]);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(c.expect);
      expect([1, 2]).toContain(r.code);
    });
  }
});
