/**
 * MutatingAdmissionPolicy fidelity as kube-apiserver admits (issue 15, items 5–8): the request namespace on
 * the object, paramKind from a CustomResourceDefinition, configuration errors in the dispatcher's words, and
 * subset expectations in MAP conformance manifests. Fixtures written here from the upstream behaviour.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../../src/interpreter/index.js';
import { runConformance } from '../../../src/conformance/run.js';
import { kindSchemasFromCrds } from '../../../src/merge/ssa/openapi/load.js';
import { createRuntime } from '../../../src/runtime/create.js';
import { withRequestNamespace } from '../../../src/k8s/request.js';
import { mapDialect } from '../../../src/dialects/map/index.js';
import { printPolicies } from '../../../src/ir/print.js';
import { parseIrText } from '../../../src/ir/parse-text.js';
import { irDialect } from '../../../src/dialects/ir/index.js';
import { parseText } from '../../../src/golden/run.js';
import { run as runCli, tempFiles } from '../../cli/support.js';
import { docs, parse, policy, PODS, run } from './support.js';

const NAMESPACE_LABEL = policy(
  'ns-label',
  `${PODS}
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"ns": object.metadata.namespace}}}'`,
);

const UNNAMESPACED_POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

describe('item 5: the request namespace is on the object (create.go EnsureObjectNamespaceMatchesRequestNamespace)', () => {
  it('a namespaced create reads object.metadata.namespace from the request', () => {
    const r = run(NAMESPACE_LABEL, UNNAMESPACED_POD, { namespace: 'team-a' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.allowed).toBe(true);
    expect(r.object).toMatchObject({ metadata: { namespace: 'team-a', labels: { ns: 'team-a' } } });
    // The namespace was there before admission: the webhook-style patch does not add it.
    expect(r.patch.map((p) => p.path)).not.toContain('/metadata/namespace');
  });

  it('an update places it on the stored object too; other requests are left as they are', () => {
    const r = withRequestNamespace({ object: UNNAMESPACED_POD, oldObject: UNNAMESPACED_POD, operation: 'UPDATE', namespace: 'ns' });
    expect(r.object).toMatchObject({ metadata: { namespace: 'ns' } });
    expect(r.oldObject).toMatchObject({ metadata: { namespace: 'ns' } });
    const derived = { object: UNNAMESPACED_POD, operation: 'CREATE' as const };
    expect(withRequestNamespace(derived)).toBe(derived);
    const clusterScoped = { object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }, operation: 'CREATE' as const, namespace: 'x' };
    expect(withRequestNamespace(clusterScoped)).toBe(clusterScoped);
    const own = { object: { ...UNNAMESPACED_POD, metadata: { name: 'p', namespace: 'mine' } }, operation: 'CREATE' as const, namespace: 'mine' };
    expect(withRequestNamespace(own)).toBe(own);
  });

  it('a Kyverno policy sees it as well (it happens before any admission plugin)', () => {
    const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: copy-ns
spec:
  rules:
  - name: copy
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            ns: "{{ request.object.metadata.namespace }}"
`;
    const parsed = parseText('kyverno.yaml', text);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const r = apply(parsed.policies, { object: UNNAMESPACED_POD, operation: 'CREATE', namespace: 'team-b' });
    expect(r.object).toMatchObject({ metadata: { namespace: 'team-b', labels: { ns: 'team-b' } } });
  });
});

const PARAM_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: team-label
spec:
  paramKind:
    apiVersion: example.com/v1
    kind: LabelConfig
${PODS.replace(/^/gm, '  ')}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": params == null ? "none" : params.team}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: team-label-binding
spec:
  policyName: team-label
`;

const CRD = (scope: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: labelconfigs.example.com
spec:
  group: example.com
  names: {kind: LabelConfig, plural: labelconfigs, singular: labelconfig}
  scope: ${scope}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          team: {type: string}
`;

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

describe('items 6 and 7: paramKind from a CRD; configuration errors in the dispatcher words', () => {
  it('without the CRD, the request is denied with the apiserver message, no CEL prefix, as a fail op', () => {
    const parsed = parse(PARAM_POLICY);
    expect(printPolicies(parsed.policies)).toContain(`fail "failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=LabelConfig'"`);
    const r = apply(parsed.policies, { object: POD, operation: 'CREATE' });
    expect(r.allowed).toBe(false);
    const messages = r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
    expect(messages).toEqual([
      "policy 'team-label' with binding 'team-label-binding' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=LabelConfig'",
    ]);
  });

  it('the fail op round-trips through the IR text and the IR YAML dialect', () => {
    const parsed = parse(PARAM_POLICY).policies;
    const text = printPolicies(parsed);
    const back = parseIrText('x.ir.txt', text);
    if (!back.ok) throw new Error(back.diagnostics.map((d) => d.message).join('\n'));
    expect(printPolicies(back.value)).toBe(text);
    const yaml = irDialect.generate(parsed);
    const reread = irDialect.parse(docs(yaml.text, 'ir.yaml'));
    expect(reread.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(printPolicies(reread.policies)).toBe(text);
  });

  it('a false matchCondition does not hide the configuration error (it is raised before the conditions)', () => {
    const text = PARAM_POLICY.replace('  mutations:', "  matchConditions:\n  - name: never\n    expression: 'false'\n  mutations:");
    const r = apply(parse(text).policies, { object: POD, operation: 'CREATE' });
    expect(r.allowed).toBe(false);
  });

  it('a CRD among the input documents serves the kind: no paramRef runs once with params null', () => {
    const r = run(PARAM_POLICY, POD, {}, CRD('Namespaced'));
    expect(r.allowed).toBe(true);
    expect(r.object).toMatchObject({ metadata: { labels: { team: 'none' } } });
  });

  it('the runtime custom kinds (--crd) serve it, with the CRD scope', () => {
    const kinds = kindSchemasFromCrds(docs(CRD('Cluster'), 'crd.yaml'));
    if (!kinds.ok) throw new Error('CRD not read');
    const runtime = createRuntime({ schemas: { kinds: kinds.value } });
    const all = docs(PARAM_POLICY.replace('  policyName: team-label\n', '  policyName: team-label\n  paramRef:\n    name: cfg\n    namespace: default\n')).filter((d) => mapDialect.recognizes(d));
    const parsed = mapDialect.parse(all, { runtime });
    const r = apply(parsed.policies, { object: POD, operation: 'CREATE' }, { runtime });
    expect(r.diagnostics.map((d) => d.message).join('\n')).toContain('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  });

  it('transmute apply resolves it with --crd or a CRD among the policies', async () => {
    const dir = tempFiles({ 'policy.yaml': PARAM_POLICY, 'crd.yaml': CRD('Namespaced'), 'pod.yaml': JSON.stringify(POD) });
    const withFlag = await runCli(['apply', '-p', `${dir}/policy.yaml`, '--crd', `${dir}/crd.yaml`, '-r', `${dir}/pod.yaml`]);
    expect(withFlag.stderr).toBe('');
    expect(withFlag.code).toBe(0);
    expect(withFlag.stdout).toContain('team: none');
    const amongPolicies = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-p', `${dir}/crd.yaml`, '-r', `${dir}/pod.yaml`]);
    expect(amongPolicies.stderr).toBe('');
    expect(amongPolicies.stdout).toContain('team: none');
  });

  it('translation refuses a configuration error as a construct no target can state', async () => {
    const dir = tempFiles({ 'policy.yaml': PARAM_POLICY });
    const r = await runCli(['translate', '-p', `${dir}/policy.yaml`, '--to', 'kyverno-mpol']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot express the configuration error');
  });
});

describe('item 8: expect.objectSubset in MAP conformance manifests (chainsaw assert semantics)', () => {
  const manifest = (expect: object) =>
    JSON.stringify({
      id: 'local/subset',
      request: { operation: 'CREATE', namespace: 'default', name: 'p' },
      environment: { typedObject: true },
      expect,
      files: { policy: 'policy.yaml', object: 'object.yaml' },
    });
  const objectYaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n';

  it('passes when the expected document is a subset of the result, fails when it is not', async () => {
    const good = tempFiles({
      'case/manifest.json': manifest({ outcome: 'mutated', objectSubset: 'subset.yaml' }),
      'case/policy.yaml': NAMESPACE_LABEL,
      'case/object.yaml': objectYaml,
      'case/subset.yaml': 'metadata:\n  labels:\n    ns: default\n',
    });
    const ok = await runConformance([good]);
    expect(ok.outcomes.map((o) => [o.status, o.reason])).toEqual([['passed', undefined]]);
    const bad = tempFiles({
      'case/manifest.json': manifest({ outcome: 'mutated', objectSubset: 'subset.yaml' }),
      'case/policy.yaml': NAMESPACE_LABEL,
      'case/object.yaml': objectYaml,
      'case/subset.yaml': 'metadata:\n  labels:\n    ns: other\n',
    });
    const failed = await runConformance([bad]);
    expect(failed.outcomes[0]?.status).toBe('failed');
  });
});
