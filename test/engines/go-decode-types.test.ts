/**
 * The Go type errors of kube-apiserver's decode of a built-in kind (src/merge/ssa/go-decode-types.ts): as
 * encoding/json words them, first in document order, an UnmarshalJSON error ending the decode; and where they
 * apply: a MAP JSONPatch result (each path of the decoder: the whole document, a copy-on-write step, in-place
 * sets after an ApplyConfiguration), a Kyverno MutatingPolicy's patched object, a conformance case's object.
 */
import { describe, expect, it } from 'vitest';
import { builtinDecodeError, REFERENCE_TYPED_DECODER } from '../../src/engines/ssa.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import { createRuntime } from '../../src/runtime/create.js';
import { deriveRuntime } from '../../src/runtime/runtime.js';
import { applyConfiguration, jsonPatch, mapPolicies } from '../support/map-policy.js';
import { policiesOf } from '../support/policies.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const SERVICE = { group: '', version: 'v1', kind: 'Service' };
const pod = (spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', ...metadata },
  spec: { containers: [{ name: 'app', image: 'i' }], ...spec },
});

describe('the Go decode of a built-in kind', () => {
  it('words a value of the wrong type as encoding/json does, with the struct and the fields above it', () => {
    const cases: [JsonValue, string][] = [
      [pod({}, { labels: { app: 1 } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      [pod({ containers: [{ name: 'app', image: 'i', ports: [{ containerPort: '80' }] }] }), 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
      [pod({ nodeSelector: ['a'] }), 'json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of type map[string]string'],
      [{ ...pod(), spec: 'none' }, 'json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec'],
      [pod({ hostNetwork: 'yes' }), 'json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool'],
      [pod({ containers: { name: 'app' } }), 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container'],
      [['a'], 'json: cannot unmarshal array into Go value of type v1.Pod'],
    ];
    for (const [object, message] of cases) expect(builtinDecodeError(object, POD), JSON.stringify(object)).toBe(message);
  });

  it('takes null anywhere, ignores undeclared fields, and decodes the types with an UnmarshalJSON of their own', () => {
    const fine = [
      pod({ nodeSelector: null, containers: [{ name: 'app', image: null, ports: null }] }, { labels: { a: null } }),
      pod({ undeclared: { any: 1 } }, { undeclared: true }),
      pod({ containers: [{ name: 'app', image: 'i', resources: { limits: { cpu: '500m', memory: 2 } } }] }),
      pod({}, { creationTimestamp: '2026-01-01T00:00:00Z' }),
    ];
    for (const object of fine) expect(builtinDecodeError(object, POD), JSON.stringify(object)).toBeUndefined();
    const service = (targetPort: JsonValue): JsonObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } });
    expect(builtinDecodeError(service('http'), SERVICE)).toBeUndefined();
    expect(builtinDecodeError(service(8080), SERVICE)).toBeUndefined();
    expect(builtinDecodeError(service(true), SERVICE)).toBe('json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32');
    expect(builtinDecodeError(service(1.5), SERVICE)).toBe('json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32');
    const quantity = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    expect(builtinDecodeError(pod({ containers: [{ name: 'app', resources: { limits: { cpu: 'lots' } } }] }), POD)).toBe(quantity);
    expect(builtinDecodeError(pod({}, { creationTimestamp: 5 }), POD)).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string');
  });

  it('returns the first type error in document order, unless an UnmarshalJSON error ends the decode', () => {
    expect(builtinDecodeError(pod({ hostNetwork: 1 }, { labels: { a: 1 } }), POD)).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
    const fatalAfter = pod({ hostNetwork: 1, containers: [{ name: 'app', resources: { limits: { cpu: 'lots' } } }] });
    expect(builtinDecodeError(fatalAfter, POD)).toMatch(/^quantities must match/);
  });

  it('leaves custom resources and kinds without a schema alone', () => {
    expect(builtinDecodeError({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { size: 'big' } }, { group: 'example.com', version: 'v1', kind: 'Widget' })).toBeUndefined();
  });
});

describe('a JSONPatch result that does not decode', () => {
  // The reference decoder takes no in-place patch: each result is a copy-on-write edit of the one before.
  const runtimes = [createRuntime(), deriveRuntime(createRuntime(), { typedDecoder: REFERENCE_TYPED_DECODER })];
  const denied = (mutations: string[], object: JsonObject, interpret: boolean, runtime = runtimes[0]!) => {
    const r = apply(mapPolicies('decode', { mutations }), { object, operation: 'CREATE' }, { trace: false, interpret, runtime });
    return { allowed: r.allowed, messages: r.diagnostics.map((d) => d.message) };
  };
  const step = (path: string, value: string) => `JSONPatch{op: "add", path: "${path}", value: ${value}}`;

  it('denies the request, whether the value is set on the whole document, by a copy-on-write step or in place', () => {
    const labels = 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string';
    const cases: [string[], JsonObject, string][] = [
      [[jsonPatch(`[${step('/metadata/labels', '{"a": 1}')}]`)], pod(), labels],
      [[jsonPatch(`[${step('/metadata/labels/a', '1')}]`)], pod({}, { labels: { b: 'c' } }), labels],
      // The ApplyConfiguration's maps are the run's: the JSONPatch writes into them in place.
      [[applyConfiguration('Object{metadata: Object.metadata{labels: {"x": "y"}}}'), jsonPatch(`[${step('/metadata/labels/a', '1')}]`)], pod(), labels],
      [[jsonPatch(`[${step('/metadata/labels/b', '"ok"')}, ${step('/spec/hostNetwork', '"yes"')}]`)], pod({}, { labels: {} }), 'json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool'],
      // The second patch writes into the maps the first one copied, after a decode of the first one's result.
      [[jsonPatch(`[${step('/metadata/labels/b', '"ok"')}]`), jsonPatch(`[${step('/metadata/labels/a', '1')}]`)], pod({}, { labels: {} }), labels],
      [[jsonPatch(`[${step('/spec/containers/0/resources', '{"limits": {"cpu": "lots"}}')}]`)], pod(), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ];
    for (const [mutations, object, message] of cases) {
      for (const runtime of runtimes) {
        for (const interpret of [false, true]) expect(denied(mutations, object, interpret, runtime), `${mutations.join('\n')} interpret=${interpret}`).toEqual({ allowed: false, messages: [message] });
      }
    }
  });

  it('allows what decodes, null values included', () => {
    const mutations = [applyConfiguration('Object{metadata: Object.metadata{labels: {"x": "y"}}}'), jsonPatch(`[${step('/metadata/labels/a', '"1"')}, ${step('/spec/nodeSelector', 'null')}]`)];
    for (const runtime of runtimes) for (const interpret of [false, true]) expect(denied(mutations, pod(), interpret, runtime)).toEqual({ allowed: true, messages: [] });
  });
});

/** A Kyverno MutatingPolicy `name` on Pod CREATEs running `mutations` (mpolJsonPatch, mpolApplyConfiguration). */
function mutatingPolicy(name: string, mutations: string[], failurePolicy?: 'Ignore'): string {
  return `apiVersion: policies.kyverno.io/v1alpha1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
${failurePolicy ? `  failurePolicy: ${failurePolicy}\n` : ''}  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
${mutations.join('')}`;
}

const mpolJsonPatch = (expression: string) => `  - patchType: JSONPatch\n    jsonPatch:\n      expression: '${expression}'\n`;
const mpolApplyConfiguration = (expression: string) => `  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: '${expression}'\n`;

describe("a Kyverno MutatingPolicy's patched object", () => {
  it('is denied when it does not decode, and pruned of undeclared fields when it does', () => {
    const policy = (value: string) => mutatingPolicy('decode', [mpolJsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels", value: ${value}}]`)]);
    const run = (value: string) => apply(policiesOf('decode.yaml', policy(value)), { object: pod(), operation: 'CREATE' }, { trace: false, runtime: createRuntime() });
    const bad = run('{"a": 1}');
    expect(bad.allowed).toBe(false);
    expect(bad.diagnostics.map((d) => d.message)).toEqual(['json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string']);
    const good = run('{"a": "1"}');
    expect(good.allowed).toBe(true);
    expect((good.object as JsonObject).metadata).toEqual({ name: 'p', namespace: 'ns', labels: { a: '1' } });
  });
});

describe("a Kyverno MutatingPolicy's result, decoded once per policy", () => {
  // Kyverno registers a webhook per MutatingPolicy and answers with the patch of all its mutations;
  // kube-apiserver decodes that result, not each mutation's.
  const policy = (name: string, expressions: string[]) => mutatingPolicy(name, expressions.map(mpolJsonPatch));
  const run = (text: string, interpret: boolean) => apply(policiesOf('once.yaml', text), { object: pod(), operation: 'CREATE' }, { trace: false, interpret, runtime: createRuntime() });

  it('lets a later mutation correct a value an earlier one wrote that would not decode', () => {
    const text = policy('correct', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": 1}}]', '[JSONPatch{op: "replace", path: "/metadata/labels/a", value: "1"}]']);
    for (const interpret of [false, true]) {
      const r = run(text, interpret);
      expect(r.allowed).toBe(true);
      expect((r.object as JsonObject).metadata).toEqual({ name: 'p', namespace: 'ns', labels: { a: '1' } });
    }
  });

  it('shows a later mutation of the same policy an undeclared field, which the decode then drops', () => {
    const marks = '[JSONPatch{op: "add", path: "/spec/marker", value: "x"}]';
    const reads = 'has(object.spec.marker) ? [JSONPatch{op: "add", path: "/metadata/labels", value: {"seen": "yes"}}] : []';
    for (const interpret of [false, true]) {
      const same = run(policy('same', [marks, reads]), interpret);
      expect(same.allowed).toBe(true);
      expect((same.object as JsonObject).metadata).toEqual({ name: 'p', namespace: 'ns', labels: { seen: 'yes' } });
      expect((same.object as JsonObject).spec).toEqual((pod().spec as JsonObject));
      // Two policies are two webhooks: the second finds the first's result decoded.
      const apart = run(`${policy('first', [marks])}---\n${policy('second', [reads])}`, interpret);
      expect(apart.allowed).toBe(true);
      expect(apart.object).toEqual(pod());
    }
  });

  it('still refuses a result that does not decode, whichever mutation wrote it', () => {
    const text = policy('late', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "1"}}]', '[JSONPatch{op: "add", path: "/metadata/labels/b", value: 2}]']);
    for (const interpret of [false, true]) {
      const r = run(text, interpret);
      expect(r.allowed).toBe(false);
      expect(r.diagnostics.map((d) => d.message)).toEqual(['json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string']);
    }
  });
});

describe("an ApplyConfiguration's merged object converted back into its Go type", () => {
  const quantity = "unable to convert unstructured object to /v1, Kind=Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const limits = (cpu: string) => applyConfiguration(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", resources: Object.spec.containers.resources{limits: {"cpu": ${cpu}}}}]}}`);
  // The containers as a list the template does not build (a map() over the object's): walked value by value.
  const mapped = (cpu: string) => applyConfiguration(`Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, resources: Object.spec.containers.resources{requests: {"cpu": ${cpu}}}})}}`);
  const run = (mutations: string[], failurePolicy: 'Fail' | 'Ignore', interpret: boolean) => {
    const r = apply(mapPolicies('convert', { failurePolicy, mutations }), { object: pod(), operation: 'CREATE' }, { trace: false, interpret });
    return { allowed: r.allowed, messages: r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message.replace(/^.*denied request: /, '')), object: r.object };
  };

  it('fails the mutation on a value a type with its own UnmarshalJSON refuses, as its failure policy says', () => {
    for (const interpret of [false, true]) {
      for (const mutation of [limits('"lots"'), mapped('"1 core"')]) {
        expect(run([mutation], 'Fail', interpret), `${mutation} interpret=${interpret}`).toMatchObject({ allowed: false, messages: [quantity] });
        const ignored = run([applyConfiguration('Object{metadata: Object.metadata{labels: {"a": "b"}}}'), mutation], 'Ignore', interpret);
        expect(ignored.allowed).toBe(true);
        expect(ignored.object).toEqual(pod({}, { labels: { a: 'b' } }));
      }
    }
  });

  it('words an IntOrString the conversion refuses as json.Unmarshal does alone (no decoder around it)', () => {
    const probe = applyConfiguration('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: dyn(true)}}}]}}');
    for (const interpret of [false, true]) {
      expect(run([probe], 'Fail', interpret)).toMatchObject({ allowed: false, messages: ['unable to convert unstructured object to /v1, Kind=Pod: json: cannot unmarshal bool into Go value of type int32'] });
    }
  });

  it('merges what converts', () => {
    for (const interpret of [false, true]) {
      expect(run([limits('"500m"')], 'Fail', interpret).object).toEqual(pod({ containers: [{ name: 'app', image: 'i', resources: { limits: { cpu: '500m' } } }] }));
      expect(run([mapped('"2"')], 'Fail', interpret).object).toEqual(pod({ containers: [{ name: 'app', image: 'i', resources: { requests: { cpu: '2' } } }] }));
    }
  });
});

describe("a Kyverno MutatingPolicy's merged ApplyConfiguration", () => {
  it('is refused at kube-apiserver\'s decode when a value does not decode, and kept when it does', () => {
    const policy = (cpu: string) =>
      mutatingPolicy('decode', [mpolApplyConfiguration(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", resources: Object.spec.containers.resources{limits: {"cpu": ${cpu}}}}]}}`)], 'Ignore');
    const run = (cpu: string) => apply(policiesOf('decode.yaml', policy(cpu)), { object: pod(), operation: 'CREATE' }, { trace: false });
    const bad = run('"lots"');
    expect(bad.allowed).toBe(false);
    expect(bad.diagnostics.map((d) => d.message)).toEqual(["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]);
    const good = run('"250m"');
    expect(good.allowed).toBe(true);
    expect(good.object).toEqual(pod({ containers: [{ name: 'app', image: 'i', resources: { limits: { cpu: '250m' } } }] }));
  });
});
