/**
 * A `{{ }}` alone in a plain scalar of a `patchesJson6902` text whose type is known only at runtime (a label
 * or a default of another type: rodrigorfk's mutate-pod-hardware-arch writes
 * `value: {{ namespace.metadata.labels."…/default-arch" || 'arm64' }}`): Kyverno substitutes into the text and
 * YAML reads it again, so a string comes back as the boolean, null or string YAML 1.1 reads from it, and a
 * number, boolean or map as itself. MAP and MutatingPolicy must give what Kyverno gives, and fail on a string
 * whose reading is not modelled.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const pod = (labels: Record<string, string>): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

const PODS: JsonObject[] = [pod({ arch: 'arm64' }), pod({ arch: 'amd64' }), pod({}), pod({ arch: 'yes' }), pod({ arch: 'Null' }), pod({ arch: 'x86_64' }), pod({ arch: '1.5' })];

describe('a variable of a runtime type alone in a plain scalar of a JSON patch', () => {
  it('is read back as YAML reads the text Kyverno substitutes', () => {
    const source = podRule(
      'plain-any',
      `mutate:
  patchesJson6902: |-
    - op: add
      path: /metadata/annotations
      value:
        arch: {{ request.object.metadata.labels.arch || \`7\` }}`,
    );
    const results = PODS.map((p) => outcome(source, p));
    // Kyverno's own readings: the string, the number default, a YAML word's boolean.
    expect(results[0]).toMatchObject({ metadata: { annotations: { arch: 'arm64' } } });
    expect(results[2]).toEqual({ denied: true });
    expect(results[3]).toEqual({ denied: true });
    for (const to of ['map', 'kyverno-mpol'] as const) {
      const target = translatedTo(source, to);
      for (const [i, p] of PODS.entries()) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(results[i]);
      // A text whose reading the CEL does not model (a colon): Kyverno keeps the string, the CEL fails.
      const colon = pod({ arch: 'v1:2' });
      expect(outcome(source, colon)).toMatchObject({ metadata: { annotations: { arch: 'v1:2' } } });
      expect(outcome(target, colon), to).toEqual({ denied: true });
    }
  });
});
