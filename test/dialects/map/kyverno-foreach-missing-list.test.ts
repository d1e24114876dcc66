/**
 * A foreach list that is missing or null: Kyverno's EvaluateList makes it a list of one nil element, which
 * mutateElements skips (handlers/mutation/common.go), so the rule changes nothing. The translated
 * comprehension ranges over an empty list then, where a comprehension over null fails (found by migrate's
 * example objects on nirmata/kyverno-policies remediate-disallow-host-ports: containers without ports).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const pod = (containers: JsonObject[], spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod' },
  spec: { containers, ...spec },
});

const PODS: JsonObject[] = [
  pod([{ name: 'app', image: 'nginx' }]),
  pod([{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, hostPort: 8080 }] }, { name: 'side', image: 'envoy' }]),
  pod([{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 81 }] }]),
  pod([{ name: 'app', image: 'nginx' }], { initContainers: [{ name: 'init', image: 'busybox', ports: [{ containerPort: 1, hostPort: 1 }] }] }),
];

const NESTED = `mutate:
  foreach:
  - list: request.object.spec.containers[]
    order: Descending
    foreach:
    - list: "element.ports[]"
      order: Descending
      preconditions:
        all:
        - key: hostPort
          operator: AnyIn
          value: "{{ element.keys(@) }}"
      patchesJson6902: |-
        - path: /spec/containers/{{elementIndex0}}/ports/{{elementIndex1}}/hostPort
          op: replace
          value: 0`;

const OUTER = `mutate:
  foreach:
  - list: request.object.spec.initContainers[]
    patchesJson6902: |-
      - path: /spec/initContainers/{{elementIndex}}/image
        op: replace
        value: "registry.example.com/{{ element.image }}"`;

describe('a foreach over a list that may be missing', () => {
  for (const [what, rule] of [
    ['a nested list (element.ports[]) some elements lack', NESTED],
    ['a list of the object (spec.initContainers[]) some Pods lack', OUTER],
  ] as const) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = podRule('missing', rule);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
      }
    });
  }
});
