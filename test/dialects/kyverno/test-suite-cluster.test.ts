import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestFiles, loadTestSuite, runTestSuite, type SuiteRow } from '../../../src/dialects/kyverno/test-suite/index.js';
import { describeShared, sharedPath } from '../../support/shared.js';
import { suiteDir, testFile } from './test-suite-support.js';

function rowsOf(dir: string): SuiteRow[] {
  const suite = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
  if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
  return runTestSuite(suite.value);
}

/** The Pod `web` of the tests below, with `labels` (YAML flow map entries) once patched; `image` its container's. */
const podYaml = (labels = '', image = 'nginx', namespace = ', namespace: default'): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: web${namespace}${labels ? `, labels: {${labels}}` : ''}}\nspec:\n  containers: [{name: app, image: ${image}}]\n`;

/** A result row of the policy on the Pod web, compared with patched.yaml. */
const podRow = (policy: string, rule?: string): string =>
  `- {${rule ? '' : 'isMutatingPolicy: true, '}policy: ${policy}, ${rule ? `rule: ${rule}, ` : ''}kind: Pod, resources: [web], result: pass, patchedResources: patched.yaml}\n`;

/** A MutatingPolicy labelling Gadgets (a custom, namespaced kind) with the tier of a cluster-scoped Tier object. */
const POLICY = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-tier
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [gadgets]
  variables:
  - name: tier
    expression: resource.get("example.com/v1", "tiers", "", object.spec.tier)
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"tier-level": variables.tier.spec.level}}}'
`;

const crd = (kind: string, plural: string, scope: string, spec: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
spec:
  group: example.com
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}}
  scope: ${scope}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
${spec}`;

const CRDS = `${crd('Gadget', 'gadgets', 'Namespaced', '              tier: {type: string}')}
---
${crd('Tier', 'tiers', 'Cluster', '              level: {type: string}')}`;

const CLUSTER = (tiers: string): string => `apiVersion: cli.kyverno.io/v1alpha1
kind: ClusterResource
metadata:
  name: cluster
spec:
  crds:
  - crds/crds.yaml
  resources:
${tiers}`;

const GOLD = `  - apiVersion: example.com/v1
    kind: Tier
    metadata: {name: gold}
    spec: {level: "1"}
`;

const RESOURCES = `apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
  namespace: shop
spec:
  tier: gold
`;

const PATCHED = `apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
  namespace: shop
  labels:
    tier-level: "1"
spec:
  tier: gold
