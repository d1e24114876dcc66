import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/ir/json.js';
import type { MatchSpec } from '../../src/ir/match.js';
import { parseKindSelector } from '../../src/k8s/kinds.js';
import { compileMatch, kindIndexKeys, requestIndexKeys } from '../../src/k8s/match.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';

const k = (...kinds: string[]) => ({ kinds: kinds.map(parseKindSelector) });

describe('kindIndexKeys', () => {
  it('lists the kinds of bounded specs', () => {
    expect(kindIndexKeys({ globs: 'wildcard', any: [k('Pod'), k('apps/v1/Deployment', 'Pod/status')] })).toEqual([
      'Deployment',
      'Pod',
    ]);
    expect(kindIndexKeys({ globs: 'prefixSuffix', all: [{ kinds: [{ group: '', kind: 'ConfigMap' }] }] })).toEqual(['ConfigMap']);
  });

  it('is unbounded for no kinds, `*`, or Kyverno wildcard kinds', () => {
    expect(kindIndexKeys({ globs: 'wildcard' })).toBe('*');
    expect(kindIndexKeys({ globs: 'wildcard', any: [k('Pod'), { names: ['x'] }] })).toBe('*');
    expect(kindIndexKeys({ globs: 'wildcard', any: [k('*')] })).toBe('*');
    expect(kindIndexKeys({ globs: 'wildcard', any: [k('Po?')] })).toBe('*');
    expect(kindIndexKeys({ globs: 'wildcard', any: [k('*/*')] })).toBe('*');
    expect(kindIndexKeys({ globs: 'prefixSuffix', any: [{ kinds: [{ kind: 'Po?' }] }] })).toEqual(['Po?']);
  });

  it('maps resource rules to the kinds served there; `*`, `*/sub`, `*` groups and unknown resources are unbounded', () => {
    const rule = (groups: string[], resources: string[]) => ({ resources: [{ groups, versions: ['*'], resources }] });
    expect(kindIndexKeys({ globs: 'exact', all: [rule([''], ['pods', 'pods/status', 'configmaps'])] })).toEqual(['ConfigMap', 'Pod']);
    expect(kindIndexKeys({ globs: 'exact', all: [rule(['apps'], ['deployments/scale'])] })).toEqual(['Deployment']);
    expect(kindIndexKeys({ globs: 'exact', all: [rule([''], ['*'])] })).toBe('*');
    expect(kindIndexKeys({ globs: 'exact', all: [rule([''], ['*/scale'])] })).toBe('*');
    expect(kindIndexKeys({ globs: 'exact', all: [rule(['*'], ['pods'])] })).toBe('*');
    expect(kindIndexKeys({ globs: 'exact', all: [rule(['example.com'], ['widgets'])] })).toBe('*');
  });

  it('takes the tightest bounded `all` clause and ignores exclusions', () => {
    expect(kindIndexKeys({ globs: 'wildcard', all: [{ names: ['x'] }, k('Pod', 'Service'), k('Pod')], exclude: { any: [k('Pod')] } })).toEqual([
      'Pod',
    ]);
    expect(kindIndexKeys({ globs: 'wildcard', any: [] })).toEqual([]);
  });
});

describe('a kind index over a policy set is sound', () => {
  const specs: MatchSpec[] = [
    { globs: 'wildcard', any: [k('Pod')] },
    { globs: 'wildcard', any: [k('Pod/status')] },
    { globs: 'wildcard', any: [k('Deployment/scale')] },
    { globs: 'wildcard', any: [k('apps/v1/Deployment', 'StatefulSet')] },
    { globs: 'wildcard', any: [k('*')], exclude: { any: [k('Namespace')] } },
    { globs: 'wildcard', all: [k('ConfigMap'), { namespaces: ['kube-*'] }] },
    { globs: 'prefixSuffix', any: [{ kinds: [{ group: '*', kind: 'Namespace' }] }] },
    { globs: 'exact', all: [{ resources: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['*'] }] }] },
    { globs: 'exact', all: [{ resources: [{ groups: ['apps'], versions: ['v1'], resources: ['*/scale'], operations: ['*'] }] }] },
  ];
  const compiled = specs.map((s) => compileMatch(s));
  const index = new Map<string, number[]>();
  const always: number[] = [];
  compiled.forEach((c, i) => {
    if (c.indexKeys === '*') always.push(i);
    else for (const key of c.indexKeys) index.set(key, [...(index.get(key) ?? []), i]);
  });
  const candidates = (req: AdmissionRequest): Set<number> =>
    new Set([...always, ...requestIndexKeys(req).flatMap((key) => index.get(key) ?? [])]);

  const o = (apiVersion: string, kind: string, metadata: JsonObject = { name: 'x', namespace: 'kube-system' }): JsonObject => ({
    apiVersion,
    kind,
    metadata,
  });
  const requests: AdmissionRequest[] = [
    { object: o('v1', 'Pod'), operation: 'CREATE' },
    { object: o('v1', 'Pod'), operation: 'UPDATE', subResource: 'status' },
    { object: o('v1', 'ConfigMap'), operation: 'CREATE' },
    { object: o('v1', 'Namespace', { name: 'a' }), operation: 'CREATE' },
    { object: o('apps/v1', 'Deployment'), operation: 'CREATE' },
    { object: o('apps/v1', 'StatefulSet'), operation: 'CREATE' },
    {
      object: o('autoscaling/v1', 'Scale'),
      operation: 'UPDATE',
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
    },
    { object: o('example.com/v1', 'Widget'), operation: 'CREATE' },
    { object: o('v1', 'Secret'), operation: 'CREATE' },
  ];

  for (const req of requests) {
    const label = `${(req.object as JsonObject)['kind']}${req.subResource ? `/${req.subResource}` : ''}`;
    it(`every matching policy is a candidate: ${label}`, () => {
      const matched = compiled.flatMap((c, i) => (c.test(req).matched ? [i] : []));
      const cand = candidates(req);
      for (const i of matched) expect(cand.has(i), `spec ${i}`).toBe(true);
      expect(matched.length).toBeGreaterThan(0);
    });
  }

  it('narrows: a Secret only reaches the unbounded policies', () => {
    expect([...candidates(requests[8]!)].sort()).toEqual(always.sort());
    expect(requestIndexKeys(requests[6]!)).toEqual(['Deployment', 'Scale']);
    expect(requestIndexKeys(requests[0]!)).toEqual(['Pod']);
  });
});
