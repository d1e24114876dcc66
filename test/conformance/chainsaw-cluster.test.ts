/**
 * The chainsaw replay as a cluster (issue 15 items 13 and 14): objects the cluster creates by itself exist for
 * later asserts (each namespace's `default` ServiceAccount, admitted through the policies installed by then),
 * a CustomResourceDefinition applied in a step makes its kind known to later steps (scope and schema: a
 * MutatingAdmissionPolicy can type the custom resource; its objects get a metadata.generation),
 * and built-in objects are defaulted and go through the default admission plugins before policies see them.
 * Fixtures are written here in the corpus' chainsaw case layout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runConformance } from '../../src/conformance/run.js';
import type { JsonObject } from '../../src/ir/json.js';
import { tempDir } from '../support/temp.js';

const root = tempDir('chainsaw-cluster');

function chainsawCase(name: string, ops: { op: string; file?: string; docs?: JsonObject[] }[], dialects = ['kyverno']): string {
  const dir = join(root, 'kyverno-chainsaw', name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    source: 'kyverno-chainsaw',
    dialects,
    usable_offline: true,
    features: [],
    ops: ops.map(({ docs, ...op }) => {
      if (docs && op.file) writeFileSync(join(dir, op.file), docs.map((d) => stringify(d)).join('---\n'));
      return op;
    }),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

async function statusOf(dir: string): Promise<{ status: string; reason?: string }> {
  const run = await runConformance([dir]);
  expect(run.outcomes).toHaveLength(1);
  return run.outcomes[0]!;
}

const noopPolicy: JsonObject = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'noop' },
  spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { marked: 'true-ish' } } } } }] },
};

describe('objects the cluster creates', () => {
  it('the default ServiceAccount of the test namespace, of system namespaces and of a namespace a step creates', async () => {
    const dir = chainsawCase('default-sa', [
      { op: 'policy', file: 'policy.yaml', docs: [noopPolicy] },
      { op: 'assert', file: 'sa.yaml', docs: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }] },
      { op: 'assert', file: 'sa-default.yaml', docs: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } }] },
      { op: 'apply', file: 'ns.yaml', docs: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }] },
      { op: 'assert', file: 'sa-team.yaml', docs: [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team' } }] },
    ]);
    expect(await statusOf(dir)).toEqual({ id: expect.any(String), status: 'passed' });
  });

  it("a namespace's default ServiceAccount is created through admission: the policies installed by then mutate it", async () => {
    // kyverno/policies disable-automountserviceaccounttoken: the service account controller's create is an
    // admission request (by its own service account), which the policy answers.
    const mutateAccounts: JsonObject = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'no-token' },
      spec: {
        background: false,
        rules: [
          {
            name: 'r',
            match: { any: [{ resources: { kinds: ['ServiceAccount'], names: ['default'] } }] },
            preconditions: { all: [{ key: '{{ request.userInfo.username }}', operator: 'Equals', value: 'system:serviceaccount:kube-system:service-account-controller' }] },
            mutate: { patchStrategicMerge: { automountServiceAccountToken: false } },
          },
        ],
      },
    };
    const sa = (namespace: string): JsonObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace }, automountServiceAccountToken: false });
    const dir = chainsawCase('default-sa-admitted', [
      { op: 'policy', file: 'policy.yaml', docs: [mutateAccounts] },
      { op: 'apply', file: 'ns.yaml', docs: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }] },
      { op: 'assert', file: 'sa-team.yaml', docs: [sa('team')] },
      // The test namespace's account existed before the policy: nothing created it again.
      { op: 'error', file: 'sa-test.yaml', docs: [{ ...sa('default'), metadata: { name: 'default' } }] },
    ]);
    expect(await statusOf(dir)).toEqual({ id: expect.any(String), status: 'passed' });
  });
});

const widgetCrd: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } } } } },
      },
    ],
  },
};

const colorWidgets: JsonObject[] = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'color-widgets' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }] },
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{color: "blue"}}' } }],
    },
  },
  { apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'color-widgets' }, spec: { policyName: 'color-widgets' } },
];

describe('a CustomResourceDefinition applied in a step', () => {
  it('is stored, and its kind is typed and placed by its scope in later steps', async () => {
    const dir = chainsawCase(
      'crd-kind',
      [
        { op: 'apply', file: 'crd.yaml', docs: [widgetCrd] },
        { op: 'assert', file: 'crd-assert.yaml', docs: [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, status: { acceptedNames: { kind: 'Widget' } } }] },
        { op: 'policy', file: 'policy.yaml', docs: colorWidgets },
        { op: 'apply', file: 'widget.yaml', docs: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } }] },
        { op: 'assert', file: 'widget-assert.yaml', docs: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, color: 'blue' } }] },
      ],
      ['mutatingadmissionpolicy'],
    );
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });

  it('its objects get metadata.generation: 1 on create, one more when anything but metadata and status changes', async () => {
    const widget = (spec: JsonObject, labels?: JsonObject): JsonObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', ...(labels ? { labels } : {}) }, spec });
    const generation = (n: number): JsonObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', generation: n } });
    const dir = chainsawCase(
      'crd-generation',
      [
        { op: 'apply', file: 'crd.yaml', docs: [widgetCrd] },
        { op: 'policy', file: 'policy.yaml', docs: colorWidgets },
        { op: 'apply', file: 'widget.yaml', docs: [widget({ size: 3 })] },
        { op: 'assert', file: 'g1.yaml', docs: [generation(1)] },
        { op: 'apply', file: 'widget-labels.yaml', docs: [widget({ size: 3 }, { team: 'a' })] },
        { op: 'assert', file: 'g1-again.yaml', docs: [generation(1)] },
        { op: 'apply', file: 'widget-size.yaml', docs: [widget({ size: 4 })] },
        { op: 'assert', file: 'g2.yaml', docs: [generation(2)] },
      ],
      ['mutatingadmissionpolicy'],
    );
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });
});

describe('API server defaulting and admission plugins in the replay', () => {
  const pullPolicyLabel: JsonObject = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'pull-label' },
    spec: {
      rules: [
        {
          name: 'label',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { pull: '{{ request.object.spec.containers[0].imagePullPolicy }}' } } } },
        },
      ],
    },
  };

  it('policies see the defaulted Pod; the stored Pod shows defaults and DefaultTolerationSeconds', async () => {
    const dir = chainsawCase('defaults', [
      { op: 'policy', file: 'policy.yaml', docs: [pullPolicyLabel] },
      { op: 'apply', file: 'pod.yaml', docs: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } }] },
      {
        op: 'assert',
        file: 'pod-assert.yaml',
        docs: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'p', labels: { pull: 'IfNotPresent' } },
            spec: {
              dnsPolicy: 'ClusterFirst',
              serviceAccountName: 'default',
              tolerations: [
                { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
                { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
              ],
            },
          },
        ],
      },
    ]);
    expect(await statusOf(dir)).toMatchObject({ status: 'passed' });
  });
});

describe('Kyverno context entries that read the replayed cluster', () => {
  const policy = (context: JsonObject[], labels: JsonObject): JsonObject => ({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'from-cluster' },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, context, mutate: { patchStrategicMerge: { metadata: { labels } } } }] },
  });
  const pod = (labels?: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'team-ns', ...(labels ? { labels } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const namespace: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-ns', labels: { team: 'blue' } } };

  it('an apiCall GET reads the API server, narrowed by its jmesPath; a missing object gives the default', async () => {
    const context: JsonObject[] = [
      { name: 'team', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels.team' } },
      { name: 'owner', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}/configmaps/owner', default: 'nobody' } },
    ];
    const dir = chainsawCase('context-api-call', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { team: '{{ team }}', owner: '{{ owner }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ team: 'blue', owner: 'nobody' })] },
    ]);
    expect(await statusOf(dir)).toEqual({ id: expect.any(String), status: 'passed' });
  });

  it('a configMap entry holds the ConfigMap\'s data and metadata; a missing one fails the rule', async () => {
    const context: JsonObject[] = [{ name: 'settings', configMap: { name: 'settings', namespace: '{{ request.namespace }}' } }];
    const configMap: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'team-ns' }, data: { zone: 'z1' } };
    const found = chainsawCase('context-config-map', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'apply', file: 'cm.yaml', docs: [configMap] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { zone: '{{ settings.data.zone }}', from: '{{ settings.metadata.name }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ zone: 'z1', from: 'settings' })] },
    ]);
    expect(await statusOf(found)).toEqual({ id: expect.any(String), status: 'passed' });
    const missing = chainsawCase('context-config-map-missing', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { zone: '{{ settings.data.zone }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'error', file: 'pod-error.yaml', docs: [pod()] },
    ]);
    expect(await statusOf(missing)).toEqual({ id: expect.any(String), status: 'passed' });
  });
});

describe('Kyverno context entries that read the cluster, translated to a MutatingPolicy (resource.Get, resource.List)', () => {
  const policy = (context: JsonObject[], labels: JsonObject): JsonObject => ({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'from-cluster', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, context, mutate: { patchStrategicMerge: { metadata: { labels } } } }] },
  });
  const pod = (labels?: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'team-ns', ...(labels ? { labels } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const namespace: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-ns', labels: { team: 'blue', owner: 'ann' } } };
  const configMap = (name: string, data: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-ns' }, data });

  /** The case replayed with the ClusterPolicy, then with its MutatingPolicy translation: both pass. */
  async function bothPass(name: string, ops: { op: string; file?: string; docs?: JsonObject[] }[]): Promise<void> {
    const dir = chainsawCase(name, ops);
    expect(await statusOf(dir)).toEqual({ id: expect.any(String), status: 'passed' });
    const via = await runConformance([dir], { via: 'kyverno-mpol' });
    expect(via.outcomes[0]).toMatchObject({ status: 'passed' });
  }

  it('an apiCall GET of one object, narrowed by its jmesPath, and of a collection', async () => {
    const context: JsonObject[] = [
      { name: 'team', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels.team' } },
      { name: 'zone', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}/configmaps', jmesPath: "items[?metadata.name=='zones'].data.zone | [0]" } },
    ];
    await bothPass('mpol-api-call', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'apply', file: 'cm.yaml', docs: [configMap('zones', { zone: 'z1' }), configMap('other', { zone: 'z9' })] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { team: '{{ team }}', zone: '{{ zone }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod({ app: 'web' })] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ app: 'web', team: 'blue', zone: 'z1' })] },
    ]);
  });

  it("an apiCall jmesPath holding `{{ }}` holes: substituted from the rule's context, then queried on the response", async () => {
    const context: JsonObject[] = [
      { name: 'wanted', variable: { jmesPath: "request.object.metadata.labels.zones || 'zones'" } },
      { name: 'zone', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}/configmaps', jmesPath: "items[?metadata.name=='{{ wanted }}'].data.zone | [0]" } },
    ];
    await bothPass('mpol-api-call-query-holes', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'apply', file: 'cm.yaml', docs: [configMap('zones', { zone: 'z1' }), configMap('other', { zone: 'z9' })] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { zone: '{{ zone }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod({ app: 'web' }), { ...pod({ zones: 'other' }), metadata: { name: 'q', namespace: 'team-ns', labels: { zones: 'other' } } }] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ app: 'web', zone: 'z1' }), { ...pod(), metadata: { name: 'q', namespace: 'team-ns', labels: { zones: 'other', zone: 'z9' } } }] },
    ]);
  });

  it('a map an apiCall yields merges into the labels as Kyverno merges it (a null member removes its key)', async () => {
    const context: JsonObject[] = [{ name: 'labels', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels | merge(@, {"team": null})' } }];
    const merged = policy(context, {});
    (((merged.spec as JsonObject).rules as JsonObject[])[0]!.mutate as JsonObject).patchStrategicMerge = { metadata: { labels: '{{ labels }}' } };
    await bothPass('mpol-api-call-map', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'policy', file: 'policy.yaml', docs: [merged] },
      { op: 'apply', file: 'pod.yaml', docs: [pod({ app: 'web', team: 'red' })] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ app: 'web', owner: 'ann' })] },
      { op: 'error', file: 'pod-error.yaml', docs: [pod({ team: 'red' })] },
    ]);
  });

  it('an apiCall of an object that is not there fails the rule, as resource.Get fails the mutation', async () => {
    const context: JsonObject[] = [{ name: 'owner', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}/configmaps/owner', jmesPath: 'data.owner' } }];
    await bothPass('mpol-api-call-missing', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { owner: '{{ owner }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'error', file: 'pod-error.yaml', docs: [pod()] },
    ]);
  });

  it("a configMap entry: the ConfigMap's data and metadata, or a failed rule when it is missing", async () => {
    const context: JsonObject[] = [{ name: 'settings', configMap: { name: 'settings', namespace: '{{ request.namespace }}' } }];
    await bothPass('mpol-config-map', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'apply', file: 'cm.yaml', docs: [configMap('settings', { zone: 'z1' })] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { zone: '{{ settings.data.zone }}', from: '{{ settings.metadata.name }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [pod({ zone: 'z1', from: 'settings' })] },
    ]);
    await bothPass('mpol-config-map-missing', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'policy', file: 'policy.yaml', docs: [policy(context, { zone: '{{ settings.data.zone }}' })] },
      { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      { op: 'error', file: 'pod-error.yaml', docs: [pod()] },
    ]);
  });

  it("a foreach's apiCall per element, read where the element's patch uses it", async () => {
    const perContainer: JsonObject = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'pull-from-cluster', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          {
            name: 'r',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: {
              foreach: [
                {
                  list: 'request.object.spec.containers',
                  context: [{ name: 'pull', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}/configmaps/{{ element.name }}', jmesPath: 'data.pull' } }],
                  patchesJson6902: '- op: add\n  path: /spec/containers/{{ elementIndex }}/imagePullPolicy\n  value: "{{ pull }}"',
                },
              ],
            },
          },
        ],
      },
    };
    const twoContainers = (pulls?: [string, string]): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'team-ns' },
      spec: { containers: [{ name: 'web', image: 'nginx', ...(pulls ? { imagePullPolicy: pulls[0] } : {}) }, { name: 'side', image: 'busybox', ...(pulls ? { imagePullPolicy: pulls[1] } : {}) }] },
    });
    await bothPass('mpol-foreach-api-call', [
      { op: 'apply', file: 'ns.yaml', docs: [namespace] },
      { op: 'apply', file: 'cm.yaml', docs: [configMap('web', { pull: 'Always' }), configMap('side', { pull: 'Never' })] },
      { op: 'policy', file: 'policy.yaml', docs: [perContainer] },
      { op: 'apply', file: 'pod.yaml', docs: [twoContainers()] },
      { op: 'assert', file: 'pod-assert.yaml', docs: [twoContainers(['Always', 'Never'])] },
    ]);
  });

  it('what the resource library cannot read, or CEL cannot fall back from, is refused', async () => {
    const refused = async (name: string, entry: JsonObject, why: string): Promise<void> => {
      const dir = chainsawCase(name, [
        { op: 'policy', file: 'policy.yaml', docs: [policy([entry], { v: '{{ v }}' })] },
        { op: 'apply', file: 'pod.yaml', docs: [pod()] },
      ]);
      const via = await runConformance([dir], { via: 'kyverno-mpol' });
      expect(via.outcomes[0]).toMatchObject({ status: 'unsupported', class: 'cannot', reason: expect.stringContaining(why) });
    };
    await refused('mpol-version', { name: 'v', apiCall: { urlPath: '/version', jmesPath: 'minor' } }, 'names no resource');
    await refused('mpol-default', { name: 'v', apiCall: { urlPath: '/api/v1/namespaces/default', jmesPath: 'metadata.name', default: 'x' } }, 'CEL cannot fall back on an error');
  });
});
