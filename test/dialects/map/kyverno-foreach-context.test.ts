/**
 * Context entries of a Kyverno foreach (`foreach[].context`), per element: Kyverno defers loading an entry
 * until a query names it (pkg/engine/context/deferred.go, on by default), so an entry that fails fails the
 * rule only where the preconditions or the patch read it. Translated to MAP (each entry written where it is
 * read) and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, refusal, toMap, translatedTo } from './kyverno-support.js';

function policy(context: string, steps: string, preconditions = ''): Policy[] {
  return podRule(
    'per-element',
    `mutate:
  foreach:
  - list: request.object.spec.containers
    context:
${context.replace(/^/gm, '    ')}
${preconditions.replace(/^/gm, '    ')}
    patchesJson6902: |-
${steps.replace(/^/gm, '      ')}`,
  );
}

const pod = (containers: JsonObject[]): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', labels: { team: 'a' } },
  spec: { containers },
});

const PODS: JsonObject[] = [
  pod([{ name: 'app', image: 'nginx:1.25' }]),
  pod([{ name: 'app', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] }, { name: 'side', image: 'registry.example.com/side' }]),
  pod([{ name: 'one', image: 'a' }, { name: 'two', image: 'b', env: [] }, { name: 'three', image: 'c', env: [{ name: 'X', value: 'x' }] }]),
];

const CASES: [string, string, string, string?][] = [
  [
    'a value template naming the element index',
    `- name: at
  variable:
    value: /spec/containers/{{ elementIndex }}`,
    `- op: add
  path: /spec/containers/{{ elementIndex }}/env
  value: [{name: AT, value: "{{ at }}"}]`,
  ],
  [
    'a jmesPath over the element',
    `- name: image
  variable:
    jmesPath: element.image`,
    `- op: add
  path: /spec/containers/{{ elementIndex }}/imagePullPolicy
  value: "{{ image }}"`,
  ],
  [
    'a jmesPath with a default, read by the preconditions',
    `- name: first
  variable:
    jmesPath: element.env[0].name
    default: none`,
    `- op: add
  path: /spec/containers/{{ elementIndex }}/workingDir
  value: "/env-{{ first }}"`,
    `preconditions:
  all:
  - key: "{{ first }}"
    operator: NotEquals
    value: X`,
  ],
  [
    'an entry that fails for elements without env, read by no one',
    `- name: first
  variable:
    jmesPath: element.env[0].name`,
    `- op: add
  path: /spec/containers/{{ elementIndex }}/workingDir
  value: /fixed`,
  ],
  [
    'two entries, the second reading the first',
    `- name: name
  variable:
    jmesPath: element.name
- name: greeting
  variable:
    value: "hello-{{ name }}"`,
    `- op: add
  path: /spec/containers/{{ elementIndex }}/workingDir
  value: "/{{ greeting }}"`,
  ],
];

describe('Kyverno foreach context entries, to MAP', () => {
  for (const [what, context, steps, preconditions] of CASES) {
    it(`${what}: MAP gives what Kyverno gives`, () => {
      const source = policy(context, steps, preconditions);
      const map = toMap(source);
      for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
    });
  }

  it('an entry that fails (null without a default) fails the rule where it is read, in both', () => {
    const source = policy(
      CASES[3]![1],
      `- op: add
  path: /spec/containers/{{ elementIndex }}/workingDir
  value: "/{{ first }}"`,
    );
    const map = toMap(source);
    for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
    expect(outcome(source, PODS[0]!)).toEqual({ denied: true });
    expect(outcome(source, PODS[2]!)).toEqual({ denied: true });
  });

  it('a default Kyverno takes where the query fails (not only where a key is missing) is refused, not translated', () => {
    // length(null) fails in Kyverno's JMESPath, so the entry is 0 for a container without env; CEL cannot
    // fall back on the error of its translation.
    const source = policy(
      `- name: count
  variable:
    jmesPath: length(element.env)
    default: 0`,
      `- op: add
  path: /spec/containers/{{ elementIndex }}/workingDir
  value: "/env-{{ count }}"`,
    );
    expect(outcome(source, PODS[0]!)).toMatchObject({ spec: { containers: [{ workingDir: '/env-0' }] } });
    expect(refusal(source)).toContain('the default of the context entry count, which Kyverno takes where the query "length(element.env)" fails');
  });

  it("a rule's own context entry with such a default is refused too", () => {
    const source = podRule(
      'rule-context',
      `context:
- name: count
  variable: {jmesPath: length(request.object.spec.volumes), default: 0}
mutate:
  patchStrategicMerge:
    metadata: {labels: {volumes: "v{{ count }}"}}`,
    );
    expect(outcome(source, PODS[0]!)).toMatchObject({ metadata: { labels: { volumes: 'v0' } } });
    expect(refusal(source)).toContain('the default of the context entry count');
  });

  it("entries read by a strategic merge of the iterated element selected by its name: MAP and MutatingPolicy give Kyverno's result", () => {
    // The merge moves each merged element to the front; its edits are a second loop over the moved indices,
    // where the entries (written over the first loop's element) are bound again to the element edited.
    for (const order of ['Ascending', 'Descending']) {
      const source = podRule(
        'merge-by-name',
        `mutate:
  foreach:
  - list: request.object.spec.containers
    order: ${order}
    context:
    - name: dir
      variable:
        value: "/work/{{ element.name }}-{{ elementIndex }}"
    patchStrategicMerge:
      spec:
        containers:
        - (name): "{{ element.name }}"
          workingDir: "{{ dir }}"`,
      );
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${order} ${to}`).toEqual(outcome(source, p));
      }
    }
  });

  it('a patch path computed from an entry is refused (the element it writes is not known), not translated', () => {
    const source = policy(CASES[0]![1], `- op: add
  path: "{{ at }}/workingDir"
  value: /x`);
    expect(refusal(source)).toContain('a foreach JSON patch with a path outside the iterated element');
  });

});

describe('a context entry that reads the cluster', () => {
  const source = podRule(
    'reads-cluster',
    `context:
- name: dictionary
  configMap:
    name: settings
    namespace: kube-system
mutate:
  patchStrategicMerge:
    metadata:
      labels:
        zone: "{{ dictionary.data.zone }}"`,
  );

  it('is refused to MAP as what it cannot express, and read through resource.Get by a MutatingPolicy', () => {
    const toMapDiagnostic = translate(source, 'map', 'error').diagnostics.find((d) => d.severity === 'error');
    expect(toMapDiagnostic?.message).toContain('cannot express the context entry dictionary, which reads the cluster');
    expect(refusal(source)).toContain('cannot express');
    // Replayed against a cluster in test/conformance/chainsaw-cluster.test.ts.
    const toMpol = translate(source, 'kyverno-mpol', 'error');
    expect(toMpol.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(toMpol.text).toContain('resource.Get("v1", "configmaps", "kube-system", "settings")');
  });
});
