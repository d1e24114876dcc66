/**
 * kyaml merge semantics as Kyverno runs them (stage b). Expected values come from the upstream sources
 * cited per test (kyverno.md 1.8b, kustomize issues), not from this implementation.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { kyamlMerge, strategicMerge } from '../../../src/merge/smp/index.js';

function pod(spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

function merged(resource: JsonValue, patch: JsonValue): JsonValue {
  const r = strategicMerge(resource, patch);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  return r.value.value;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

describe('kyaml maps', () => {
  it('merges maps, `null` deletes, new keys are added', () => {
    const out = merged(pod({}, { name: 'p', labels: { a: '1', b: '2' } }), { metadata: { labels: { b: null, c: '3' } } });
    expect((out as JsonObject).metadata).toEqual({ name: 'p', labels: { a: '1', c: '3' } });
  });

  it('appends keys new to an existing map in sorted order (walk.fieldNames); an added map keeps the patch order', () => {
    const grown = merged(pod({}, { name: 'p', labels: { m: '1' } }), { metadata: { labels: { z: '1', b: null, a: '2' } } }) as JsonObject;
    expect(Object.keys((grown.metadata as JsonObject).labels as JsonObject)).toEqual(['m', 'a', 'z']);
    // VisitMap returns the patch's own map when the resource has none; nulls inside it are dropped.
    const added = merged(pod({}), { metadata: { labels: { z: '1', b: null, a: '2' } } }) as JsonObject;
    expect(Object.keys((added.metadata as JsonObject).labels as JsonObject)).toEqual(['z', 'a']);
  });

  it('keeps a resource string quoted when a patch number or boolean replaces it (FieldSetter copies the style)', () => {
    const out = merged(pod({}, { name: 'p', labels: { n: '1', b: 'x' } }), { metadata: { labels: { n: 2, b: true, fresh: 3 } } }) as JsonObject;
    expect((out.metadata as JsonObject).labels).toEqual({ n: '2', b: 'true', fresh: 3 });
  });

  it('honours $patch: delete and replace on maps', () => {
    const resource = pod({ securityContext: { runAsUser: 1, fsGroup: 2 }, dnsConfig: { nameservers: ['1.1.1.1'] } });
    const out = merged(resource, { spec: { securityContext: { $patch: 'replace', runAsNonRoot: true }, dnsConfig: { $patch: 'delete' } } }) as JsonObject;
    expect(out.spec).toEqual({ securityContext: { runAsNonRoot: true } });
  });

  it('rejects an unknown $patch directive on an existing map', () => {
    const r = strategicMerge(pod({ securityContext: { runAsUser: 1 } }), { spec: { securityContext: { $patch: 'bogus' } } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]!.message).toContain("unknown patch strategy 'bogus'");
  });

  it('keeps $setElementOrder and $retainKeys as ordinary keys (kyaml does not implement them)', () => {
    const out = merged(pod({ containers: [{ name: 'a' }] }), {
      spec: { '$setElementOrder/containers': [{ name: 'a' }], volumes: [{ name: 'v', $retainKeys: ['name'] }] },
    }) as JsonObject;
    expect((out.spec as JsonObject)['$setElementOrder/containers']).toEqual([{ name: 'a' }]);
    expect((out.spec as JsonObject).volumes).toEqual([{ name: 'v', $retainKeys: ['name'] }]);
  });

  it('fails when the patch and the resource disagree on a node kind', () => {
    const r = strategicMerge(pod({ containers: [{ name: 'a' }] }), { spec: { containers: { name: 'a' } } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]!.code).toBe('TM3001');
  });
});

describe('kyaml lists', () => {
  it('prepends new elements of an associative list (inject-sidecar: [nginx] + sidecar → [vault-agent, nginx])', () => {
    const out = merged(pod({ containers: [{ name: 'nginx', image: 'nginx' }] }), { spec: { containers: [{ name: 'vault-agent', image: 'vault' }] } });
    expect((out as JsonObject).spec).toEqual({ containers: [{ name: 'vault-agent', image: 'vault' }, { name: 'nginx', image: 'nginx' }] });
  });

  it('moves a patched element to the front, merged in place (issues #3331, #12552)', () => {
    const out = merged(pod({ containers: [{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }] }), { spec: { containers: [{ name: 'b', image: 'b2' }] } });
    expect(((out as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'b', image: 'b2' }, { name: 'a', image: 'a' }]);
  });

  it('merges nested associative lists by their own keys (env by name, volumeMounts by mountPath)', () => {
    const resource = pod({ containers: [{ name: 'c', env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/x' }] }] });
    const out = merged(resource, { spec: { containers: [{ name: 'c', env: [{ name: 'B', value: '2' }], volumeMounts: [{ name: 'w', mountPath: '/x' }] }] } });
    expect(((out as JsonObject).spec as JsonObject).containers).toEqual([
      { name: 'c', env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }], volumeMounts: [{ name: 'w', mountPath: '/x' }] },
    ]);
  });

  it('replaces lists without a merge strategy (tolerations, args)', () => {
    const resource = pod({ tolerations: [{ key: 'a' }], containers: [{ name: 'c', args: ['x', 'y'] }] });
    const out = merged(resource, { spec: { tolerations: [{ key: 'b' }], containers: [{ name: 'c', args: ['z'] }] } }) as JsonObject;
    expect(out.spec).toEqual({ tolerations: [{ key: 'b' }], containers: [{ name: 'c', args: ['z'] }] });
  });

  it('replaces every list of a kind kyaml does not know (CRDs, wrong apiVersion: #1955, #3792)', () => {
    const rollout = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', spec: { template: { spec: { containers: [{ name: 'a' }] } } } };
    expect(merged(rollout, { spec: { template: { spec: { containers: [{ name: 'b' }] } } } })).toEqual({
      ...rollout,
      spec: { template: { spec: { containers: [{ name: 'b' }] } } },
    });
    const wrong = { apiVersion: 'apps/v1', kind: 'Pod', spec: { containers: [{ name: 'a' }] } };
    expect(((merged(wrong, { spec: { containers: [{ name: 'b' }] } }) as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'b' }]);
  });

  it('takes the schema from the patch when the resource has no apiVersion/kind, or from opts.kind', () => {
    const bare = { spec: { containers: [{ name: 'a' }] } };
    expect(((merged(bare, { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'b' }] } }) as JsonObject).spec as JsonObject).containers).toEqual([
      { name: 'b' },
      { name: 'a' },
    ]);
    const r = strategicMerge(bare, { spec: { containers: [{ name: 'b' }] } }, { kind: { group: '', version: 'v1', kind: 'Pod' } });
    expect(r.ok && ((r.value.value as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'b' }, { name: 'a' }]);
  });

  it('looks up a schema again below an unknown kind when a node carries apiVersion and kind (walk.GetSchema)', () => {
    const wrapper = { apiVersion: 'example.com/v1', kind: 'Wrapper', spec: { template: { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'a' }] } } } };
    const out = merged(wrapper, { spec: { template: { spec: { containers: [{ name: 'b' }] } } } }) as JsonObject;
    expect((((out.spec as JsonObject).template as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'b' }, { name: 'a' }]);
  });

  it('merges compound keys (Service ports by port+protocol) and sets of primitives (finalizers), patch first', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', finalizers: ['a', 'b'] }, spec: { ports: [{ port: 80, protocol: 'TCP', name: 'http' }] } };
    const out = merged(svc, {
      metadata: { finalizers: ['c', 'a'] },
      spec: { ports: [{ port: 443, protocol: 'TCP', name: 'https' }, { port: 80, protocol: 'TCP', targetPort: 8080 }] },
    }) as JsonObject;
    expect((out.metadata as JsonObject).finalizers).toEqual(['c', 'a', 'b']);
    expect((out.spec as JsonObject).ports).toEqual([
      { port: 443, protocol: 'TCP', name: 'https' },
      { port: 80, protocol: 'TCP', name: 'http', targetPort: 8080 },
    ]);
  });

  it('deletes an element with $patch: delete and replaces the list with a lone $patch: replace element', () => {
    const resource = pod({ containers: [{ name: 'a' }, { name: 'b' }] });
    expect(((merged(resource, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } }) as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'a' }]);
    expect(((merged(resource, { spec: { containers: [{ $patch: 'replace' }, { name: 'c' }] } }) as JsonObject).spec as JsonObject).containers).toEqual([{ name: 'c' }]);
    expect((merged(resource, { spec: { containers: [{ $patch: 'delete' }] } }) as JsonObject).spec).toEqual({});
  });

  it('reproduces kyaml with elements lacking the merge key (kustomize#5150: only the last unnamed container survives)', () => {
    const resource = pod({ containers: [{ image: 'foo' }, { image: 'bar' }] });
    const out = merged(resource, { metadata: { annotations: { foo: 'bar' } } }) as JsonObject;
    expect(out.spec).toEqual({ containers: [{ image: 'bar' }] });
  });

  it('reproduces kyaml when a patch element lacks the merge key (kustomize#5369: the env list is emptied)', () => {
    const resource = pod({ containers: [{ name: 'c', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }] });
    const out = merged(resource, { spec: { containers: [{ name: 'c', env: [{ value: '3' }] }] } }) as JsonObject;
    expect(out.spec).toEqual({ containers: [{ name: 'c', env: [] }] });
  });
});

describe('copy-on-write', () => {
  it('never modifies its inputs and shares what it does not touch', () => {
    const resource = deepFreeze(
      pod(
        { containers: [{ name: 'a', image: 'a' }], volumes: [{ name: 'v', emptyDir: {} }], affinity: { nodeAffinity: {} } },
        { name: 'p', labels: { x: 'y' }, annotations: { k: 'v' } },
      ),
    );
    const patch = deepFreeze({ metadata: { labels: { z: 'w' } }, spec: { containers: [{ name: 'b' }] } });
    const out = merged(resource, patch) as JsonObject;
    const spec = out.spec as JsonObject;
    expect(spec.volumes).toBe((resource.spec as JsonObject).volumes);
    expect(spec.affinity).toBe((resource.spec as JsonObject).affinity);
    expect((out.metadata as JsonObject).annotations).toBe((resource.metadata as JsonObject).annotations);
    expect((spec.containers as JsonValue[])[1]).toBe(((resource.spec as JsonObject).containers as JsonValue[])[0]);
  });

  it('returns the resource itself when an empty patch changes nothing', () => {
    const resource = deepFreeze(pod({ containers: [{ name: 'a' }] }));
    const r = kyamlMerge(resource, {});
    expect(r.ok && r.value).toBe(resource);
  });

  it('treats __proto__ as an ordinary key', () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}') as JsonValue;
    const out = merged(pod({}), patch) as JsonObject;
    const labels = (out.metadata as JsonObject).labels as JsonObject;
    expect(Object.prototype.hasOwnProperty.call(labels, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it('keeps the own __proto__ key of a resource map it copies to write into', () => {
    const resource = JSON.parse('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"__proto__":"x","a":"1"}}}') as JsonValue;
    for (const compiled of [false, true]) {
      const r = strategicMerge(resource, { metadata: { labels: { b: '2' } } }, { reference: !compiled });
      const labels = ((r.ok ? r.value.value : {}) as JsonObject).metadata as JsonObject;
      const copy = labels.labels as JsonObject;
      expect(Object.keys(copy)).toEqual(['__proto__', 'a', 'b']);
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    }
  });
});
