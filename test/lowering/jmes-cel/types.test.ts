/** The type language, where types come from (request, schema, foreach), and how a binding's type is used. */
import { describe, expect, it } from 'vitest';
import { fieldType, itemType, jmesToCel, joinTypes, objectTypeOf, REQUEST_TYPE, T, typeText, type JmesCelScope, type Ty } from '../../../src/lowering/jmes-cel/index.js';
import { CONTAINER_TYPE, POD_TYPE, SCOPE, TYPED_SCOPE } from './harness.js';

function at(t: Ty, ...path: string[]): Ty {
  return path.reduce((x, f) => (x.k === 'map' ? fieldType(x, f).ty : T.dyn), t);
}

function required(t: Ty, ...path: string[]): boolean {
  const parent = at(t, ...path.slice(0, -1));
  return parent.k === 'map' && fieldType(parent, path[path.length - 1]!).always;
}

describe('objectTypeOf: the object of the matched kinds, from the built-in schema', () => {
  it('types a Pod as encoding/json writes it, taking only the structs validation requires as present', () => {
    expect(at(POD_TYPE, 'kind')).toEqual(T.oneOf('Pod'));
    expect(at(POD_TYPE, 'apiVersion')).toEqual(T.oneOf('v1'));
    expect(required(POD_TYPE, 'metadata')).toBe(true);
    expect(required(POD_TYPE, 'spec')).toBe(true);
    expect(required(POD_TYPE, 'metadata', 'labels')).toBe(false);
    expect(at(POD_TYPE, 'metadata', 'labels')).toEqual(T.map(T.string));
    expect(at(POD_TYPE, 'metadata', 'name')).toEqual(T.string);
    // A list may be null (a nil slice without omitempty); its items never are.
    expect(typeText(at(POD_TYPE, 'spec', 'containers'), 0)).toBe('list<{…}>?');
    expect(at(CONTAINER_TYPE, 'image')).toEqual(T.string);
    // kube-apiserver writes a container's resources ({}), an offline manifest need not: it may be absent.
    expect(required(CONTAINER_TYPE, 'resources')).toBe(false);
    // A quantity is a string, a time a string or null; int-or-strings are dyn; numerics are int or double.
    expect(at(CONTAINER_TYPE, 'resources', 'limits')).toEqual(T.map(T.string));
    expect(at(POD_TYPE, 'metadata', 'creationTimestamp')).toEqual(T.nullable(T.string));
    expect(at(CONTAINER_TYPE, 'livenessProbe', 'httpGet', 'port')).toEqual(T.dyn);
    expect(at(POD_TYPE, 'spec', 'terminationGracePeriodSeconds')).toEqual(T.number);
  });

  it('takes a workload\'s pod template as present, and no struct validation leaves optional', () => {
    const daemonSet = objectTypeOf([{ group: 'apps', version: 'v1', kind: 'DaemonSet' }]);
    expect(required(daemonSet, 'spec')).toBe(true);
    expect(required(daemonSet, 'spec', 'template', 'spec')).toBe(true);
    expect(required(daemonSet, 'spec', 'updateStrategy')).toBe(false);
    const namespace = objectTypeOf([{ version: 'v1', kind: 'Namespace' }]);
    expect(required(namespace, 'spec')).toBe(false);
  });

  it('keeps what several kinds agree on', () => {
    const t = objectTypeOf([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
      { group: 'apps', version: 'v1', kind: 'StatefulSet' },
    ]);
    expect(at(t, 'kind')).toEqual(T.oneOf('Deployment', 'StatefulSet'));
    expect(itemType(at(t, 'spec', 'template', 'spec', 'containers'))).toEqual(CONTAINER_TYPE);
    // Deployment has `strategy`, StatefulSet `updateStrategy`: each unknown under the other kind.
    expect(at(t, 'spec', 'strategy')).toEqual(T.dyn);
    expect(at(t, 'spec', 'serviceName')).toEqual(T.dyn);
    // Pod and Service disagree on spec.selector's kind... and on everything under spec.
    const mixed = objectTypeOf([{ kind: 'Pod' }, { kind: 'Service' }]);
    expect(at(mixed, 'metadata', 'labels')).toEqual(T.map(T.string));
    expect(at(mixed, 'spec', 'containers')).toEqual(T.dyn);
  });

  it('gives dyn for a kind it does not know, a wildcard, or no kind', () => {
    expect(objectTypeOf([{ group: 'example.com', version: 'v1', kind: 'Widget' }])).toEqual(T.dyn);
    expect(objectTypeOf([{ kind: 'Pod' }, { kind: 'Widget' }])).toEqual(T.dyn);
    expect(objectTypeOf([{ kind: '*' }])).toEqual(T.dyn);
    expect(objectTypeOf([])).toEqual(T.dyn);
    // An absent version stands for every version the schema knows (autoscaling v1 and v2 differ).
    expect(objectTypeOf([{ group: 'autoscaling', kind: 'HorizontalPodAutoscaler' }])).toMatchObject({ k: 'map' });
  });
});

