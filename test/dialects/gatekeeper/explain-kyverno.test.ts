/**
 * Kyverno policies to Gatekeeper: every construct the raisings leave is refused at its position with its
 * class (`cannot`: Gatekeeper has no way to say it; `yet`: it has, transmute does not), and the reason a
 * Gatekeeper user would accept. One snippet per refusal kind.
 */
import { describe, expect, it } from 'vitest';
import '../../../src/dialects/registry.js';
import { gatekeeperDialect } from '../../../src/dialects/gatekeeper/index.js';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';

function kyverno(rule: string, kinds = 'Pod'): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: p
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [${kinds}]
${rule}`;
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = kyvernoDialect.parse(docs.value, {});
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies;
}

function translate(policies: Policy[]) {
  let lowered = policies;
  for (const lower of gatekeeperDialect.lowerings) lowered = lower(lowered);
  return gatekeeperDialect.generate(lowered, { unsupported: 'error' });
}

function refusals(rule: string, kinds?: string): Diagnostic[] {
  return translate(kyverno(rule, kinds)).diagnostics.filter((d) => d.code === 'TM4001');
}

/** [what, rule (indented under the rule), class, message substring]. */
const CASES: [string, string, 'cannot' | 'yet', string][] = [
  [
    'a label set whether or not present',
    `    mutate:
      patchStrategicMerge:
        metadata: {labels: {team: a}}`,
    'cannot',
    'setting the label team whether or not it is present (AssignMetadata only adds a missing label, and Assign cannot change metadata)',
  ],
  [
    'a keyed element a strategic merge prepends',
    `    mutate:
      patchStrategicMerge:
        spec: {imagePullSecrets: [{name: regcred}]}`,
    'cannot',
    "spec.imagePullSecrets[name: \"regcred\"] (Gatekeeper's Assign appends a new keyed list element where Kyverno's strategic merge prepends it",
  ],
  [
    'a value computed from the object',
    `    mutate:
      patchStrategicMerge:
        spec: {hostname: "{{ request.object.metadata.labels.app }}-x"}`,
    'cannot',
    "spec.hostname computed from the value of request.object.metadata.labels.app read by {{request.object.metadata.labels.app}} (Gatekeeper assigns only constants, the object's name or namespace, and external data)",
  ],
  [
    "the object's name without a default",
    `    mutate:
      patchStrategicMerge:
        spec: {hostname: "{{ request.object.metadata.name }}"}`,
    'cannot',
    'Kyverno fails the rule when the object has no name yet, as with generateName',
  ],
  [
    'a precondition on a field value',
    `    preconditions:
      all:
      - key: "{{ request.object.spec.dnsPolicy }}"
        operator: Equals
        value: Default
    mutate:
      patchStrategicMerge:
        spec: {+(priorityClassName): low}`,
    'cannot',
    "Gatekeeper's pathTests test only whether a path exists; this precondition compares the value of request.object.spec.dnsPolicy",
  ],
  [
    'a precondition on a label without a default',
    `    preconditions:
      all:
      - key: "{{ request.object.metadata.labels.app }}"
        operator: Equals
        value: web
    mutate:
      patchStrategicMerge:
        spec: {+(priorityClassName): low}`,
    'cannot',
    'Kyverno fails the rule where the label app is missing',
  ],
  [
    'a global anchor',
    `    mutate:
      patchStrategicMerge:
        metadata: {annotations: {+(safe): "true"}}
        spec: {volumes: [{<(emptyDir): {}}]}`,
    'cannot',
    'the global anchor <(emptyDir)',
  ],
  [
    'a condition anchor with a pattern',
    `    mutate:
      patchStrategicMerge:
        spec: {(dnsPolicy): "Cluster*", priorityClassName: low}`,
    'cannot',
    "the condition (dnsPolicy): Cluster* at spec (Gatekeeper's pathTests test only whether a path exists",
  ],
  [
    'an add-if-absent anchor in every element of a list',
    `    mutate:
      patchStrategicMerge:
        spec: {containers: [{(name): "*", securityContext: {+(privileged): false}}]}`,
    'cannot',
    "Kyverno decides it on the list's first element",
  ],
  [
    'a JSON patch append',
    `    mutate:
      patchesJson6902: |-
        - {op: add, path: /spec/tolerations/-, value: {key: a, operator: Exists}}`,
    'cannot',
    'Kyverno appends the value even when the list already holds it; Gatekeeper appends only with ModifySet',
  ],
  [
    'a JSON patch replace',
    `    mutate:
      patchesJson6902: |-
        - {op: replace, path: /spec/priorityClassName, value: low}`,
    'cannot',
    'Kyverno fails the rule when the path is missing',
  ],
  [
    'a JSON patch removal',
    `    mutate:
      patchesJson6902: |-
        - {op: remove, path: /spec/priorityClassName}`,
    'cannot',
    'deleting spec.priorityClassName (no Gatekeeper mutator deletes a field',
  ],
  [
    'a JSON patch position',
    `    mutate:
      patchesJson6902: |-
        - {op: add, path: /spec/containers/0/image, value: nginx}`,
    'cannot',
    'the list position 0 in /spec/containers/0/image',
  ],
  [
    'a loop that removes elements',
    `    mutate:
      foreach:
      - list: request.object.spec.volumes[]
        order: Descending
        patchesJson6902: |-
          - {op: remove, path: "/spec/volumes/{{elementIndex}}"}`,
    'cannot',
    'removing the list element /spec/volumes/{{elementIndex}} (no Gatekeeper mutator deletes a list element by position',
  ],
  [
    'a loop in ascending order with a strategic merge',
    `    mutate:
      foreach:
      - list: request.object.spec.containers
        order: Ascending
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", image: x}]}`,
    'cannot',
    'so the loop reverses the list',
  ],
  [
    'a loop with a condition below the element',
    `    mutate:
      foreach:
      - list: request.object.spec.volumes
        patchStrategicMerge:
          spec: {volumes: [{(name): "{{ element.name }}", (emptyDir): {sizeLimit: 1Gi}, csi: {driver: x}}]}`,
    'cannot',
    'moves each patched element to the front of the list, so the others end up behind them',
  ],
  [
    "a loop reading Kyverno's image data",
    `    mutate:
      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge:
          spec: {containers: [{(name): "{{ element.name }}", image: "r.io/{{ images.containers.\\"{{element.name}}\\".path }}"}]}`,
    'cannot',
    "Kyverno's image data",
  ],
  [
    'a loop over a list a missing object lacks, without a default',
    `    mutate:
      foreach:
      - list: request.object.spec.tolerations
        patchesJson6902: |-
          - {op: add, path: "/spec/tolerations/{{elementIndex}}/effect", value: NoSchedule}`,
    'cannot',
    'Kyverno fails the rule when spec.tolerations is missing',
  ],
  [
    'a match on every kind',
    `    mutate:
      patchStrategicMerge:
        spec: {priorityClassName: low}`,
    'cannot',
    'a match on the kind pattern * (applyTo names exact kinds)',
  ],
  [
    'a match on a custom kind in every group',
    `    mutate:
      patchStrategicMerge:
        spec: {priorityClassName: low}`,
    'cannot',
    'applyTo names exact groups and versions',
  ],
  [
    'an exclusion by annotation',
    `    exclude:
      any:
      - resources:
          annotations: {skip: "true"}
    mutate:
      patchStrategicMerge:
        spec: {priorityClassName: low}`,
    'cannot',
    'an exclusion by annotations (Gatekeeper excludes by namespace only',
  ],
  [
    'a value Gatekeeper could state, from a context entry that is not a constant everywhere',
    `    context:
    - name: zone
      variable: {value: east}
    mutate:
      patchStrategicMerge:
        metadata: {annotations: {+(zone): "{{ zone }}-{{ request.object.metadata.name }}"}}`,
    'cannot',
    'computed from',
  ],
];

