/**
 * Kyverno MutatingPolicy fidelity (issue 15, items 9–12): JSONPatch on the unstructured object in Kyverno's
 * webhook, Kyverno's own validation (matchCondition names), evaluation.mutateExisting in `apply`, and image
 * metadata offline for the image CEL library. Fixtures written here from the upstream behaviour.
 */
import { describe, expect, it } from 'vitest';
import { run as runCli, tempFiles } from '../../cli/support.js';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: default
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
      - name: c
        image: nginx
`;

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
spec:
  containers:
  - name: c
    image: nginx:1.21
`;

describe('item 9: a MutatingPolicy JSONPatch runs on the unstructured object (mpol/compiler/json.go)', () => {
  const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: no-automount
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["", apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods, deployments]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/spec/automountServiceAccountToken", value: false},
         JSONPatch{op: "add", path: "/metadata/labels", value: {"patched": "yes"}}]
`;

  it('a field the kind does not declare is no strict-decoding error; the API server drops it', async () => {
    const dir = tempFiles({ 'policy.yaml': policy, 'deploy.yaml': DEPLOYMENT, 'pod.yaml': POD });
    const r = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/deploy.yaml`, '-r', `${dir}/pod.yaml`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [deployment, pod] = (JSON.parse(r.stdout) as { items: Record<string, Record<string, unknown>>[] }).items;
    expect(deployment!.metadata).toMatchObject({ labels: { patched: 'yes' } });
    expect(deployment!.spec).not.toHaveProperty('automountServiceAccountToken');
    expect(pod!.spec).toMatchObject({ automountServiceAccountToken: false });
  });

  it("a failing patch carries Kyverno's prefix, not kube-apiserver's", async () => {
    const failing = policy.replace(/\[JSONPatch[\s\S]*\]\n/, '[JSONPatch{op: "replace", path: "/spec/missing/deeper", value: 1}]\n');
    const dir = tempFiles({ 'policy.yaml': failing, 'pod.yaml': POD });
    const r = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/pod.yaml`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('JSON Patch: ');
    expect(r.stderr).not.toContain('JSONPath: ');
  });
});

describe("item 10: Kyverno's validation, not kube-apiserver's", () => {
  const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: add-label
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  matchConditions:
  - name: is not kube system
    expression: object.metadata.?namespace.orValue('') != 'kube-system'
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'
`;

  it('a matchCondition name with spaces is accepted, and written as a qualified name for a MAP', async () => {
    const dir = tempFiles({ 'policy.yaml': policy, 'pod.yaml': POD });
    const applied = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/pod.yaml`]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('a: b');
    const translated = await runCli(['translate', '-p', `${dir}/policy.yaml`, '--to', 'map']);
    expect(translated.stderr).toBe('');
    expect(translated.code).toBe(0);
    expect(translated.stdout).toContain('name: is-not-kube-system');
  });
});

describe('item 11: evaluation.mutateExisting in apply --target-resource', () => {
  const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-configmaps
spec:
  evaluation:
    mutateExisting:
      enabled: true
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
  targetMatchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [configmaps]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"mutated": "true"}}}'
`;
  const target = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: default\ndata:\n  k: v\n';

  it('the targets a trigger reaches are mutated and printed after the resources', async () => {
    const dir = tempFiles({ 'policy.yaml': policy, 'deploy.yaml': DEPLOYMENT, 'target.yaml': target });
    const r = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/deploy.yaml`, '--target-resource', `${dir}/target.yaml`, '-o', 'patch']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { resource: { kind: string }; patch: { op: string; path: string; value?: unknown }[] }[];
    const cm = out.find((o) => o.resource.kind === 'ConfigMap');
    expect(cm?.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { mutated: 'true' } }]);
  });
});

describe('item 12: --image-data serves the image CEL library offline', () => {
  const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: arch-label
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  variables:
  - name: arch
    expression: image.GetMetadata(object.spec.containers[0].image).config.architecture
  - name: digest
    expression: image.GetMetadata(object.spec.containers[0].image).resolvedImage
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"arch": variables.arch}, annotations: {"resolved": variables.digest}}}'
`;
  const digest = `sha256:${'a'.repeat(64)}`;

  it('reads the metadata by reference (normalized), and names the image when it is missing', async () => {
    const dir = tempFiles({
      'policy.yaml': policy,
      'pod.yaml': POD,
      'images.yaml': `docker.io/library/nginx:1.21:\n  digest: "${digest}"\n  config:\n    architecture: arm64\n`,
      'context.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Context\nmetadata:\n  name: c\nspec:\n  images:\n  - image: nginx:1.21\n    config:\n      architecture: amd64\n',
    });
    const withData = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/pod.yaml`, '--image-data', `${dir}/images.yaml`]);
    expect(withData.stderr).toBe('');
    expect(withData.stdout).toContain('arch: arm64');
    expect(withData.stdout).toContain(`resolved: index.docker.io/library/nginx@${digest}`);
    const fromContext = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/pod.yaml`, '--image-data', `${dir}/context.yaml`]);
    expect(fromContext.stdout).toContain('arch: amd64');
    const without = await runCli(['apply', '-p', `${dir}/policy.yaml`, '-r', `${dir}/pod.yaml`]);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('unsupported offline: Kyverno CEL library imagedata (image.GetMetadata) needs the metadata of image "nginx:1.21"');
  });
});
