/**
 * A match block that tests nothing but kinds, operations and unscoped resource rules is decided from the kind facts
 * and the operation alone (src/k8s/facts.ts
 * requestMatchKind, issue 17); `testFacts` over the whole facts is the reference. Both must give the same
 * outcome for every request shape: kinds given by the request or read from the object, subresources, empty
 * and absent objects (DELETE matches the old object), odd apiVersion and kind values.
 */
import { describe, expect, it } from 'vitest';
import type { GlobStyle, GvkPattern, MatchClause, MatchSpec, ResourcePattern } from '../../src/ir/match.js';
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

/** Resource rules as MAP and ValidatingAdmissionPolicy bindings write them; the scoped and named ones need every fact. */
const RESOURCE_RULES: ResourcePattern[][] = [
  [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
  [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
  [{ groups: ['*'], versions: ['*'], resources: ['*'], operations: ['*'] }],
  [{ groups: ['apps'], versions: ['v1'], resources: ['deployments/scale', 'deployments'] }],
  [{ groups: ['apps'], versions: ['*'], resources: ['deployments/*'], operations: ['UPDATE'] }, { groups: [''], versions: ['v1'], resources: ['pods'] }],
  [{ groups: [''], versions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
  [{ groups: [''], versions: ['v1'], resources: ['pods', 'namespaces'], scope: 'Cluster' }],
  [{ groups: [''], versions: ['v1'], resources: ['pods'], resourceNames: ['p'] }],
];

const OPERATIONS = [['CREATE'], ['UPDATE', 'DELETE'], ['*']];

function requests(): AdmissionRequest[] {
  const out: AdmissionRequest[] = [];
  for (const object of OBJECTS) {
    for (const [i, oldObject] of [undefined, OBJECTS[1], {}].entries()) {
      // Every operation once per object: the kind facts are shared across requests, the operation is not.
      const operation = [undefined, 'CREATE', 'UPDATE'][i];
      const base = { operation, object, ...(oldObject !== undefined ? { oldObject } : {}) } as AdmissionRequest;
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
  for (const resources of RESOURCE_RULES) {
    out.push({ globs, any: [{ resources }] });
    out.push({ globs, any: [{ resources, operations: ['CREATE'] }] });
    out.push({ globs, any: [{ kinds: [{ kind: 'Pod' }], resources }, { resources: [] }] });
    out.push({ globs, any: [{ kinds: [{ kind: '*' }] }], exclude: { any: [{ resources }] } });
    out.push({ globs, all: [{ resources, names: ['p'] }] });
  }
  for (const operations of OPERATIONS) {
    out.push({ globs, any: [{ operations }] });
    out.push({ globs, any: [{ operations, kinds: [{ kind: 'Pod' }] }], exclude: { all: [{ operations }] } });
  }
  return out;
}

describe('kind-only match blocks', () => {
  it('give the outcome the whole facts give, for every request shape, operation and profile', () => {
    let compared = 0;
    for (const globs of ['wildcard', 'prefixSuffix', 'exact'] as const) {
      for (const spec of specs(globs)) {
        const m = compileMatch(spec);
        for (const req of requests()) {
          // A fresh copy each time: the one-slot facts memo must not hand the reference path the answer. Each
          // request is followed by the same under other operations: the same kind facts, which a match
          // decides once per operation.
          for (const r of [req, { ...req, operation: 'DELETE' }, { ...req }, { ...req, operation: 'UPDATE' }] as AdmissionRequest[]) {
            const reference = m.testFacts(requestFacts({ ...r }));
            expect(m.test({ ...r }), JSON.stringify({ spec, r })).toEqual(reference);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(20000);
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
    const rules = compileMatch({ globs: 'exact', any: [{ resources: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }] }] });
    expect(rules.test({ object, operation: 'CREATE' }).matched).toBe(true);
    expect(rules.test({ object, operation: 'UPDATE' }).matched).toBe(false);
    // A block with more than kinds still derives every fact (and so reads the name).
    const named = compileMatch({ globs: 'wildcard', any: [{ kinds: [{ kind: 'Pod' }], names: ['p'] }] });
    expect(() => named.test({ object, operation: 'CREATE' })).toThrow('metadata read');
  });
});
