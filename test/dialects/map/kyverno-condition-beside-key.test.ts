/**
 * A condition on a scalar beside the plain key it tests (`(runAsNonRoot): "false"` with `runAsNonRoot: true`,
 * the remediation idiom of Pod Security policy libraries): Kyverno tests the object, deletes the condition
 * from the patch whole (deleteAnchors with deleteScalar) and merges the plain key where the test held.
 * Translated to MAP and to a MutatingPolicy and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const pod = (spec: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod' },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});

const PODS: JsonObject[] = [
  pod({}),
  pod({ securityContext: {} }),
  pod({ securityContext: { runAsNonRoot: false } }),
  pod({ securityContext: { runAsNonRoot: true } }),
  pod({ securityContext: { runAsNonRoot: false, runAsUser: 0 } }),
  pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
  pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
];

const annotated = (value: string): JsonObject => ({ ...pod({}), metadata: { name: 'p', namespace: 'prod', annotations: { replicas: value } } });

const INTEGER_PODS: JsonObject[] = [
  pod({ securityContext: { runAsUser: 0 } }),
  pod({ securityContext: { runAsUser: 1000 } }),
  ...['0', '00', '0s', '0h0m', '0.0', '-0', '1', '0k', 'abc', ''].map(annotated),
];

const CASES: [string, string][] = [
  [
    'a boolean the condition compares as text',
    `mutate:
  patchStrategicMerge:
    spec:
      securityContext:
        (runAsNonRoot): "false"
        runAsNonRoot: true`,
  ],
  [
    'a string field, the plain key written first',
    `mutate:
  patchStrategicMerge:
    spec:
      securityContext:
        seccompProfile:
          type: RuntimeDefault
          (type): Unconfined`,
  ],
  [
    'an integer pattern on an integer (Kyverno compares texts, durations, then quantities)',
    `mutate:
  patchStrategicMerge:
    spec:
      securityContext:
        (runAsUser): "0"
        runAsUser: 1000`,
  ],
  [
    'an integer pattern on strings',
    `mutate:
  patchStrategicMerge:
    metadata:
      annotations:
        (replicas): "0"
        replicas: "1"`,
  ],
];

describe('a condition on a scalar beside the key it tests', () => {
  for (const [what, rule] of CASES) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = podRule('beside', rule);
      let changed = 0;
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of [...PODS, ...INTEGER_PODS]) {
          const expected = outcome(source, p);
          if (JSON.stringify(expected) !== JSON.stringify(p)) changed++;
          expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(expected);
        }
      }
      expect(changed).toBeGreaterThan(0);
    });
  }
});
