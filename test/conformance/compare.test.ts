import { describe, expect, it } from 'vitest';
import {
  compareObjects,
  describeDifference,
  firstDifference,
  normalizeMapObject,
  partialDifference,
  pointer,
  subsetDifference,
} from '../../src/conformance/compare.js';
import { tidy } from '../../src/dialects/kyverno/test-suite/tidy.js';
import type { JsonValue } from '../../src/ir/json.js';

const message = (d: ReturnType<typeof firstDifference>): string | undefined => (d ? describeDifference(d) : undefined);

describe('first difference', () => {
  it('names the JSON pointer and both values', () => {
    const expected = { spec: { containers: [{ name: 'a', image: 'x' }] } };
    const actual = { spec: { containers: [{ name: 'a', image: 'y' }] } };
    expect(message(firstDifference(expected, actual))).toBe('at /spec/containers/0/image: expected "x", got "y"');
  });

  it('reports missing and unexpected keys, and list length through the first absent element', () => {
    expect(message(firstDifference({ a: 1 }, {}))).toBe('at /a: expected 1, got nothing');
    expect(message(firstDifference({}, { b: [1] }))).toBe('at /b: expected nothing, got [1]');
    expect(message(firstDifference([1, 2], [1]))).toBe('at /1: expected 2, got nothing');
    expect(message(firstDifference({ 'a/b~c': 1 }, { 'a/b~c': 2 }))).toBe('at /a~1b~0c: expected 1, got 2');
  });

  it('ignores map key order but not list order, and treats __proto__ as an ordinary key', () => {
    expect(firstDifference({ a: 1, b: 2 }, { b: 2, a: 1 })).toBeUndefined();
    expect(firstDifference([1, 2], [2, 1])).toBeDefined();
    const withProto = JSON.parse('{"__proto__": {"x": 1}}') as JsonValue;
    expect(message(firstDifference(withProto, {}))).toBe('at /__proto__: expected {"x":1}, got nothing');
  });
});

describe('gatekeeper comparison', () => {
  it('compares after JSON normalisation of numbers and lets <uuid> stand for any UUID', () => {
    expect(compareObjects('gatekeeper', { n: 1000, id: '<uuid>' }, { n: 1000.0, id: '0f8fad5b-d9cb-469f-a165-70867728950e' })).toBeUndefined();
    expect(compareObjects('gatekeeper', { id: '<uuid>' }, { id: 'not-a-uuid' })).toBeDefined();
    expect(compareObjects('exact', { id: '<uuid>' }, { id: '0f8fad5b-d9cb-469f-a165-70867728950e' })).toBeDefined();
  });
});

describe('kyverno test comparison (tidy, then an empty merge patch)', () => {
  it('drops nulls and maps or lists that are or become empty', () => {
    expect(tidy({ a: null, b: {}, c: [], d: { e: { f: null } }, g: 0, h: '', i: false })).toEqual({ g: 0, h: '', i: false });
    expect(tidy({ a: null })).toBeUndefined();
  });

  it('passes when only empty or null fields differ, fails on any value', () => {
    expect(compareObjects('kyverno-cli', { metadata: { name: 'x', labels: {} } }, { metadata: { name: 'x', annotations: null } })).toBeUndefined();
    expect(message(compareObjects('kyverno-cli', { spec: { replicas: 3 } }, { spec: { replicas: 2 } }))).toBe('at /spec/replicas: expected 3, got 2');
    expect(compareObjects('kyverno-cli', { l: [1, 2] }, { l: [1, 2, 3] })).toBeDefined();
  });
});

