import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { kyvernoPolicies, outcome, toMap } from './kyverno-support.js';

/** A ClusterPolicy on ConfigMaps and ClusterRoles whose rule reads `request.namespace`. */
function policy(preconditions: string, labels: string): Policy[] {
  return kyvernoPolicies(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ns}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [ConfigMap, rbac.authorization.k8s.io/v1/ClusterRole]
${preconditions}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
${labels.replace(/^/gm, '            ')}`);
}

const configMap: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'dev' } };
const clusterRole: JsonObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } };

// Kyverno's context always holds request.namespace ('' for a cluster-scoped object, AddNamespace), while the
// CEL request leaves an empty namespace out: the translation reads it with a default.
describe('Kyverno → MAP: request.namespace of a cluster-scoped object', () => {
  it('as a value and in a precondition, namespaced and cluster-scoped', () => {
    const cases = [
      policy('', "scope: \"ns-{{ request.namespace }}\""),
      policy(`    preconditions:
      all:
      - key: "{{ request.namespace }}"
        operator: Equals
        value: ""`, 'cluster: "yes"'),
      policy('', "named: \"{{ request.namespace || 'none' }}\""),
    ];
    for (const kyverno of cases) {
      const map = toMap(kyverno);
      for (const object of [configMap, clusterRole]) expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(kyverno, object));
    }
    expect(outcome(cases[0]!, clusterRole)).toMatchObject({ metadata: { labels: { scope: 'ns-' } } });
    expect(outcome(cases[1]!, clusterRole)).toMatchObject({ metadata: { labels: { cluster: 'yes' } } });
    expect(outcome(cases[2]!, clusterRole)).toMatchObject({ metadata: { labels: { named: 'none' } } });
  });
});