describe('types of the request and of a foreach element', () => {
  it('knows what Kyverno guarantees about the request', () => {
    expect(at(REQUEST_TYPE, 'operation')).toEqual(T.oneOf('CREATE', 'UPDATE', 'DELETE', 'CONNECT'));
    expect(at(REQUEST_TYPE, 'userInfo', 'groups')).toEqual(T.list(T.string));
    expect(required(REQUEST_TYPE, 'kind', 'kind')).toBe(true);
    const r = jmesToCel('request.operation', SCOPE, { env: 'map' });
    expect(r.ok && r.type).toEqual(T.oneOf('CREATE', 'UPDATE', 'DELETE', 'CONNECT'));
  });

  it('lets a binding type override the request table (e.g. a background scan with no operation)', () => {
    const scope: JmesCelScope = { root: (n) => (n === 'request' ? { fields: { operation: { cel: 'request.operation', type: T.dyn } } } : undefined) };
    expect(jmesToCel("request.operation || 'BACKGROUND'", scope, { env: 'map' })).toMatchObject({ ok: true, cel: '!(request.operation in [dyn(null), dyn(false), dyn(""), dyn([]), dyn({})]) ? request.operation : "BACKGROUND"' });
    expect(jmesToCel("request.operation || 'BACKGROUND'", SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: 'request.operation' });
  });

  it('gives a foreach list its type, whose items type the element', () => {
    const list = jmesToCel('request.object.spec.containers', TYPED_SCOPE, { env: 'map' });
    expect(list.ok && list.cel).toBe('object.spec.containers');
    expect(list.ok && itemType(list.type)).toEqual(CONTAINER_TYPE);
    const ports = jmesToCel('element.ports', TYPED_SCOPE, { env: 'map' });
    expect(ports.ok && typeText(itemType(ports.type))).toBe('{containerPort: number, hostIP: string, hostPort: number, name: string, protocol: string}');
    // Computed values carry types too.
    const names = jmesToCel('request.object.spec.containers[*].name', TYPED_SCOPE, { env: 'map' });
    expect(names.ok && itemType(names.type)).toEqual(T.string);
    expect(itemType(T.string)).toEqual(T.dyn);
  });
});

describe('the type language', () => {
  it('joins to what both sides agree on', () => {
    expect(joinTypes(T.int, T.double)).toEqual(T.number);
    expect(joinTypes(T.string, T.null)).toEqual(T.nullable(T.string));
    expect(joinTypes(T.oneOf('a'), T.oneOf('b'))).toEqual(T.oneOf('a', 'b'));
    expect(joinTypes(T.oneOf('a*'), T.plainString)).toEqual(T.string);
    expect(joinTypes(T.list(T.string), T.string)).toEqual(T.dyn);
    expect(joinTypes(T.struct({ a: T.string, b: T.int }, ['a']), T.struct({ a: T.string }, ['a']))).toEqual(T.struct({ a: T.string }, ['a']));
  });

  it('reads `oneOf` strings as plain when no value holds a special character', () => {
    expect(T.oneOf('CREATE', 'UPDATE')).toMatchObject({ plain: true });
    expect(T.oneOf('a*')).toMatchObject({ plain: false });
  });

  it('uses a binding type where the caller gives one', () => {
    const scope: JmesCelScope = { root: (n) => (n === 'cfg' ? { cel: 'variables.cfg', type: T.struct({ name: T.plainString, tags: T.list(T.plainString) }, ['name']) } : undefined) };
    expect(jmesToCel("cfg.name || 'x'", scope, { env: 'map' })).toMatchObject({ cel: 'variables.cfg.name != "" ? variables.cfg.name : "x"' });
    expect(jmesToCel('cfg.tags[0]', scope, { env: 'map' })).toMatchObject({ cel: 'size(variables.cfg.tags) == 0 ? null : variables.cfg.tags[0]' });
    expect(jmesToCel("contains(cfg.tags, 'a')", scope, { env: 'map' })).toMatchObject({ cel: '"a" in variables.cfg.tags' });
  });
});
