/**
 * A match block that tests nothing but kinds is decided from the kind facts alone (src/k8s/facts.ts
 * requestMatchKind, issue 17); `testFacts` over the whole facts is the reference. Both must give the same
 * outcome for every request shape: kinds given by the request or read from the object, subresources, empty
 * and absent objects (DELETE matches the old object), odd apiVersion and kind values.
 */
import { describe, expect, it } from 'vitest';
import type { GlobStyle, GvkPattern, MatchClause, MatchSpec } from '../../src/ir/match.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import { requestFacts } from '../../src/k8s/facts.js';
import { compileMatch } from '../../src/k8s/match.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';

const PATTERNS: GvkPattern[][] = [
  [{ kind: 'Pod' }],
  [{ group: '', version: 'v1', kind: 'Pod' }],
  [{ kind: 'Deployment', group: 'apps' }, { kind: 'Pod' }],
  [{ kind: '*' }],
  [{ kind: 'Dep*' }],
  [{ kind: 'Pod', subresource: '' }],
  [{ kind: 'Deployment', subresource: 'scale' }],
  [{ group: 'apps', version: '*', kind: 'Deployment', subresource: '*' }],
  [{ kind: 'Namespace' }],
];

const OBJECTS: (JsonValue | null | undefined)[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } },
  { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'd' } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } },
  { kind: 'Pod' },
  { apiVersion: 7, kind: ['Pod'] } as unknown as JsonObject,
  { metadata: { name: 'x' } },
  {},
  null,
  undefined,
  'text',
];

function requests(): AdmissionRequest[] {
  const out: AdmissionRequest[] = [];
  for (const object of OBJECTS) {
    for (const oldObject of [undefined, OBJECTS[1], {}]) {
      const base = { operation: 'CREATE', object, ...(oldObject !== undefined ? { oldObject } : {}) } as AdmissionRequest;
      out.push(base);
      out.push({ ...base, subResource: 'scale' });
      out.push({ ...base, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } });
      out.push({ ...base, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: 'scale' });
      out.push({ ...base, subResource: 'ephemeralcontainers' });
    }
  }
  return out;
}

function specs(globs: GlobStyle): MatchSpec[] {
  const clause = (kinds: GvkPattern[]): MatchClause => ({ kinds });
  const out: MatchSpec[] = [{ globs }, { globs, any: [] }, { globs, any: [{}] }];
  for (const p of PATTERNS) {
    out.push({ globs, any: [clause(p)] });
    out.push({ globs, any: [clause(p), clause([{ kind: 'ConfigMap' }])] });
    out.push({ globs, all: [clause(p)] });
    out.push({ globs, any: [clause([{ kind: '*' }])], exclude: { any: [clause(p)] } });
    out.push({ globs, exclude: { all: [clause(p), clause([{ kind: 'Pod' }])] } });
  }
  return out;
}

describe('kind-only match blocks', () => {
  it('give the outcome the whole facts give, for every request shape and profile', () => {
    let compared = 0;
    for (const globs of ['wildcard', 'prefixSuffix', 'exact'] as const) {
      for (const spec of specs(globs)) {
        const m = compileMatch(spec);
        for (const req of requests()) {
          // A fresh copy each time: the one-slot facts memo must not hand the reference path the answer.
          const reference = m.testFacts(requestFacts({ ...req }));
          expect(m.test({ ...req }), JSON.stringify({ spec, req })).toEqual(reference);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it('read nothing of the object but its apiVersion and kind', () => {
    const object: JsonObject = { apiVersion: 'v1', kind: 'Pod' };
    Object.defineProperty(object, 'metadata', {
      enumerable: true,
      get() {
        throw new Error('metadata read');
      },
    });
    const m = compileMatch({ globs: 'wildcard', any: [{ kinds: [{ kind: 'Pod' }] }] });
    expect(m.test({ object, operation: 'CREATE' }).matched).toBe(true);
    // A block with more than kinds still derives every fact (and so reads the name).
    const named = compileMatch({ globs: 'wildcard', any: [{ kinds: [{ kind: 'Pod' }], names: ['p'] }] });
    expect(() => named.test({ object, operation: 'CREATE' })).toThrow('metadata read');
  });
});