`;

const ROW = '- {isMutatingPolicy: true, policy: label-tier, kind: Gadget, resources: [shop/g], result: pass, patchedResources: patched.yaml}\n';

// kyverno test builds a fake cluster of the ClusterResource objects (and the test's resources) and types custom
// kinds with the CRDs the ClusterResources name (commands/test/test.go runTest).
describe('kyverno-test.yaml clusterResources', () => {
  const files = { 'policy.yaml': POLICY, 'resources.yaml': RESOURCES, 'patched.yaml': PATCHED, 'crds/crds.yaml': CRDS };

  it('serves resource.get from the ClusterResource objects and types custom kinds with its CRDs', () => {
    const dir = suiteDir({ ...files, 'cluster.yaml': CLUSTER(GOLD), 'kyverno-test.yaml': testFile(ROW, 'clusterResources:\n- cluster.yaml\n') });
    expect(rowsOf(dir).map((r) => [r.resource, r.status, r.reason])).toEqual([['Gadget/shop/g', 'passed', 'Ok']]);
  });

  it('fails where the cluster lacks the object the policy reads, or the kind has no CRD', () => {
    const empty = suiteDir({ ...files, 'cluster.yaml': CLUSTER('  - {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n'), 'kyverno-test.yaml': testFile(ROW, 'clusterResources:\n- cluster.yaml\n') });
    const [missing] = rowsOf(empty);
    expect(missing).toMatchObject({ status: 'failed' });
    // resource.get answers null for a missing object (kyverno/sdk, Kyverno 1.18): the field read of it fails.
    expect(missing!.reason).toMatch(/the rule's result was error \(type 'null' does not support field selection\)/);
    const noCrds = suiteDir({ ...files, 'cluster.yaml': CLUSTER(GOLD).replace('  crds:\n  - crds/crds.yaml\n', ''), 'kyverno-test.yaml': testFile(ROW, 'clusterResources:\n- cluster.yaml\n') });
    const [untyped] = rowsOf(noCrds);
    expect(untyped).toMatchObject({ status: 'failed' });
    expect(untyped!.reason).toMatch(/Resource kind example.com\/v1, Kind=Gadget not found/);
  });

  it('without clusterResources, reads of the cluster are not simulated', () => {
    const dir = suiteDir({ ...files, 'kyverno-test.yaml': testFile(ROW) });
    const [row] = rowsOf(dir);
    expect(row).toMatchObject({ status: 'failed' });
    expect(row!.reason).toMatch(/needs the cluster's objects/);
  });

  it('a CRD file the ClusterResource names and the test lacks fails every row with the file named', () => {
    const dir = suiteDir({ ...files, 'cluster.yaml': CLUSTER(GOLD).replace('crds/crds.yaml', 'crds/none.yaml'), 'kyverno-test.yaml': testFile(ROW, 'clusterResources:\n- cluster.yaml\n') });
    const loaded = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
    expect(loaded.ok).toBe(false);
    expect(loaded.diagnostics.map((d) => d.message).join('\n')).toMatch(/suite\/crds\/none\.yaml/);
  });
});

// With clusterResources, kyverno test resolves ClusterPolicy configMap context entries from its fake cluster
// (cluster.NewConfigMapResolver; loaders/configmap.go: the ConfigMap's data and metadata).
describe('kyverno-test.yaml clusterResources: configMap context entries', () => {
  const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: env
spec:
  rules:
  - name: env
    match:
      any:
      - resources:
          kinds: [Pod]
    context:
    - name: settings
      configMap:
        name: settings
        namespace: default
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            env: "{{ settings.data.env }}"
            owner: "{{ settings.metadata.labels.owner }}"
`;
  const pod = podYaml('', 'nginx', '');
  const patched = podYaml('env: prod, owner: ops');
  const cluster = (namespace: string): string => `apiVersion: cli.kyverno.io/v1alpha1
kind: ClusterResource
metadata: {name: cluster}
spec:
  resources:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ${namespace}, labels: {owner: ops}}
    data: {env: prod}
`;
  const row = podRow('env', 'env');
  const rows = (namespace: string, extra = 'clusterResources:\n- cluster.yaml\n'): SuiteRow[] =>
    rowsOf(suiteDir({ 'policy.yaml': policy, 'resources.yaml': pod, 'patched.yaml': patched, 'cluster.yaml': cluster(namespace), 'kyverno-test.yaml': testFile(row, extra) }));

  it('reads the ConfigMap the entry names', () => {
    expect(rows('default').map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
  });

  it('fills foreach context entries too (as upstream mutate/e2e/foreach-patchStrategicMerge-context)', () => {
    const foreach = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: env
spec:
  background: false
  rules:
  - name: env
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      foreach:
      - list: request.object.spec.containers
        context:
        - name: dictionary
          configMap: {name: settings, namespace: default}
        patchStrategicMerge:
          spec:
            containers:
            - name: "{{ element.name }}"
              image: "{{ dictionary.data.image }}"
`;
    const withImage = (data: string): string => cluster('default').replace('data: {env: prod}', `data: {${data}}`);
    const want = podYaml('', '"registry.example/app:1"');
    const dir = suiteDir({ 'policy.yaml': foreach, 'resources.yaml': pod, 'patched.yaml': want, 'cluster.yaml': withImage('image: "registry.example/app:1"'), 'kyverno-test.yaml': testFile(row, 'clusterResources:\n- cluster.yaml\n') });
    expect(rowsOf(dir).map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
  });

  it('fails where the cluster has no such ConfigMap, or the test names no clusterResources', () => {
    expect(rows('other').map((r) => r.status)).toEqual(['failed']);
    expect(rows('default', '').map((r) => r.status)).toEqual(['failed']);
  });
});

// Without clusterResources, kyverno test's fake context provider serves the Context file's objects
// (processor.NewContextProvider).
describe('kyverno-test.yaml context file resources', () => {
  const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: label-env
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"env": resource.get("v1", "configmaps", "default", "settings").data.env}}}'
`;
  const context = (data: string): string => `apiVersion: cli.kyverno.io/v1alpha1
kind: Context
metadata:
  name: context
spec:
  resources:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: default}
    data: {${data}}
`;
  const pod = podYaml();
  const patched = podYaml('env: prod');
  const row = podRow('label-env');

  it('answers resource.get from them', () => {
    const dir = suiteDir({ 'policy.yaml': policy, 'resources.yaml': pod, 'patched.yaml': patched, 'context.yaml': context('env: prod'), 'kyverno-test.yaml': testFile(row, 'context: context.yaml\n') });
    expect(rowsOf(dir).map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
    const other = suiteDir({ 'policy.yaml': policy, 'resources.yaml': pod, 'patched.yaml': patched, 'context.yaml': context('env: dev'), 'kyverno-test.yaml': testFile(row, 'context: context.yaml\n') });
    expect(rowsOf(other)[0]!.reason).toMatch(/expected "prod", got "dev"/);
  });
});

// kyverno test mocks the global context from the test's globalContextEntries (store/gctx_resolve.go) and its
// fake context provider answers globalContext.Get with them (an unknown entry is null).
describe('kyverno-test.yaml globalContextEntries', () => {
  const policy = (expression: string): string => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: count
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"seen": ${expression}}}}'
`;
  const pod = podYaml();
  const patched = (seen: string): string => podYaml(`seen: "${seen}"`);
  const row = podRow('count');
  const entries = `globalContextEntries:
- name: teams
  data: {teams: [{name: a}, {name: b}]}
  projections:
  - {name: names, path: "teams[].name"}
- name: deployments
  resources:
  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: d1, namespace: default}}
