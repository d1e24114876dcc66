/**
 * A condition anchor whose pattern negates a wildcard (`(image): "!*:latest"`, devilzzz-lab's
 * mutate-image-pull-policy): Kyverno's NotEqual operator (pattern.go validateString → compareString), a
 * scalar value whose text the rest does not match, alone or combined by `|` and `&`; the items of a list
 * value are compared as themselves. MAP and MutatingPolicy must give what Kyverno gives.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const pod = (containers: JsonObject[]): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers } });

const PODS: JsonObject[] = [
  pod([{ name: 'a', image: 'nginx:latest' }]),
  pod([{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'envoy:latest' }]),
  pod([{ name: 'a', image: 'nginx' }, { name: 'b', image: 'redis:7', imagePullPolicy: 'Always' }]),
  pod([{ name: 'a', image: '!*:latest' }]),
];

function expectKyvernosResults(rule: string): void {
  const source = podRule('negated', rule);
  const changed = PODS.filter((p) => JSON.stringify(outcome(source, p)) !== JSON.stringify(p));
  expect(changed.length).toBeGreaterThan(0);
  for (const to of ['map', 'kyverno-mpol'] as const) {
    const target = translatedTo(source, to);
    for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
  }
}

describe('a condition anchor with a negated wildcard pattern', () => {
  it('"!*:latest" on each container image', () => {
    expectKyvernosResults(`mutate:
  patchStrategicMerge:
    spec:
      containers:
      - (image): "!*:latest"
        +(imagePullPolicy): IfNotPresent`);
  });

  it('a negation among alternatives and conjunctions: "!*:latest & !redis*" and "nginx* | !*:*"', () => {
    for (const pattern of ['!*:latest & !redis*', 'nginx* | !*:*', '! *:latest']) {
      expectKyvernosResults(`mutate:
  patchStrategicMerge:
    spec:
      containers:
      - (image): "${pattern}"
        +(imagePullPolicy): IfNotPresent`);
    }
  });

  it('on a list value: every item compared as itself', () => {
    const withArgs = (args: unknown[]): JsonObject => pod([{ name: 'a', image: 'nginx:1', args } as JsonObject]);
    const source = podRule(
      'negated-list',
      `mutate:
  patchStrategicMerge:
    spec:
      containers:
      - (args): "!--debug*"
        +(imagePullPolicy): IfNotPresent`,
    );
    const objects = [withArgs(['--port=80']), withArgs(['--port=80', '--debug']), withArgs([]), withArgs([true, 3]), withArgs(['--debugger'])];
    const changed = objects.filter((p) => JSON.stringify(outcome(source, p)) !== JSON.stringify(p));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(objects.length);
    for (const to of ['map', 'kyverno-mpol'] as const) {
      const target = translatedTo(source, to);
      for (const p of objects) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
    }
  });
});
