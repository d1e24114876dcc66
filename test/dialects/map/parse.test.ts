import { describe, expect, it } from 'vitest';
import { printPolicies } from '../../../src/ir/print.js';
import { mapDialect } from '../../../src/dialects/map/index.js';
import { docs, parse, policy, PODS } from './support.js';

const label = `mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'`;

describe('MAP dialect: recognition and parsing', () => {
  it('recognizes policies and bindings of every served version, nothing else', () => {
    for (const v of ['v1alpha1', 'v1beta1', 'v1']) {
      expect(mapDialect.recognizes(docs(`apiVersion: admissionregistration.k8s.io/${v}\nkind: MutatingAdmissionPolicy\n`)[0]!)).toBe(true);
      expect(mapDialect.recognizes(docs(`apiVersion: admissionregistration.k8s.io/${v}\nkind: MutatingAdmissionPolicyBinding\n`)[0]!)).toBe(true);
    }
    expect(mapDialect.recognizes(docs('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n')[0]!)).toBe(false);
    expect(mapDialect.recognizes(docs('apiVersion: v1\nkind: ConfigMap\n')[0]!)).toBe(false);
  });

  it('lowers one invocation per binding with API defaults (failurePolicy Fail, reinvocation Never)', () => {
    const r = parse(policy('p', `${PODS}\n${label}`));
    expect(r.diagnostics).toEqual([]);
    expect(r.policies.map((p) => p.id)).toEqual(['p/p-binding']);
    const text = printPolicies(r.policies);
    expect(text).toContain('semantics ordered reinvocation=never failurePolicy=fail');
    expect(text).toContain('merge ssa object = cel');
    expect(text).toContain('"globs": "exact"');
  });

  it('a policy without a binding yields no IR policy; a binding to an unknown policy is ignored', () => {
    const unbound = parse(policy('p', `${PODS}\n${label}`).replace(/policyName: p$/m, 'policyName: other'));
    expect(unbound.policies).toEqual([]);
    expect(unbound.diagnostics).toEqual([]);
  });

  it('several bindings run the policy once each', () => {
    const text = policy('p', `${PODS}\n${label}`) + `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: second}
spec: {policyName: p}
`;
    expect(parse(text).policies.map((p) => p.id)).toEqual(['p/p-binding', 'p/second']);
  });

  it('validates the spec with the API server words and YAML spans', () => {
    const r = parse(policy('p', `${PODS}\nfailurePolicy: Sometimes\nmutations: []`));
    const messages = r.diagnostics.map((d) => d.message);
    expect(messages).toContain('spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"');
    expect(messages).toContain('spec.mutations: Required value: mutations must contain at least one item');
    const fp = r.diagnostics.find((d) => d.message.startsWith('spec.failurePolicy'))!;
    expect(fp.span?.line).toBe(12);
    expect(r.policies).toEqual([]);
  });

  it('rejects DELETE in resource rules and a patchType without its expression', () => {
    const r = parse(
      policy('p', `matchConstraints:\n  resourceRules:\n  - {apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods]}\nmutations:\n- patchType: JSONPatch`),
    );
    const messages = r.diagnostics.map((d) => d.message);
    expect(messages.some((m) => m.includes('operations[0]: Unsupported value: "DELETE"'))).toBe(true);
    expect(messages.some((m) => m.includes('spec.mutations[0].jsonPatch: Required value'))).toBe(true);
  });

  it('maps CEL compile errors to the YAML line and column of the offending character', () => {
    const text = policy('p', `${PODS}\nmutations:\n- patchType: ApplyConfiguration\n  applyConfiguration:\n    expression: '"not an object"'`);
    const r = parse(text);
    const d = r.diagnostics.find((x) => x.code === 'TM5002')!;
    expect(d.message).toBe('must evaluate to Object but got string');
    // line 17 is `    expression: '"not an object"'`; the expression starts after the quote.
    const line = text.split('\n')[d.span!.line - 1]!;
    expect(line).toContain("expression: '\"not an object\"'");
    expect(line[d.span!.col - 1]).toBe('"');
  });

  it('params are undeclared without a paramKind; variables only see earlier variables', () => {
    const withParams = parse(
      policy('p', `${PODS}\nmutations:\n- patchType: JSONPatch\n  jsonPatch:\n    expression: '[JSONPatch{op: "add", path: "/x", value: params.a}]'`),
    );
    expect(withParams.diagnostics.map((d) => d.message)).toContain("undeclared reference to 'params' (in container '')");
    const forward = parse(policy('p', `${PODS}\nvariables:\n- {name: a, expression: 'variables.b'}\n- {name: b, expression: '1'}\n${label}`));
    expect(forward.diagnostics.map((d) => d.message)).toContain("undefined field 'b'");
  });
});
