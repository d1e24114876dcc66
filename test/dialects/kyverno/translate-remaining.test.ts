/**
 * Kyverno constructs translated to CEL since the last `yet` list of issue 10, each re-executed: the MAP
 * generated from the rule must give what our Kyverno engine gives on every object (the chainsaw cases they
 * come from: cascading-mutation, jmespath-with-special-chars, patchesjson6902-simple, nested-foreach
 * remove-all-env-vars, deferred two-rules).
 */
import { describe, expect, it } from 'vitest';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { docs } from '../map/support.js';
import { outcome, refusal, toMap } from '../map/kyverno-support.js';

function kyverno(rules: string): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: p}
spec:
  rules:
${rules.replace(/^/gm, '  ')}`;
  const r = kyvernoDialect.parse(docs(text));
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.policies;
}

function pod(spec: JsonObject, labels?: JsonObject): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...(labels ? { labels } : {}) }, spec };
}

/** The MAP agrees with the engine on every object. */
function sameOnEach(policies: Policy[], objects: JsonValue[]): void {
  const map = toMap(policies);
  for (const o of objects) expect(outcome(map, o), JSON.stringify(o)).toEqual(outcome(policies, o));
}

const c = (name: string, image: string, extra: JsonObject = {}): JsonObject => ({ name, image, ...extra });

describe('a condition anchor whose value is a list of patterns', () => {
  const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchStrategicMerge:
      metadata:
        labels:
          type: database
      spec:
        (containers):
        - (image): "*cassandra* | *mongo*"
`);
  it('holds when an element matches and none fails otherwise (elements whose own condition fails are passed over)', () => {
    sameOnEach(policies, [
      pod({ containers: [c('a', 'cassandra:1')] }),
      pod({ containers: [c('a', 'nginx'), c('b', 'mongo:4')] }),
      pod({ containers: [c('a', 'nginx')] }),
      pod({ containers: [] }),
      pod({ containers: [{ name: 'no-image' }] }),
      pod({ containers: [{ name: 'no-image' }, c('b', 'mongo')] }),
      pod({}),
      pod({ containers: [c('a', 'my-cassandra-and-mongo')] }),
    ]);
  });

  it('refuses a list that Kyverno would merge into the object, or index past (two anchored elements)', () => {
    const two = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchStrategicMerge:
      metadata: {labels: {type: database}}
      spec:
        (containers):
        - (image): "*a*"
        - (image): "*b*"
`);
    expect(refusal(two)).toMatch(/not yet.*condition \(containers\) whose value Kyverno also merges into the object \(a list that is not one anchored element\)/);
  });
});

describe('a variable no context entry binds', () => {
  it('reads as absent: null in a function argument, NotFound alone', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  mutate:
    patchStrategicMerge:
      data:
        lenient: "{{ to_string(var) }}"
        default: "{{ var || 'none' }}"
`);
    sameOnEach(policies, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } }]);
    const strict = kyverno(`- name: r
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  mutate:
    patchStrategicMerge:
      data:
        strict: "{{ missing.field }}"
`);
    sameOnEach(strict, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]);
  });

  it('names a CEL variable after a context entry that is a CEL reserved word', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  context:
  - name: var
    variable: {value: test}
  mutate:
    patchStrategicMerge:
      data:
        one: "{{ var }}"
`);
    sameOnEach(policies, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]);
  });
});

describe('a hole nested in another as a raw string literal', () => {
  it('substitutes the inner text into the string; a text that would end the literal fails as Kyverno fails', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchStrategicMerge:
      metadata:
        annotations:
          zone: "{{ to_upper('{{@}}') }}"
`);
    const withZone = (zone: string): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: { zone } }, spec: {} });
    sameOnEach(policies, [withZone('frankfurt'), withZone('eu-west-1'), withZone("it's")]);
  });
});

describe('patchesJson6902 add through a list shorter than its index', () => {
  it('pads the list with nulls and creates the element, as evanphx v5 ensurePathExists does', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchesJson6902: |-
      - op: add
        path: /spec/containers/2/env/-
        value: {name: K, value: v}
`);
    sameOnEach(policies, [
      pod({ containers: [c('a', 'x'), c('b', 'y'), c('c', 'z', { env: [{ name: 'E' }] })] }),
      pod({ containers: [c('a', 'x'), c('b', 'y'), c('c', 'z')] }),
      pod({ containers: [c('a', 'x')] }),
      pod({ containers: [] }),
      pod({}),
    ]);
  });
});

describe('a variable beside text in a plain scalar of a JSON patch', () => {
  it('is the text YAML reads back: a YAML 1.1 boolean word becomes a boolean', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchesJson6902: |-
      - op: add
        path: /metadata/annotations
        value: {k: {{ request.object.metadata.labels.a }}s}
`);
    sameOnEach(policies, ['tru', 'ye', 'o', 'value'].map((a) => pod({}, { a })));
    // Kyverno writes the boolean (kube-apiserver then refuses to decode it as an annotation); MAP's decode refuses it.
    const annotations = (r: ReturnType<typeof apply>) => ((r.object as JsonObject).metadata as JsonObject).annotations;
    expect(annotations(apply(policies, { object: pod({}, { a: 'ye' }), operation: 'CREATE' }))).toEqual({ k: true });
    expect(annotations(apply(policies, { object: pod({}, { a: 'tru' }), operation: 'CREATE' }))).toEqual({ k: 'trus' });
    const map = apply(toMap(policies), { object: pod({}, { a: 'ye' }), operation: 'CREATE' });
    expect(map.diagnostics.map((d) => d.message)).toEqual(['json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.annotations of type string']);
  });

  it('refuses a text that begins with what YAML may read as a number', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    patchesJson6902: |-
      - op: add
        path: /metadata/annotations
        value: {k: 1{{ request.object.metadata.name }}}
`);
    expect(refusal(policies)).toMatch(/plain YAML scalar of a JSON patch whose text YAML may read as something other than that string/);
  });
});

describe('a nested foreach', () => {
  it('removes every env entry of every container (inner loop Descending)', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    foreach:
    - list: request.object.spec.containers
      foreach:
      - list: element0.env
        order: Descending
        patchesJson6902: |-
          - path: /spec/containers/{{elementIndex0}}/env/{{elementIndex1}}
            op: remove
`);
    const env = (...names: string[]) => ({ env: names.map((name) => ({ name, value: name })) });
    sameOnEach(policies, [
      pod({ containers: [c('a', 'x', env('ONE', 'TWO')), c('b', 'y', env('THREE'))] }),
      pod({ containers: [c('a', 'x', env())] }),
      pod({ containers: [] }),
    ]);
  });

  it('runs a strategic merge that reads no variable once, when the loop runs at all', () => {
    const policies = kyverno(`- name: r
  match: {any: [{resources: {kinds: [Pod]}}]}
  mutate:
    foreach:
    - list: request.object.spec.containers
      patchStrategicMerge:
        metadata:
          labels:
            looped: "yes"
`);
    sameOnEach(policies, [pod({ containers: [c('a', 'x'), c('b', 'y')] }), pod({ containers: [] })]);
  });
});