const KINDS: Record<string, string> = { 'a match on every kind': '"*"', 'a match on a custom kind in every group': 'Widget' };

describe('Gatekeeper refusals of Kyverno constructs', () => {
  for (const [what, rule, cls, message] of CASES) {
    it(`${what}: ${cls}`, () => {
      const found = refusals(rule, KINDS[what]);
      expect(found.length, JSON.stringify(found.map((d) => d.message))).toBeGreaterThan(0);
      expect(found[0]!.unsupported).toBe(cls);
      expect(found[0]!.message).toContain(message);
    });
  }

  it('keeps `yet` for what Gatekeeper could say: a label precondition with a default is a labelSelector', () => {
    const found = refusals(`    preconditions:
      all:
      - key: "{{ request.object.metadata.labels.app || '' }}"
        operator: Equals
        value: web
    mutate:
      patchStrategicMerge:
        spec: {+(priorityClassName): low}`);
    expect(found[0]!.unsupported).toBe('yet');
    expect(found[0]!.message).toContain('labelSelector');
  });

  it('says nothing of a context entry no op reads', () => {
    const g = translate(
      kyverno(`    context:
    - name: unused
      variable: {jmesPath: request.object.metadata.name}
    mutate:
      patchStrategicMerge:
        spec: {priorityClassName: low}`),
    );
    expect(g.diagnostics.filter((d) => d.code === 'TM4001')).toEqual([]);
    expect(g.text).toContain('location: spec.priorityClassName');
  });

  it('writes a precondition on the operation as applyTo operations', () => {
    const g = translate(
      kyverno(`    preconditions:
      any:
      - key: "{{ request.operation || 'BACKGROUND' }}"
        operator: AnyIn
        value: [CREATE]
    mutate:
      patchStrategicMerge:
        spec: {priorityClassName: low}`),
    );
    expect(g.diagnostics.filter((d) => d.code === 'TM4001')).toEqual([]);
    expect(g.text).toContain('operations:\n    - CREATE');
  });

  it('refuses a CREATE-only label add: AssignMetadata has no applyTo', () => {
    const found = refusals(`    preconditions:
      all:
      - key: "{{ request.operation }}"
        operator: Equals
        value: CREATE
    mutate:
      patchStrategicMerge:
        metadata: {labels: {+(team): a}}`);
    expect(found[0]!.unsupported).toBe('cannot');
    expect(found[0]!.message).toContain('adding a label or annotation on CREATE only (AssignMetadata has no applyTo');
  });
});
