import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { JsonValue } from '../../../../src/ir/json.js';
import { loadYamlText } from '../../../../src/io/yaml-load.js';
import { applyStructuredMergeDiff, atomicGuard } from '../../../../src/merge/ssa/index.js';
import { crdKindSchemas, crdTypeName, publishedCrdSchema } from '../../../../src/merge/ssa/openapi/crd.js';
import { kindSchemasFromCrds } from '../../../../src/merge/ssa/openapi/load.js';
import { UNTYPED_DEDUCED } from '../../../../src/merge/ssa/schema.js';
import { deepFreeze } from '../support.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata:
            type: object
            properties:
              name: {type: string, maxLength: 10}
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  properties:
                    name: {type: string}
                    port: {type: integer}
              tags:
                type: array
                items: {type: string}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
  - name: v0
    served: false
    storage: false
  - name: v3
    served: true
    storage: false
`;

const V1 = { group: 'example.com', version: 'v1', kind: 'Widget' };

function widgetKinds() {
  const doc = deepFreeze(parse(CRD) as JsonValue);
  const r = crdKindSchemas(doc);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

describe('CustomResourceDefinition → kind schemas (apiextensions OpenAPI builder)', () => {
  it('types every served version, named like the builder names its definition', () => {
    const { kinds, versions } = widgetKinds();
    expect(versions).toStrictEqual([
      { gvk: V1, typeName: 'com.example.v1.Widget' },
      { gvk: { ...V1, version: 'v2' }, typeName: 'com.example.v2.Widget' },
      { gvk: { ...V1, version: 'v3' }, typeName: 'com.example.v3.Widget' },
    ]);
    expect(kinds.keys()).toStrictEqual(['example.com/v1/Widget', 'example.com/v2/Widget', 'example.com/v3/Widget']);
    expect(crdTypeName({ group: 'awesome.bears.com', version: 'v1', kind: 'Panda' })).toBe('com.bears.awesome.v1.Panda');
  });

  it('types metadata as the built-in ObjectMeta and apiVersion/kind as strings, whatever the CRD says', () => {
    const w = widgetKinds().kinds.get(V1)!;
    const root = w.schema.resolve(w.typeRef)!.map!;
    expect(root.fieldIndex.get('metadata')!.type).toStrictEqual({ namedType: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    expect(w.schema.resolve(root.fieldIndex.get('apiVersion')!.type)).toStrictEqual({ scalar: 'string' });
    expect(w.schema.resolve(root.fieldIndex.get('kind')!.type)).toStrictEqual({ scalar: 'string' });
    // The CRD's own metadata schema knows only `name`; ObjectMeta's labels merge granularly, finalizers as a set.
    const live = { metadata: { labels: { a: '1' }, finalizers: ['x'] } };
    const r = applyStructuredMergeDiff(w.schema, w.typeRef, live, { metadata: { labels: { b: '2' }, finalizers: ['y'] } });
    expect(r.ok && r.value).toStrictEqual({ metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] } });
  });

  it('merges keyed lists by their keys and guards lists without a list type as atomic', () => {
    const w = widgetKinds().kinds.get(V1)!;
    const live = { spec: { ports: [{ name: 'http', port: 80 }], tags: ['a'] } };
    const r = applyStructuredMergeDiff(w.schema, w.typeRef, live, { spec: { ports: [{ name: 'metrics', port: 9090 }] } });
    expect(r.ok && r.value).toStrictEqual({ spec: { ports: [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }], tags: ['a'] } });
    expect(atomicGuard(w.schema, w.typeRef, { spec: { tags: ['b'] } })).toStrictEqual(['.spec.tags']);
    // The root and spec are closed structs: the published schema prunes unknown fields, SMD rejects them.
    const unknown = applyStructuredMergeDiff(w.schema, w.typeRef, live, { spec: { color: 'red' } });
    expect(unknown.ok).toBe(false);
  });

  it('gives an embedded resource TypeMeta and ObjectMeta (addEmbeddedProperties)', () => {
    const w = widgetKinds().kinds.get(V1)!;
    const spec = w.schema.resolve(w.schema.resolve(w.typeRef)!.map!.fieldIndex.get('spec')!.type)!.map!;
    const template = w.schema.resolve(spec.fieldIndex.get('template')!.type)!.map!;
    expect(template.fieldIndex.get('metadata')!.type).toStrictEqual({ namedType: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    expect(template.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
  });

  it('a preserve-unknown-fields root keeps ObjectMeta typed and deduces the rest; no schema deduces everything', () => {
    const { kinds } = widgetKinds();
    const v2 = kinds.get({ ...V1, version: 'v2' })!;
    const root2 = v2.schema.resolve(v2.typeRef)!.map!;
    expect(root2.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    expect(root2.fieldIndex.get('metadata')!.type).toStrictEqual({ namedType: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    const v3 = kinds.get({ ...V1, version: 'v3' })!;
    const root3 = v3.schema.resolve(v3.typeRef)!.map!;
    expect(root3.fields).toStrictEqual([]);
    expect(root3.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    expect(publishedCrdSchema(undefined)).toStrictEqual({ type: 'object' });
  });

  it('reads a List of CRDs and reports bad manifests at file:line:col', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n${CRD.replace(/^/gm, '  ').replace(/^ {2}apiVersion/, '- apiVersion')}`;
    const docs = loadYamlText('crds.yaml', list);
    if (!docs.ok) throw new Error('load');
    const r = kindSchemasFromCrds(docs.value);
    expect(r.ok && r.value.keys()).toStrictEqual(['example.com/v1/Widget', 'example.com/v2/Widget', 'example.com/v3/Widget']);

    const bad = CRD.replace('x-kubernetes-list-type: map', 'x-kubernetes-list-type: bag');
    const badDocs = loadYamlText('bad.yaml', bad);
    if (!badDocs.ok) throw new Error('load');
    const e = kindSchemasFromCrds(badDocs.value);
    expect(e.ok).toBe(false);
    const line = bad.split('\n').findIndex((l) => l.includes('bag')) + 1;
    expect(e.diagnostics[0]).toMatchObject({ code: 'TM2002', span: { file: 'bad.yaml', line } });
    expect(e.diagnostics[0]!.message).toBe('OpenAPI schema: inlined in inlined in com.example.v1.Widget: unknown list type bag');
  });

  it('rejects what is not an apiextensions.k8s.io/v1 CustomResourceDefinition', () => {
    const first = (v: JsonValue) => {
      const r = crdKindSchemas(v);
      expect(r.ok).toBe(false);
      return r.diagnostics[0]!.message;
    };
    expect(first({ apiVersion: 'v1', kind: 'ConfigMap' })).toContain('expected kind CustomResourceDefinition');
    expect(first({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition' })).toContain('expected apiVersion apiextensions.k8s.io/v1');
    expect(first({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', spec: { names: { kind: 'X' }, versions: [] } })).toContain('spec.group');
  });
});
