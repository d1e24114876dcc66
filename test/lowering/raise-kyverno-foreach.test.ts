/**
 * The foreach raising: which loops become path operations on the whole list, which stay, and for every
 * raised loop the same objects as the loop itself gives (differentially, through the interpreter).
 */
import { describe, expect, it } from 'vitest';
import { kyvernoDialect } from '../../src/dialects/kyverno/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { objectList, raiseKyvernoForEach } from '../../src/lowering/raise-kyverno-foreach.js';
import { body, run } from './support.js';

function kyverno(foreach: string, kinds = 'Pod'): Policy {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: p
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [${kinds}]}}]}
    mutate:
      foreach:
${foreach}`;
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = kyvernoDialect.parse(docs.value, {});
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies[0]!;
}

const pod = (spec: JsonValue): JsonValue => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'dev' }, spec });

/** Pods whose lists are missing, empty, or hold elements with and without the patched fields. */
const PODS: JsonValue[] = [
  pod({ containers: [{ name: 'a', image: 'nginx' }] }),
  pod({ containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'redis', resources: { requests: { memory: '1Gi' } } }, { name: 'c', image: 'x', securityContext: { runAsUser: 0 } }] }),
  pod({ containers: [{ name: 'z', image: 'a', resources: { requests: { cpu: '1', memory: '2Gi' } } }, { name: 'y', image: 'b', resources: {} }], initContainers: [{ name: 'i', image: 'busybox' }] }),
  pod({ containers: [{ name: 'a', image: 'nginx' }], volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', configMap: { name: 'cm' } }] }),
  pod({ containers: [{ name: 'a', image: 'nginx', env: [{ name: 'E', value: '1' }] }], tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'j', operator: 'Exists', effect: 'NoSchedule' }] }),
];

function raisedBody(p: Policy): string {
  const [after] = raiseKyvernoForEach([p]);
  return after === p ? '(kept)' : body(after!);
}

function sameObjects(p: Policy, objects: JsonValue[] = PODS): void {
  const [after] = raiseKyvernoForEach([p]);
  expect(after).not.toBe(p);
  for (const o of objects) {
    const want = run(p, o);
    expect(want).not.toBe('error');
    expect(run(after!, o), JSON.stringify(o)).toEqual(want);
  }
}

describe('raise Kyverno foreach', () => {
  it('reads the list expression', () => {
    expect(objectList('request.object.spec.containers')).toEqual({ fields: ['spec', 'containers'], tolerant: false });
    expect(objectList('request.object.spec.volumes[]')).toEqual({ fields: ['spec', 'volumes'], tolerant: true });
    expect(objectList('request.object.spec."init-x" || `[]`')).toEqual({ fields: ['spec', 'init-x'], tolerant: true });
    expect(objectList("['dummy']")).toBeUndefined();
    expect(objectList('request.object.spec.containers[0].env')).toBeUndefined();
  });

  const RAISED: [string, string, string][] = [
    [
      'the element patched by its (name) anchor, Descending: every element, in place',
      `      - list: request.object.spec.containers
        patchStrategicMerge:
          spec:
            containers:
            - (name): "{{ element.name }}"
              imagePullPolicy: Always
              securityContext: {privileged: false}`,
      'set object.spec.containers[name: *].imagePullPolicy = "Always"\nset object.spec.containers[name: *].securityContext.privileged = false',
    ],
    [
      'a +() below the element, decided per element, beside a leaf written always',
      `      - list: "request.object.spec.containers[]"
        patchStrategicMerge:
          spec:
            containers:
            - (name): "{{element.name}}"
              imagePullPolicy: Always
              resources:
                requests: {+(memory): 100Mi, +(cpu): 100m}`,
      'set object.spec.containers[name: *].imagePullPolicy = "Always"\nset object.spec.containers[name: *].resources.requests.memory!absent = "100Mi"\nset object.spec.containers[name: *].resources.requests.cpu!absent = "100m"',
    ],
    [
      'the plain name form without anchors',
      `      - list: request.object.spec.containers
        patchStrategicMerge:
          spec:
            containers:
            - name: "{{ element.name }}"
              image: replaced`,
      'set object.spec.containers[name: *].image = "replaced"',
    ],
    [
      'JSON patch adds inside each element, in either order',
      `      - list: request.object.spec.containers
        patchesJson6902: |-
          - path: /spec/containers/{{elementIndex}}/securityContext
            op: add
            value: {"runAsNonRoot": true}`,
      'set object.spec.containers[name: *].securityContext = {"runAsNonRoot": true}',
    ],
    [
      'JSON patch adds on a tolerant list, selected by an element precondition',
      `      - list: request.object.spec.tolerations[]
        preconditions:
          all:
          - key: "{{ element.operator || '' }}"
            operator: Equals
            value: Exists
        patchesJson6902: |-
          - path: /spec/tolerations/{{elementIndex}}/effect
            op: add
            value: NoExecute`,
      'set object.spec.tolerations[operator == "Exists"].effect = "NoExecute"',
    ],
  ];
  for (const [what, foreach, want] of RAISED) {
    it(`raises ${what}, as the loop does`, () => {
      const p = kyverno(foreach);
      expect(raisedBody(p)).toBe(want);
      sameObjects(p);
    });
  }

  const LEFT: [string, string, string?][] = [
    [
      'Ascending order with a strategic merge (it reverses the list)',
      `      - list: request.object.spec.containers
        order: Ascending
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", image: x}]}`,
    ],
    [
      'a condition below the element (unpatched elements move behind)',
      `      - list: request.object.spec.volumes[]
        patchStrategicMerge:
          spec: {volumes: [{(name): "{{ element.name }}", (emptyDir): {}, csi: {driver: d}}]}`,
    ],
    [
      'an element precondition with a strategic merge',
      `      - list: request.object.spec.containers
        preconditions:
          all: [{key: "{{ element.image || '' }}", operator: Equals, value: nginx}]
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", imagePullPolicy: Always}]}`,
    ],
    [
      'only +() below the element (an element that has them all is left in place, behind the patched ones)',
      `      - list: "request.object.spec.containers[]"
        patchStrategicMerge:
          spec:
            containers:
            - (name): "{{element.name}}"
              resources:
                requests: {+(memory): 100Mi, +(cpu): 100m}`,
    ],
    [
      'a +() at the top of the element (decided on the first element)',
      `      - list: request.object.spec.containers
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", +(imagePullPolicy): Always}]}`,
    ],
    [
      'the plain name form with anchors below (every element gets a copy)',
      `      - list: request.object.spec.containers
        patchStrategicMerge:
          spec: {containers: [{name: "{{ element.name }}", securityContext: {+(privileged): false}}]}`,
    ],
    [
      'variables other than the element name',
      `      - list: request.object.spec.containers
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", image: "r.io/{{ element.image }}"}]}`,
    ],
    [
      'a list merged by another key',
      `      - list: request.object.spec.containers[0].ports[]
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", image: x}]}`,
    ],
    [
      'a list a custom kind replaces',
      `      - list: request.object.spec.items[]
        patchStrategicMerge:
          spec: {items: [{(name): "{{ element.name }}", x: y}]}`,
      'example.com/v1/Widget',
    ],
    [
      'a bare list that may be missing (the loop fails the rule)',
      `      - list: request.object.spec.tolerations
        patchesJson6902: |-
          - {path: "/spec/tolerations/{{elementIndex}}/effect", op: add, value: NoExecute}`,
    ],
    [
      'a JSON patch removing the element itself',
      `      - list: request.object.spec.volumes[]
        order: Descending
        patchesJson6902: |-
          - {path: "/spec/volumes/{{elementIndex}}", op: remove}`,
    ],
    [
      'a JSON patch whose value reads the element',
      `      - list: request.object.spec.containers
        patchesJson6902: |-
          - {path: "/spec/containers/{{elementIndex}}/args", op: add, value: ["{{ element.name }}"]}`,
    ],
    [
      'an element precondition that is not a keyed selection',
      `      - list: request.object.spec.containers
        preconditions:
          all: [{key: "{{ element.image }}", operator: Equals, value: nginx}]
        patchesJson6902: |-
          - {path: "/spec/containers/{{elementIndex}}/imagePullPolicy", op: add, value: Always}`,
    ],
  ];
  it('leaves only +() below the element because Kyverno then reorders the list', () => {
    const p = kyverno(`      - list: request.object.spec.containers
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", resources: {requests: {+(memory): 100Mi}}}]}`);
    // z already has memory: its copy is empty and dropped, y's is merged and moved to the front.
    const out = run(p, pod({ containers: [{ name: 'z', resources: { requests: { memory: '1Gi' } } }, { name: 'y' }] }));
    expect((out as { spec: { containers: { name: string }[] } }).spec.containers.map((c) => c.name)).toEqual(['y', 'z']);
  });

  for (const [what, foreach, kinds] of LEFT) {
    it(`leaves ${what}`, () => {
      const p = kyverno(foreach, kinds);
      expect(raiseKyvernoForEach([p])[0]).toBe(p);
    });
  }
});
