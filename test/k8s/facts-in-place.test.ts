/**
 * Facts of a request whose object a fix-point pass changed in place (src/k8s/facts.ts objectChangedInPlace):
 * kept while the fields they follow from read the same, derived again as soon as one of them changed.
 */
import { describe, expect, it } from 'vitest';
import { objectChangedInPlace, requestFacts } from '../../src/k8s/facts.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import type { JsonObject } from '../../src/ir/json.js';

function pod(): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'ns' }, spec: {} };
}

describe('request facts after in-place changes', () => {
  it('keeps the facts when the change leaves the matched fields alone', () => {
    const object = pod();
    const req: AdmissionRequest = { object, operation: 'CREATE' };
    const before = requestFacts(req);
    (object.spec as JsonObject).nodeName = 'n1';
    (object.metadata as JsonObject).labels = { app: 'x' };
    objectChangedInPlace(req);
    expect(requestFacts(req)).toBe(before);
  });

  it('derives them again when name, namespace, kind or emptiness changed', () => {
    const cases: ((o: JsonObject) => void)[] = [
      (o) => ((o.metadata as JsonObject).name = 'b'),
      (o) => ((o.metadata as JsonObject).namespace = 'other'),
      (o) => ((o.metadata as JsonObject).generateName = 'g-'),
      (o) => (o.metadata = { name: 'c' }),
      (o) => delete o.metadata,
      (o) => (o.kind = 'Deployment'),
      (o) => (o.apiVersion = 'apps/v1'),
      (o) => {
        for (const k of Object.keys(o)) delete o[k];
      },
    ];
    for (const change of cases) {
      const object = pod();
      const req: AdmissionRequest = { object, operation: 'CREATE' };
      const before = requestFacts(req);
      change(object);
      objectChangedInPlace(req);
      const after = requestFacts(req);
      expect(after, String(change)).not.toBe(before);
      const fresh = requestFacts({ object: structuredClone(object), operation: 'CREATE' });
      expect({ ...after, request: undefined, object: undefined, newObject: undefined }, String(change)).toEqual({
        ...fresh,
        request: undefined,
        object: undefined,
        newObject: undefined,
      });
    }
  });
});
