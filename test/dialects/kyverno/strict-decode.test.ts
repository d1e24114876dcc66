import { describe, expect, it } from 'vitest';
import { decodeStrictly } from '../../../src/dialects/kyverno/test-suite/strict-decode.js';
import type { JsonObject } from '../../../src/ir/json.js';

const HEAD = { apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Test', metadata: { name: 't' } };

function errorOf(doc: JsonObject): string | undefined {
  const d = decodeStrictly(doc, 'test');
  return d.ok ? undefined : `${d.error.path.join('.')}: ${d.error.message}`;
}

describe('kyverno test strict decoding (sigs.k8s.io/yaml UnmarshalStrict into v1alpha1 Test)', () => {
  it('accepts null for any field and anything under a RawExtension', () => {
    expect(errorOf({ ...HEAD, policies: null, results: [{ policy: 'p', kind: null, resources: null }] })).toBeUndefined();
    expect(errorOf({ ...HEAD, apiCallResponses: [{ urlPath: '/x', response: { statusCode: 200, body: { any: [1, { thing: true }] } } }] })).toBeUndefined();
  });

  it('matches keys case-insensitively, the later key in sorted order winning', () => {
    const d = decodeStrictly({ ...HEAD, Policies: ['a.yaml'], policies: ['b.yaml'], RESULTS: [] }, 'test');
    expect(d.ok && d.value).toMatchObject({ policies: ['b.yaml'], results: [] });
    expect(d.ok && Object.keys(d.value)).not.toContain('Policies');
  });

  it('reports the first error in sorted key order, unknown fields and wrong types alike', () => {
    expect(errorOf({ ...HEAD, zeta: 1, results: [{ policy: 'p', extra: 1 }] })).toBe('results.0.extra: json: unknown field "extra"');
    expect(errorOf({ ...HEAD, apiCallResponses: [{ urlPath: '/x', response: { statusCode: 1.5 } }] })).toBe(
      'apiCallResponses.0.response.statusCode: json: cannot unmarshal number 1.5 into Go struct field APICallResponse.apiCallResponses.response.statusCode of type int',
    );
    expect(errorOf({ ...HEAD, metadata: { name: 't', labels: { a: 1 } } })).toBe('metadata.labels.a: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
    expect(errorOf({ ...HEAD, values: { namespaces: [{ metadata: { name: 'ns' }, spex: {} }] } })).toBe('values.namespaces.0.spex: json: unknown field "spex"');
  });
});
