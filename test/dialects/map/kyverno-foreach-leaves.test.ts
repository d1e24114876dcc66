/**
 * A Kyverno foreach whose strategic merge writes only map leaves outside the iterated list (an annotation per
 * container, named after it: kyverno/policies add-apparmor), over one list of the object or over several
 * joined by a JMESPath multi-select (`spec.[ephemeralContainers, initContainers, containers][]`). Translated
 * to MAP and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function policy(list: string, patch: string, extra = ''): Policy[] {
  return podRule(
    'leaves',
    `mutate:
  foreach:
  - list: "${list}"
${extra.replace(/^/gm, '    ')}
    patchStrategicMerge:
${patch.replace(/^/gm, '      ')}`,
  );
}

const pod = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod', ...metadata }, spec });

const PODS: JsonObject[] = [
  pod({ containers: [{ name: 'app', image: 'nginx' }] }),
  pod({ containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'busybox' }], initContainers: [{ name: 'init', image: 'alpine' }] }, { annotations: { keep: 'me' } }),
  pod({ containers: [{ name: 'a', image: 'x' }], ephemeralContainers: [{ name: 'debug', image: 'busybox' }], initContainers: [] }, { labels: { last: 'old' } }),
  pod({ containers: [] }),
];

const JOINED = 'request.object.spec.[ephemeralContainers, initContainers, containers][]';
const APPARMOR = `metadata:
  annotations:
    container.apparmor.security.beta.kubernetes.io/{{element.name}}: runtime/default`;
const LAST = `metadata:
  labels:
    last: "{{ element.name }}"
    seen-{{ element.name }}: "at-{{ elementIndex }}"`;

const CASES: [string, string, string, string?][] = [
  ['an annotation per container of the joined lists (kyverno/policies add-apparmor)', JOINED, APPARMOR],
  ['an annotation per container of one list', 'request.object.spec.containers', APPARMOR],
  ['a leaf every element writes: the last in Descending order (the default) wins', JOINED, LAST],
  ['a constant patch with a list, once where an element passes', JOINED, `spec:\n  tolerations:\n  - key: dedicated\n    operator: Exists`],
  ['a leaf every element writes, Ascending', JOINED, LAST, 'order: Ascending'],
  [
    'under a precondition only some elements pass',
    JOINED,
    LAST,
    `preconditions:
  all:
  - key: "{{ element.image }}"
    operator: NotEquals
    value: nginx`,
  ],
];

describe('Kyverno foreach strategic merges of map leaves outside the iterated list, to MAP', () => {
  for (const [what, list, patch, extra] of CASES) {
    it(`${what}: MAP gives what Kyverno gives`, () => {
      const source = policy(list, patch, extra);
      const map = toMap(source);
      for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
    });
  }

  it('the order decides the leaf every element writes (the cases above tell the two apart)', () => {
    const last = (extra?: string): unknown => ((outcome(policy(JOINED, LAST, extra), PODS[1]!) as JsonObject).metadata as JsonObject).labels;
    expect(last()).toMatchObject({ last: 'init' });
    expect(last('order: Ascending')).toMatchObject({ last: 'side' });
  });

  it('no map is made where no element passes', () => {
    const source = policy(JOINED, APPARMOR, `preconditions:\n  all:\n  - key: "{{ element.name }}"\n    operator: Equals\n    value: nobody`);
    expect(outcome(toMap(source), PODS[0]!)).toEqual(PODS[0]);
  });

  it('a list, a deletion or an anchor outside the iterated list is refused, not translated', () => {
    expect(refusal(policy(JOINED, `spec:\n  tolerations:\n  - key: "{{ element.name }}"`))).toContain('merges into the list at spec.tolerations, which kyaml does not merge by name');
    expect(refusal(policy('request.object.spec.containers', `spec:\n  tolerations:\n  - key: "{{ element.name }}"`))).toContain('a list at tolerations in a foreach strategic merge that does not write the iterated list');
    expect(refusal(policy(JOINED, `metadata:\n  labels:\n    gone-{{ element.name }}: null`))).toContain('a null (a deletion) at gone-{{ element.name }}');
    expect(refusal(policy(JOINED, `metadata:\n  +(labels):\n    a: b`))).toContain('the key "+(labels)"');
  });

  it('a merge into containers by the condition (name) over the joined lists is translated (kyverno-foreach-joined-merge.test.ts)', () => {
    const source = policy(JOINED, `spec:\n  containers:\n  - (name): "{{ element.name }}"\n    imagePullPolicy: Always`);
    const map = toMap(source);
    for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
  });

  it('a JSON patch over the joined lists writes the list its paths name at the joined index (kyverno-foreach-joined-json-patch.test.ts)', () => {
    const source = podRule(
      'joined-json',
      `mutate:
  foreach:
  - list: "${JOINED}"
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/imagePullPolicy
        op: add
        value: Always`,
    );
    const map = toMap(source);
    const containersOnly = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }] } };
    expect(outcome(map, containersOnly)).toEqual(outcome(source, containersOnly));
    expect(((outcome(map, containersOnly) as JsonObject).spec as JsonObject).containers).toEqual([
      { name: 'a', image: 'nginx', imagePullPolicy: 'Always' },
      { name: 'b', image: 'nginx', imagePullPolicy: 'Always' },
    ]);
    // A path outside every element of one list is still refused.
    expect(refusal(podRule('joined-json', `mutate:\n  foreach:\n  - list: "${JOINED}"\n    patchesJson6902: |-\n      - path: /metadata/labels/x\n        op: add\n        value: y`))).toContain('a foreach JSON patch over the joined lists');
  });
});
