import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseKindSelector } from '../../src/k8s/kinds.js';
import {
  builtinResources,
  guessResource,
  gvkOf,
  isNamespacedKind,
  kindOfResource,
  lookupKind,
  resourceOf,
} from '../../src/k8s/resources.js';
import { describeShared, sharedPath } from '../support/shared.js';

describe('built-in resource table', () => {
  it('has one row per group and kind, and one per group and resource', () => {
    const all = builtinResources();
    expect(new Set(all.map((r) => `${r.group}/${r.kind}`)).size).toBe(all.length);
    expect(new Set(all.map((r) => `${r.group}/${r.resource}`)).size).toBe(all.length);
    expect(all.length).toBeGreaterThan(60);
  });

  it('covers the common groups', () => {
    for (const [group, kind, resource, namespaced] of [
      ['', 'Pod', 'pods', true],
      ['', 'Namespace', 'namespaces', false],
      ['', 'Endpoints', 'endpoints', true],
      ['apps', 'Deployment', 'deployments', true],
      ['batch', 'CronJob', 'cronjobs', true],
      ['networking.k8s.io', 'Ingress', 'ingresses', true],
      ['networking.k8s.io', 'IngressClass', 'ingressclasses', false],
      ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'clusterrolebindings', false],
      ['policy', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
      ['autoscaling', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true],
      ['storage.k8s.io', 'StorageClass', 'storageclasses', false],
      ['admissionregistration.k8s.io', 'MutatingAdmissionPolicy', 'mutatingadmissionpolicies', false],
      ['apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false],
      ['coordination.k8s.io', 'Lease', 'leases', true],
      ['discovery.k8s.io', 'EndpointSlice', 'endpointslices', true],
      ['scheduling.k8s.io', 'PriorityClass', 'priorityclasses', false],
      ['node.k8s.io', 'RuntimeClass', 'runtimeclasses', false],
      ['certificates.k8s.io', 'CertificateSigningRequest', 'certificatesigningrequests', false],
      ['events.k8s.io', 'Event', 'events', true],
    ] as const) {
      const info = lookupKind(group, kind);
      expect(info, `${group}/${kind}`).toBeDefined();
      expect(info!.resource).toBe(resource);
      expect(info!.namespaced).toBe(namespaced);
    }
  });
});

describe('gvkOf, resourceOf, kindOfResource', () => {
  it('splits apiVersion into group and version', () => {
    expect(gvkOf({ apiVersion: 'v1', kind: 'Pod' })).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(gvkOf({ apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(gvkOf({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate' })).toEqual({
      group: 'cert-manager.io',
      version: 'v1',
      kind: 'Certificate',
    });
    expect(gvkOf({ kind: 7 })).toEqual({ group: '', version: '', kind: '' });
    expect(gvkOf(null)).toEqual({ group: '', version: '', kind: '' });
  });

  it('keeps the requested version and falls back to a guessed plural', () => {
    expect(resourceOf({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' })).toEqual({
      group: 'autoscaling',
      version: 'v1',
      resource: 'horizontalpodautoscalers',
    });
    expect(resourceOf({ group: 'example.com', version: 'v1', kind: 'Widget' }).resource).toBe('widgets');
    expect(guessResource('Policy')).toBe('policies');
    expect(guessResource('Ingress')).toBe('ingresses');
    expect(guessResource('Endpoints')).toBe('endpoints');
    expect(guessResource('')).toBe('');
  });

  it('maps resources back to kinds and answers scope', () => {
    expect(kindOfResource({ group: 'apps', version: 'v1', resource: 'deployments' })).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(kindOfResource({ group: 'example.com', version: 'v1', resource: 'widgets' })).toBeUndefined();
    expect(isNamespacedKind({ group: '', kind: 'Node' })).toBe(false);
    expect(isNamespacedKind({ group: 'example.com', kind: 'Widget' })).toBeUndefined();
  });
});

describe('Kyverno kind selectors (ParseKindSelector)', () => {
  const cases: [string, [string, string, string, string]][] = [
    ['Pod', ['*', '*', 'Pod', '']],
    ['Pod/status', ['*', '*', 'Pod', 'status']],
    ['Pod.status', ['*', '*', 'Pod', 'status']],
    ['v1/Pod', ['*', 'v1', 'Pod', '']],
    ['v2beta1/HorizontalPodAutoscaler', ['*', 'v2beta1', 'HorizontalPodAutoscaler', '']],
    ['*/Pod', ['*', '*', 'Pod', '']],
    ['v1/Pod/status', ['*', 'v1', 'Pod', 'status']],
    ['v1/Pod.status', ['*', 'v1', 'Pod', 'status']],
    ['apps/v1/Deployment', ['apps', 'v1', 'Deployment', '']],
    ['apps/v1/Deployment/scale', ['apps', 'v1', 'Deployment', 'scale']],
    ['networking.k8s.io/v1/NetworkPolicy.status', ['networking.k8s.io', 'v1', 'NetworkPolicy', 'status']],
    ['*/*/Pod/status', ['*', '*', 'Pod', 'status']],
    ['tekton.dev/*/TaskRun', ['tekton.dev', '*', 'TaskRun', '']],
    ['*/*', ['*', '*', '*', '*']],
    ['*/status', ['*', '*', '*', 'status']],
    ['*', ['*', '*', '*', '']],
    ['a/b/c/d/e', ['', '', '', '']],
  ];
  for (const [input, [group, version, kind, subresource]] of cases) {
    it(input, () => expect(parseKindSelector(input)).toEqual({ group, version, kind, subresource }));
  }
});

/** `plural → {group, kind, namespaced}` as the OpenAPI documents' list/create paths state them. */
function openApiResources(): Map<string, { group: string; kind: string; namespaced: boolean }> {
  const dir = sharedPath('conformance/map/k8s-schema/openapi-v3');
  const out = new Map<string, { group: string; kind: string; namespaced: boolean }>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const doc = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as {
      paths: Record<string, Record<string, { 'x-kubernetes-action'?: string; 'x-kubernetes-group-version-kind'?: { group: string; kind: string } }>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path.includes('{name}') || path.includes('/watch/')) continue;
      for (const op of Object.values(item)) {
        const gvk = op?.['x-kubernetes-group-version-kind'];
        const action = op?.['x-kubernetes-action'];
        if (!gvk || (action !== 'list' && action !== 'post')) continue;
        const plural = path.slice(path.lastIndexOf('/') + 1);
        const key = `${gvk.group}/${plural}`;
        const namespaced = path.includes('/namespaces/{namespace}/');
        const prev = out.get(key);
        out.set(key, { group: gvk.group, kind: gvk.kind, namespaced: namespaced || (prev?.namespaced ?? false) });
      }
    }
  }
  return out;
}

describeShared('built-in table agrees with the OpenAPI documents in ../shared', () => {
  it('core, apps, batch and discovery.k8s.io: kind, plural and scope', () => {
    const api = openApiResources();
    expect(api.size).toBeGreaterThan(20);
    for (const [key, want] of api) {
      const plural = key.slice(key.lastIndexOf('/') + 1);
      const info = lookupKind(want.group, want.kind);
      expect(info, `${want.group}/${want.kind}`).toBeDefined();
      expect([info!.resource, info!.namespaced], key).toEqual([plural, want.namespaced]);
    }
    const groups = new Set([...api.values()].map((v) => v.group));
    for (const row of builtinResources().filter((r) => groups.has(r.group))) {
      expect(api.has(`${row.group}/${row.resource}`), `${row.group}/${row.resource} in OpenAPI`).toBe(true);
    }
  });
});
