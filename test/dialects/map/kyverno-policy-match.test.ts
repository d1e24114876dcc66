/**
 * A ClusterPolicy's match and exclude, read as Kyverno reads them, in the translated policy's matchConstraints
 * and matchConditions (src/dialects/map/emit-match.ts with match-cel.ts):
 * - `names` matches an object that has only a generateName (a Pod a ReplicaSet creates) by it;
 * - `namespaces` matches a Namespace by its own name;
 * - an exclusion on namespaceSelector or selector, alone or beside kinds, and `exclude.all`, hold as Kyverno's
 *   (rodrigorfk's mutate-pod-hardware-arch excludes namespaces labelled to opt out).
 */
import { describe, expect, it } from 'vitest';
import { builtinDecodeError } from '../../../src/engines/ssa.js';
import { apply } from '../../../src/interpreter/index.js';
import { isJsonObject, type JsonObject } from '../../../src/ir/json.js';
import { gvkOf } from '../../../src/k8s/resources.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { kyvernoPolicies, translatedTo } from './kyverno-support.js';

/**
 * outcome() of kyverno-support.ts, with the object's Namespace (for namespace selectors) in the request, and
 * an UPDATE from `oldObject` where one is given.
 */
function outcomeIn(policies: Policy[], object: JsonObject, namespaceObject: JsonObject | null, oldObject?: JsonObject): unknown {
  const r = apply(policies, oldObject ? { object, oldObject, operation: 'UPDATE', namespaceObject } : { object, operation: 'CREATE', namespaceObject });
  if (r.allowed === false || r.object === undefined) return { denied: true };
  const gvk = isJsonObject(r.object) ? gvkOf(r.object) : undefined;
  return gvk !== undefined && builtinDecodeError(r.object, gvk) !== undefined ? { denied: true } : r.object;
}

function clusterPolicy(match: string): Policy[] {
  return kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: matched}
spec:
  rules:
  - name: r