- name: from-files
  resourceFiles: [more.yaml]
`;
  const more = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c2}\n';
  const run = (expression: string, seen: string): SuiteRow[] =>
    rowsOf(suiteDir({ 'policy.yaml': policy(expression), 'resources.yaml': pod, 'patched.yaml': patched(seen), 'more.yaml': more, 'kyverno-test.yaml': testFile(row, entries) }));

  it('answers globalContext.Get with data, projections, inline resources and resource files', () => {
    expect(run('globalContext.Get("teams", "names").join(",")', 'a,b').map((r) => r.status)).toEqual(['passed']);
    expect(run('string(size(globalContext.Get("deployments", "")))', '1').map((r) => r.status)).toEqual(['passed']);
    expect(run('globalContext.Get("from-files", "").map(c, c.metadata.name).join(",")', 'c1,c2').map((r) => r.status)).toEqual(['passed']);
    expect(run('string(globalContext.Get("nothing", "") == null)', 'true').map((r) => r.status)).toEqual(['passed']);
  });

  it('fills a ClusterPolicy globalReference context entry (entry.projection, narrowed by jmesPath)', () => {
    const clusterPolicy = (reference: string): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: count
spec:
  rules:
  - name: count
    match:
      any:
      - resources:
          kinds: [Pod]
    context:
    - name: found
      globalReference:
${reference}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            seen: "{{ found }}"
`;
    const rule = podRow('count', 'count');
    const rows = (reference: string, seen: string): SuiteRow[] =>
      rowsOf(suiteDir({ 'policy.yaml': clusterPolicy(reference), 'resources.yaml': pod, 'patched.yaml': patched(seen), 'more.yaml': more, 'kyverno-test.yaml': testFile(rule, entries) }));
    expect(rows('        name: teams.names\n        jmesPath: "join(\',\', @)"', 'a,b').map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
    expect(rows('        name: deployments\n        jmesPath: "[0].metadata.name"', 'd1').map((r) => [r.status, r.reason])).toEqual([['passed', 'Ok']]);
    // An entry the test does not mock is still a read of the cluster.
    const [unknown] = rows('        name: nothing', 'x');
    expect(unknown!.status).toBe('failed');
  });

  it('a projection the entry lacks is an error of the policy', () => {
    const [row] = run('size(globalContext.Get("teams", "other"))', 'x');
    expect(row!.status).toBe('failed');
    expect(row!.reason).toMatch(/projection "other" not found in global context entry "teams"/);
  });

  it('an entry kyverno test cannot resolve fails the test file', () => {
    const dir = suiteDir({ 'policy.yaml': policy('"1"'), 'resources.yaml': pod, 'patched.yaml': patched('1'), 'kyverno-test.yaml': testFile(row, 'globalContextEntries:\n- name: broken\n  projections: [{name: x, path: a}]\n') });
    const loaded = loadTestSuite(join(dir, 'kyverno-test.yaml'), 'suite/kyverno-test.yaml');
    expect(loaded.ok).toBe(false);
    expect(loaded.diagnostics[0]!.message).toMatch(/globalContextEntries\[0\]: "broken": data is required when projections are set/);
  });
});

describeShared('upstream test/cli/test-mutating-policy suites', () => {
  const root = sharedPath('conformance/kyverno/suites/test-mutating-policy');
  const files = findTestFiles(root);
  it('finds every suite', () => {
    expect(files.length).toBe(9);
  });
  for (const file of files) {
    const name = file.slice(root.length + 1).replace(/\/?kyverno-test\.yaml$/, '');
    it(`passes ${name}`, () => {
      const suite = loadTestSuite(file);
      if (!suite.ok) throw new Error(suite.diagnostics.map((d) => d.message).join('; '));
      const rows = runTestSuite(suite.value, 'strict', { asKyvernoTest: true });
      expect(rows.length).toBeGreaterThanOrEqual(suite.value.results.length);
      expect(rows.filter((r) => r.status !== 'passed')).toEqual([]);
    });
  }
});
