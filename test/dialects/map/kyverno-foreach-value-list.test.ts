/**
 * A foreach over a list that is no place of the object (a context entry, a computed list): Kyverno queries it
 * from the rule's context (engineutils.EvaluateList). No patch path names its elements, so a JSON patch
 * appending beside the loop is translated (Nerja/kyverno-test-example: a tag per namespace label); one whose
 * path names an element by its index is refused.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { outcome, podRule, refusal, translatedTo } from './kyverno-support.js';

const pod = (labels: JsonObject | undefined, spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...(labels ? { labels } : {}) },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});

const PODS: JsonObject[] = [
  pod(undefined),
  pod({}),
  pod({ team: 'a' }),
  pod({ team: 'a', tier: 'web', zone: 'z1' }, { tolerations: [{ key: 'old', operator: 'Exists' }] }),
];

const TOLERATE_LABELS = `context:
- name: labelled
  variable:
    jmesPath: items(request.object.metadata.labels || \`{}\`, 'key', 'value')
mutate:
  foreach:
  - list: labelled
    preconditions:
      all:
      - key: "{{ element.key }}"
        operator: NotEquals
        value: zone
    patchesJson6902: |-
      - path: /spec/tolerations/-
        op: add
        value: {"key": "{{ element.key }}", "operator": "Equal", "value": "{{ element.value }}"}`;

describe('a foreach over a list of the context', () => {
  for (const order of ['Ascending', 'Descending']) {
    it(`appends beside the loop (${order}): MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = podRule('value-list', TOLERATE_LABELS.replace('  - list: labelled', `  - list: labelled\n    order: ${order}`));
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
      }
    });
  }

  it('a path naming an element by its index is refused: the list is no place of the object', () => {
    const text = refusal(
      podRule(
        'value-list-index',
        `context:
- name: labelled
  variable:
    jmesPath: items(request.object.metadata.labels || \`{}\`, 'key', 'value')
mutate:
  foreach:
  - list: labelled
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/imagePullPolicy
        op: add
        value: Always`,
      ),
    );
    expect(text).toContain('a foreach JSON patch over labelled, a list that is no place of the object, whose path names an element by its index');
  });
});
