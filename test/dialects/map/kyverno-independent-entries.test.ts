/**
 * Several foreach entries of one rule whose preconditions or context read the object: Kyverno tests them
 * once, then runs the entries in turn. Where no entry reads what an earlier one writes, they become one
 * mutation computed from the object as the rule finds it (kyverno/policies remove-hostpath-volumes); where one
 * does, each is its own mutation where the conditions and variables, tested again before each, read nothing
 * an entry writes, and they are refused otherwise. Translated to MAP and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { generateMap } from '../../../src/dialects/map/generate.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function rule(body: string): Policy[] {
  return podRule('entries', body);
}

const pod = (spec: JsonObject, labels?: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod', ...(labels ? { labels } : {}) }, spec });

const PODS: JsonObject[] = [
  pod({ containers: [{ name: 'app', image: 'nginx' }] }),
  pod(
    {
      containers: [
        { name: 'app', image: 'nginx', volumeMounts: [{ name: 'host', mountPath: '/h' }, { name: 'data', mountPath: '/d' }] },
        { name: 'side', image: 'busybox', volumeMounts: [{ name: 'host', mountPath: '/h' }] },
      ],
      initContainers: [{ name: 'init', image: 'alpine' }],
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'host', hostPath: { path: '/var' } }],
    },
    { inject: 'yes' },
  ),
  pod({ containers: [{ name: 'a', image: 'x', volumeMounts: [{ name: 'data', mountPath: '/d' }] }], volumes: [{ name: 'data', emptyDir: {} }] }, { inject: 'no' }),
];

// kyverno/policies remove-hostpath-volumes: the names read by the preconditions keep their value while the
// first entry removes the volumes they were read from.
const HOSTPATH = `context:
- name: hostpathvolnames
  variable:
    jmesPath: request.object.spec.volumes[?hostPath].name
preconditions:
  all:
  - key: "{{ length(hostpathvolnames) }}"
    operator: GreaterThan
    value: 0
mutate:
  foreach:
  - list: request.object.spec.volumes[]
    order: Descending
    preconditions:
      all:
      - key: hostPath
        operator: AnyIn
        value: "{{ element.keys(@) }}"
    patchesJson6902: |-
      - path: /spec/volumes/{{elementIndex}}
        op: remove
  - list: request.object.spec.containers[]
    foreach:
    - list: " element.volumeMounts || \`[]\` "
      order: Descending
      preconditions:
        all:
        - key: "{{element.name}}"
          operator: AnyIn
          value: "{{ hostpathvolnames }}"
      patchesJson6902: |-
        - path: /spec/containers/{{elementIndex0}}/volumeMounts/{{elementIndex1}}
          op: remove`;

const TWO_LISTS = `preconditions:
  all:
  - key: "{{ request.object.metadata.labels.inject || '' }}"
    operator: Equals
    value: "yes"
mutate:
  foreach:
  - list: request.object.spec.containers
    patchStrategicMerge:
      spec:
        containers:
        - (name): "{{ element.name }}"
          imagePullPolicy: Always
  - list: request.object.spec.initContainers || \`[]\`
    patchStrategicMerge:
      spec:
        initContainers:
        - (name): "{{ element.name }}"
          imagePullPolicy: IfNotPresent`;

describe('several Kyverno foreach entries under conditions that read the object, to MAP', () => {
  for (const [what, body] of [
    ['names read by the preconditions, then the volumes and the mounts removed (kyverno/policies remove-hostpath-volumes)', HOSTPATH],
    ['containers and init containers under a precondition on a label', TWO_LISTS],
  ] as const) {
    it(`${what}: one mutation, and MAP gives what Kyverno gives`, () => {
      const source = rule(body);
      const policy = generateMap(source).documents.find((d) => (d as JsonObject).kind === 'MutatingAdmissionPolicy') as JsonObject;
      expect(((policy.spec as JsonObject).mutations as JsonObject[]).length).toBe(1);
      const map = toMap(source);
      for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
    });
  }

  it('the mounts of the removed volumes go too (the names keep the value the preconditions read)', () => {
    const spec = (outcome(toMap(rule(HOSTPATH)), PODS[1]!) as JsonObject).spec as JsonObject;
    expect(spec.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
    expect((spec.containers as JsonObject[]).map((c) => c.volumeMounts)).toEqual([[{ name: 'data', mountPath: '/d' }], []]);
  });

  // Each entry sees what the one before wrote (Kyverno re-reads the list from the patched resource): as
  // separate mutations, where the precondition, tested again before each, reads nothing they write.
  const READS_EARLIER = (precondition: string) => `preconditions:
  all:
  - key: "${precondition}"
    operator: NotEquals
    value: "stop"
mutate:
  foreach:
  - list: request.object.spec.containers
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/imagePullPolicy
        op: add
        value: Always
  - list: request.object.spec.containers
    preconditions:
      all:
      - key: "{{ element.imagePullPolicy || '' }}"
        operator: Equals
        value: Always
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/workingDir
        op: add
        value: /w`;

  it('an entry that reads what an earlier one writes, under a precondition that reads nothing they write: a mutation each, and MAP gives what Kyverno gives', () => {
    const source = rule(READS_EARLIER("{{ request.object.metadata.labels.inject || '' }}"));
    const policy = generateMap(source).documents.find((d) => (d as JsonObject).kind === 'MutatingAdmissionPolicy') as JsonObject;
    expect(((policy.spec as JsonObject).mutations as JsonObject[]).length).toBe(2);
    const map = toMap(source);
    const pods = [...PODS, pod({ containers: [{ name: 'a', image: 'x', imagePullPolicy: 'Never' }] }, { inject: 'stop' })];
    for (const p of pods) expect(outcome(map, p)).toEqual(outcome(source, p));
    // The second entry saw the first one's writes.
    expect(((outcome(map, PODS[0]!) as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'app', image: 'nginx', imagePullPolicy: 'Always', workingDir: '/w' }]);
  });

  it('the same with a context entry the precondition reads (the precondition then guards the entries inside the rule)', () => {
    const source = rule(`context:
- name: inject
  variable:
    jmesPath: request.object.metadata.labels.inject || ''
${READS_EARLIER('{{ inject }}')}`);
    const policy = generateMap(source).documents.find((d) => (d as JsonObject).kind === 'MutatingAdmissionPolicy') as JsonObject;
    expect(((policy.spec as JsonObject).mutations as JsonObject[]).length).toBe(2);
    const map = toMap(source);
    for (const p of [...PODS, pod({ containers: [{ name: 'a', image: 'x' }] }, { inject: 'stop' })]) expect(outcome(map, p)).toEqual(outcome(source, p));
  });

  it('an entry that reads what an earlier one writes, under a precondition that reads what they write, is refused', () => {
    const source = rule(READS_EARLIER("{{ request.object.spec.containers[0].imagePullPolicy || '' }}"));
    expect(refusal(source)).toContain('where an entry reads what an earlier one writes');
  });

  it('a variable the preconditions may skip (any) is read by the entry as it finds it: refused where an earlier entry writes there', () => {
    const source = rule(`context:
- name: count
  variable:
    jmesPath: length(request.object.spec.volumes || \`[]\`)
preconditions:
  any:
  - key: "{{ request.object.metadata.labels.inject || '' }}"
    operator: Equals
    value: "yes"
  - key: "{{ count }}"
    operator: GreaterThan
    value: 0
mutate:
  foreach:
  - list: request.object.spec.volumes || \`[]\`
    patchesJson6902: |-
      - path: /spec/volumes/{{elementIndex}}/name
        op: replace
        value: "v-{{ count }}"
  - list: request.object.spec.containers
    patchesJson6902: |-
      - path: /spec/containers/{{elementIndex}}/workingDir
        op: add
        value: "/{{ count }}"`);
    expect(refusal(source)).toContain('where an entry reads what an earlier one writes');
  });
});
