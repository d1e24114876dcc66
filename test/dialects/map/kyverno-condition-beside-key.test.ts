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
];

describe('a condition on a scalar beside the key it tests', () => {
  for (const [what, rule] of CASES) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = podRule('beside', rule);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
      }
    });
  }
});
