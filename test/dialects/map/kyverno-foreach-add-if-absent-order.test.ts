/**
 * A Descending foreach strategic merge over the containers, selecting each by its name, whose every leaf is
 * below a `+()` anchor (kyverno test/cli add-default-resources): a container that already has every key gets
 * an empty copy, which the anchor cleanup drops, so kyaml's Prepend does not move it, and the containers
 * that were patched end in front. The path-op route (src/dialects/map/emit-foreach.ts) assumed every item
 * moves and kept the order; found by comparing perturbed objects through the source and the translation.
 * Translated to MAP and to MutatingPolicy and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const source = podRule(
  'defaults',
  `mutate:
  foreach:
  - list: "request.object.spec.containers[]"
    patchStrategicMerge:
      spec:
        containers:
        - (name): "{{element.name}}"
          resources:
            requests:
              +(memory): "100Mi"
              +(cpu): "100m"`,
);

const container = (name: string, requests?: JsonObject): JsonObject => ({ name, image: `${name}:1`, ...(requests ? { resources: { requests } } : {}) });
const pod = (...containers: JsonObject[]): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers } });

const PODS: JsonObject[] = [
  pod(container('nginx', { memory: '200Mi', cpu: '100m' }), container('busybox')),
  pod(container('a'), container('b', { memory: '1Gi', cpu: '1' }), container('c', { cpu: '2' })),
  pod(container('a', { memory: '1Gi', cpu: '1' }), container('b', { memory: '1Gi', cpu: '1' })),
  pod(container('a'), container('b')),
];

const names = (o: unknown): string[] => (((o as JsonObject).spec as JsonObject).containers as JsonObject[]).map((c) => c.name as string);

describe('a foreach strategic merge whose every leaf is below +(), to CEL', () => {
  it('Kyverno moves the patched containers to the front (the reference this test holds the translations to)', () => {
    expect(names(outcome(source, PODS[0]!))).toEqual(['busybox', 'nginx']);
    expect(names(outcome(source, PODS[1]!))).toEqual(['a', 'c', 'b']);
    expect(names(outcome(source, PODS[2]!))).toEqual(['a', 'b']);
  });

  for (const to of ['map', 'kyverno-mpol'] as const) {
    it(`${to}: the same objects, in Kyverno's order`, () => {
      const translated = translatedTo(source, to);
      for (const p of PODS) expect(outcome(translated, p)).toEqual(outcome(source, p));
    });
  }
});
