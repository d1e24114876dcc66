import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/ir/json.js';
import { atomicGuard, atomicGuardMessage, loadSmdSchema, type Schema } from '../../../src/merge/ssa/index.js';
import { describeShared } from '../../support/shared.js';
import { builtinSchema } from './support.js';

const POD = { namedType: 'io.k8s.api.core.v1.Pod' };
const DEPLOYMENT = { namedType: 'io.k8s.api.apps.v1.Deployment' };
const SERVICE = { namedType: 'io.k8s.api.core.v1.Service' };

describeShared('atomicGuard on the built-in schema (patch/smd.go findAtomics)', () => {
  const cases: { name: string; type: { namedType: string }; patch: JsonValue; paths: string[] }[] = [
    { name: 'granular labels and a new container', type: POD, patch: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } }, paths: [] },
    { name: 'atomic struct (LabelSelector), even a brand-new value', type: DEPLOYMENT, patch: { spec: { selector: { matchLabels: { l: 'v' } } } }, paths: ['.spec.selector'] },
    {
      name: 'an atomic container and the atomic list inside it are both reported',
      type: DEPLOYMENT,
      patch: { spec: { selector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } } },
      paths: ['.spec.selector', '.spec.selector.matchExpressions'],
    },
    { name: 'atomic list inside a new list item, addressed by patch index', type: POD, patch: { spec: { initContainers: [{ name: 'a' }, { name: 'b', args: ['x'] }] } }, paths: ['.spec.initContainers[1].args'] },
    { name: 'atomic list (tolerations)', type: POD, patch: { spec: { tolerations: [{ key: 'k', operator: 'Exists' }] } }, paths: ['.spec.tolerations'] },
    { name: 'atomic map (nodeSelector)', type: POD, patch: { spec: { nodeSelector: { disk: 'ssd' } } }, paths: ['.spec.nodeSelector'] },
    { name: 'atomic map (Service selector)', type: SERVICE, patch: { spec: { selector: { app: 'x' } } }, paths: ['.spec.selector'] },
    {
      name: 'atomic struct deep in a keyed list (env valueFrom.fieldRef)',
      type: POD,
      patch: { spec: { containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] } },
      paths: ['.spec.containers[0].env[0].valueFrom.fieldRef'],
    },
    { name: 'empty values still count', type: POD, patch: { spec: { nodeSelector: {}, tolerations: [] } }, paths: ['.spec.nodeSelector', '.spec.tolerations'] },
    { name: 'null is not a container', type: POD, patch: { spec: { nodeSelector: null, tolerations: null } }, paths: [] },
    {
      name: 'several hits in document order',
      type: POD,
      patch: { spec: { tolerations: [], containers: [{ name: 'c', command: ['sh'], args: ['-c'] }] } },
      paths: ['.spec.tolerations', '.spec.containers[0].command', '.spec.containers[0].args'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(atomicGuard(builtinSchema(), c.type, c.patch)).toStrictEqual(c.paths);
    });
  }
});

describe('atomicGuard on small schemas', () => {
  const schema = load({
    types: [
      {
        name: 'root',
        map: {
          fields: [
            { name: 'byName', type: { map: { elementType: { namedType: 'atomicStruct' } } } },
            { name: 'one', type: { namedType: 'atomicStruct' } },
            { name: 'granularRef', type: { namedType: 'atomicStruct', elementRelationship: 'separable' } },
            { name: 'set', type: { list: { elementType: { scalar: 'string' }, elementRelationship: 'associative' } } },
          ],
          elementType: { namedType: 'atomicStruct' },
        },
      },
      { name: 'atomicStruct', map: { fields: [{ name: 'x', type: { scalar: 'string' } }], elementRelationship: 'atomic' } },
    ],
  });
  const root = { namedType: 'root' };

  it('does not descend into map elements, only declared fields', () => {
    expect(atomicGuard(schema, root, { byName: { a: { x: '1' } }, undeclared: { x: '1' } })).toStrictEqual([]);
  });
  it('a reference override makes an atomic struct granular', () => {
    expect(atomicGuard(schema, root, { one: { x: '1' }, granularRef: { x: '2' } })).toStrictEqual(['.one']);
  });
  it('sets are not atomic', () => {
    expect(atomicGuard(schema, root, { set: ['a'] })).toStrictEqual([]);
  });
  it('an atomic root is reported with the empty path', () => {
    expect(atomicGuard(schema, { namedType: 'atomicStruct' }, { x: '1' })).toStrictEqual(['']);
  });
  it('formats the apiserver message', () => {
    expect(atomicGuardMessage(['.spec.selector', '.spec.tolerations'])).toBe(
      'may not mutate atomic arrays, maps or structs: .spec.selector, .spec.tolerations',
    );
  });
});

function load(doc: unknown): Schema {
  const r = loadSmdSchema(doc);
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value;
}