${match.replace(/^/gm, '    ')}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            seen: "yes"`);
}

interface Case {
  object: JsonObject;
  namespace: JsonObject | null;
  old?: JsonObject;
}

const namespace = (name: string, labels: Record<string, string> = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const pod = (meta: JsonObject, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'apps', ...meta, labels },
  spec: { containers: [{ name: 'a', image: 'nginx' }] },
});

/** Kyverno's result on every case, from both translations; at least one case changed and one left alone. */
function expectKyvernosResults(match: string, cases: readonly Case[]): void {
  const source = clusterPolicy(match);
  const results = cases.map((c) => outcomeIn(source, c.object, c.namespace, c.old));
  const changed = results.filter((r, i) => JSON.stringify(r) !== JSON.stringify(cases[i]!.object));
  expect(changed.length, 'a case Kyverno mutates').toBeGreaterThan(0);
  expect(changed.length, 'a case Kyverno leaves').toBeLessThan(cases.length);
  for (const to of ['map', 'kyverno-mpol'] as const) {
    const target = translatedTo(source, to);
    for (const [i, c] of cases.entries()) expect(outcomeIn(target, c.object, c.namespace, c.old), `${to} ${JSON.stringify(c)}`).toEqual(results[i]);
  }
}

describe("a ClusterPolicy's match, translated as Kyverno reads it", () => {
  it('names: the generateName of an object without a name', () => {
    const cases: Case[] = [
      { object: pod({ generateName: 'web-' }), namespace: null },
      { object: pod({ generateName: 'db-' }), namespace: null },
      { object: pod({ name: 'web-1' }), namespace: null },
      { object: pod({ name: 'db-1', generateName: 'web-' }), namespace: null },
    ];
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Pod]\n      names: ["web-*"]', cases);
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Pod]\nexclude:\n  any:\n  - resources:\n      names: ["web-*", "api-?"]', cases);
  });

  it('namespaces: a Namespace by its own name', () => {
    const cases: Case[] = [
      { object: namespace('team-a'), namespace: null },
      { object: namespace('team-b'), namespace: null },
      { object: { ...pod({ name: 'p' }), metadata: { name: 'p', namespace: 'team-a' } }, namespace: null },
    ];
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Namespace, Pod]\n      namespaces: [team-a, team-c]', cases);
  });

  it('an exclusion on namespaceSelector: the labels of the object\'s Namespace, none for cluster-scoped objects', () => {
    const optedOut = namespace('apps', { 'policies.kyverno.io/disable-default-arch-enforcement': 'true' });
    const cases: Case[] = [
      { object: pod({ name: 'a' }), namespace: optedOut },
      { object: pod({ name: 'b' }), namespace: namespace('apps', { team: 'x' }) },
      { object: pod({ name: 'c' }), namespace: null },
      { object: namespace('apps', { 'policies.kyverno.io/disable-default-arch-enforcement': 'true' }), namespace: null },
    ];
    const exclusion = 'exclude:\n  any:\n  - resources:\n      namespaceSelector:\n        matchLabels:\n          policies.kyverno.io/disable-default-arch-enforcement: "true"';
    expectKyvernosResults(`match:\n  any:\n  - resources:\n      kinds: [Pod]\n${exclusion}`, cases);
    expectKyvernosResults(`match:\n  any:\n  - resources:\n      kinds: [Pod, Namespace]\n${exclusion}`, cases);
    expectKyvernosResults(
      'match:\n  any:\n  - resources:\n      kinds: [Pod]\nexclude:\n  any:\n  - resources:\n      namespaceSelector:\n        matchExpressions:\n        - {key: team, operator: NotIn, values: [x, y]}',
      cases,
    );
  });

  it("selector: the new object's labels, also on an UPDATE whose old object matched", () => {
    const cases: Case[] = [
      { object: pod({ name: 'a' }, { app: 'web' }), namespace: null },
      { object: pod({ name: 'b' }, { app: 'db' }), namespace: null },
      { object: pod({ name: 'c' }, { app: 'db' }), namespace: null, old: pod({ name: 'c' }, { app: 'web' }) },
      { object: pod({ name: 'd' }, { app: 'web' }), namespace: null, old: pod({ name: 'd' }, { app: 'db' }) },
    ];
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Pod]\n      selector:\n        matchLabels:\n          app: web', cases);
  });

  it('namespaceSelector: never a Namespace, and no labels for a cluster-scoped object', () => {
    const role: JsonObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] };
    const cases: Case[] = [
      { object: namespace('apps', { team: 'x' }), namespace: null },
      { object: namespace('web', { team: 'z' }), namespace: null },
      { object: role, namespace: null },
      { object: pod({ name: 'a' }), namespace: namespace('apps', { team: 'z' }) },
      { object: pod({ name: 'b' }), namespace: namespace('apps', { team: 'x' }) },
    ];
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Namespace, ClusterRole, Pod]\n      namespaceSelector:\n        matchExpressions:\n        - {key: team, operator: NotIn, values: [x]}', cases);
  });

  it('kinds: Pod also covers the pods/ephemeralcontainers subresource (kubectl debug), as Kyverno registers and matches it', () => {
    const source = clusterPolicy('match:\n  any:\n  - resources:\n      kinds: [Pod]');
    const before = pod({ name: 'p' });
    const debug = { ...before, spec: { ...(before.spec as JsonObject), ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } };
    const request = {
      object: debug,
      oldObject: before,
      operation: 'UPDATE',
      subResource: 'ephemeralcontainers',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
    } as const;
    const kyverno = apply(source, request).object;
    expect(JSON.stringify(kyverno)).toContain('"seen":"yes"');
    for (const to of ['map', 'kyverno-mpol'] as const) expect(apply(translatedTo(source, to), request).object, to).toEqual(kyverno);
  });

  it('an exclusion on selector beside kinds, and exclude.all', () => {
    const cases: Case[] = [
      { object: pod({ name: 'a' }, { tier: 'system' }), namespace: null },
      { object: pod({ name: 'b' }, { tier: 'web' }), namespace: null },
      { object: { ...pod({ name: 'c' }, { tier: 'system' }), metadata: { name: 'c', namespace: 'kube-system', labels: { tier: 'system' } } }, namespace: null },
    ];
    expectKyvernosResults('match:\n  any:\n  - resources:\n      kinds: [Pod]\nexclude:\n  any:\n  - resources:\n      kinds: [Pod]\n      selector:\n        matchLabels:\n          tier: system', cases);
    expectKyvernosResults(
      'match:\n  any:\n  - resources:\n      kinds: [Pod]\nexclude:\n  all:\n  - resources:\n      selector:\n        matchLabels:\n          tier: system\n  - resources:\n      namespaces: [kube-system]',
      cases,
    );
  });
});