describe('MAP comparison', () => {
  const typedActual = {
    metadata: { name: 'd', creationTimestamp: null, labels: {} },
    spec: { strategy: {}, template: { metadata: { creationTimestamp: null } } },
    status: {},
  };

  it('for built-in typed objects drops nulls, creationTimestamp and omitempty empties', () => {
    expect(compareObjects('map-typed', { metadata: { name: 'd' } }, typedActual)).toBeUndefined();
    expect(normalizeMapObject({ metadata: { creationTimestamp: '2024-01-01T00:00:00Z', name: 'x' } }, false)).toEqual({ metadata: { name: 'x' } });
  });

  it('for CRDs keeps empty maps and lists: they are values there', () => {
    expect(compareObjects('map-untyped', { spec: {} }, { spec: {} })).toBeUndefined();
    expect(message(compareObjects('map-untyped', { spec: { a: 1 } }, { spec: { a: 1, b: {} } }))).toBe('at /spec/b: expected nothing, got {}');
    expect(compareObjects('map-untyped', { spec: { a: 1 } }, { spec: { a: 1, b: null } })).toBeUndefined();
  });

  it('keeps list order significant', () => {
    expect(compareObjects('map-typed', { spec: { l: ['a', 'b'] } }, { spec: { l: ['b', 'a'] } })).toBeDefined();
  });

  it('for the status subresource case compares only status.conditions', () => {
    const expected = { metadata: { labels: { x: 'y' } }, status: { phase: 'Active', conditions: [{ type: 'A', message: 'm' }] } };
    expect(compareObjects('map-status-conditions', expected, { status: { conditions: [{ type: 'A', message: 'm' }] } })).toBeUndefined();
    expect(message(compareObjects('map-status-conditions', expected, { status: { conditions: [{ type: 'A', message: 'n' }] } }))).toBe(
      'at /status/conditions/0/message: expected "m", got "n"',
    );
  });
});

describe('chainsaw subset assertions', () => {
  const pod = { metadata: { name: 'p', labels: { a: '1', b: '2' } }, spec: { containers: [{ name: 'c', env: [{ name: 'E' }] }] } };

  it('maps are subsets, lists match by position and length, scalars are equal', () => {
    expect(subsetDifference({ metadata: { labels: { a: '1' } } }, pod)).toBeUndefined();
    expect(message(subsetDifference({ metadata: { labels: { a: '2' } } }, pod))).toBe('at /metadata/labels/a: expected "2", got "1"');
    expect(message(subsetDifference({ spec: { containers: [{}, {}] } }, pod))).toBe('at /spec/containers: expected 2 elements, got 1');
    expect(message(subsetDifference({ metadata: { annotations: { x: 'y' } } }, pod))).toBe('at /metadata/annotations: expected {"x":"y"}, got nothing');
  });

  it('evaluates (expr) keys as JMESPath on the actual node', () => {
    expect(subsetDifference({ spec: { containers: [{ '(env != null)': true }] } }, pod)).toBeUndefined();
    expect(subsetDifference({ metadata: { labels: { '(c)': null } } }, pod)).toBeUndefined();
    expect(subsetDifference({ metadata: { labels: { '(a)': null } } }, pod)).toBeDefined();
    expect(message(subsetDifference({ '(length(spec.containers))': 2 }, pod))).toBe('at /(length(spec.containers)): expected 2, got 1');
  });
});

describe('Kyverno unit partial expectations', () => {
  const pod = { metadata: { labels: { x: 'y' } }, spec: { containers: [{ name: 'a', image: 'i1' }, { name: 'b', image: 'i2' }] } };

  it('checks values at pointers, the last element with /-, elements by name and every element', () => {
    expect(partialDifference({ '/metadata/labels/x': 'y', '/spec/containers/-': { name: 'b', image: 'i2' } }, pod)).toBeUndefined();
    expect(partialDifference({ '_byName:/spec/containers': { b: { image: 'i2' } } }, pod)).toBeUndefined();
    expect(message(partialDifference({ '_byName:/spec/containers': { c: {} } }, pod))).toBe('at /spec/containers: no element named "c"');
    expect(message(partialDifference({ '_allElements:/spec/containers': { image: 'i1' } }, pod))).toBe('at /spec/containers/1/image: expected "i1", got "i2"');
    expect(pointer(pod, '/spec/containers/1/name')).toBe('b');
    expect(pointer(pod, '/spec/containers/01')).toBeUndefined();
  });
});
