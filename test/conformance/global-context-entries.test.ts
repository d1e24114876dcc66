/**
 * GlobalContextEntry objects of a replayed chainsaw cluster, read by a MutatingPolicy's `globalContext.get`
 * (src/conformance/runners/global-context-entries.ts): kubernetesResource and apiCall entries, their
 * projections and Kyverno's errors, an entry that does not exist, and calls offline runs cannot answer.
 */
import { describe, expect, it } from 'vitest';
import { parseApiPath, type ReplayedCluster } from '../../src/conformance/runners/api-server.js';
import { clusterGlobalContext } from '../../src/conformance/runners/global-context-entries.js';
import type { JsonObject } from '../../src/ir/json.js';
import { podPolicy, run } from '../dialects/kyverno-mpol/support.js';

const cm = (name: string, namespace: string, app: string): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app } }, data: { k: name } });
const entry = (name: string, spec: JsonObject): JsonObject => ({ apiVersion: 'kyverno.io/v2alpha1', kind: 'GlobalContextEntry', metadata: { name }, spec });

function cluster(objects: JsonObject[]): ReplayedCluster {
  return {
    objects: () => objects,
    list: (apiVersion, resource, namespace) =>
      objects.filter((o) => o.apiVersion === apiVersion && resource === `${String(o.kind).toLowerCase()}s` && (namespace === '' || (o.metadata as JsonObject).namespace === namespace)),
    kindOf: (apiVersion, resource) => (apiVersion === 'v1' && resource === 'configmaps' ? 'ConfigMap' : undefined),
  };
}

const OBJECTS = [
  cm('a', 'ns1', 'alpha'),
  cm('b', 'ns2', 'beta'),
  entry('by-api', { apiCall: { urlPath: '/api/v1/namespaces/ns1/configmaps' }, projections: [{ name: 'app', jmesPath: "items[?metadata.name=='a'].metadata.labels.app | [0]" }, { name: 'none', jmesPath: 'items[?false] | [0]' }] }),
  entry('one', { apiCall: { urlPath: '/api/v1/namespaces/ns2/configmaps/b' } }),
  entry('gone', { apiCall: { urlPath: '/api/v1/namespaces/ns2/configmaps/zz' } }),
  entry('by-resource', { kubernetesResource: { group: '', version: 'v1', resource: 'configmaps' }, projections: [{ name: 'apps', jmesPath: '[].metadata.labels.app' }] }),
  entry('service', { apiCall: { service: { url: 'https://example.com' } } }),
];

describe('GlobalContextEntry objects of a replayed cluster', () => {
  const read = clusterGlobalContext(cluster(OBJECTS));

  it('serves an apiCall entry: the response, its projections, Kyverno\'s errors', () => {
    expect(read('by-api', 'app')).toBe('alpha');
    expect(read('by-api', '')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMapList', items: [{ metadata: { name: 'a' } }] });
    expect(() => read('by-api', 'none')).toThrow('no data available');
    expect(() => read('by-api', 'other')).toThrow('no data available');
    expect(read('one', '')).toMatchObject({ data: { k: 'b' } });
    expect(() => read('gone', '')).toThrow('not found');
  });

  it('serves a kubernetesResource entry: the objects, its projections, an unknown projection an error', () => {
    expect(read('by-resource', '')).toHaveLength(2);
    expect(read('by-resource', 'apps')).toEqual(['alpha', 'beta']);
    expect(() => read('by-resource', 'other')).toThrow('projection "other" not found');
  });

  it('reads an entry that does not exist as null, and leaves what it cannot answer undefined', () => {
    expect(read('nothing', '')).toBeNull();
    expect(read('service', '')).toBeUndefined();
    expect(parseApiPath('/api/v1/namespaces/ns1/configmaps?labelSelector=a')).toBeUndefined();
    expect(parseApiPath('/apis/apps/v1/namespaces/x/deployments/d/scale')).toBeUndefined();
    expect(parseApiPath('/apis/apps/v1/namespaces/x/deployments/d')).toEqual({ apiVersion: 'apps/v1', resource: 'deployments', namespace: 'x', name: 'd' });
    expect(parseApiPath('/api/v1/namespaces/x')).toEqual({ apiVersion: 'v1', resource: 'namespaces', namespace: '', name: 'x' });
  });

  it("is what a MutatingPolicy's globalContext.get reads", () => {
    const policy = podPolicy(
      'gctx',
      `variables:
- name: app
  expression: globalContext.get("by-api", "app")
mutations:
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"app": variables.app}}}'`,
    );
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const r = run(policy, pod, {}, { globalContext: read });
    expect(r.allowed).toBe(true);
    expect((r.object as JsonObject).metadata).toMatchObject({ labels: { app: 'alpha' } });
  });
});
