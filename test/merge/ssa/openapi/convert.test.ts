import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../../src/ir/json.js';
import { loadYamlText } from '../../../../src/io/yaml-load.js';
import { applyStructuredMergeDiff, atomicGuard } from '../../../../src/merge/ssa/index.js';
import { convertOpenApiDocument, convertOpenApiModels, convertOpenApiSchema } from '../../../../src/merge/ssa/openapi/convert.js';
import { EMPTY_TYPE_REF, UNTYPED_ATOMIC, UNTYPED_DEDUCED, type Atom, type Schema, type TypeRef } from '../../../../src/merge/ssa/schema.js';

function convert(schema: JsonValue): { schema: Schema; typeRef: TypeRef } {
  const r = convertOpenApiSchema(schema, { fallback: null });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

function models(m: JsonObject, preserveUnknownFields = false): Schema {
  const r = convertOpenApiModels(m, { fallback: null, preserveUnknownFields });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value.schema;
}

function errorsOf(schema: JsonValue): string[] {
  const r = convertOpenApiSchema(schema, { fallback: null, name: 'T' });
  expect(r.ok).toBe(false);
  return r.diagnostics.map((d) => d.message);
}

/** The atom of `field` in the root struct (resolving names). */
function fieldAtom(c: { schema: Schema; typeRef: TypeRef }, field: string): Atom {
  const root = c.schema.resolve(c.typeRef)!;
  return c.schema.resolve(root.map!.fieldIndex.get(field)!.type)!;
}

const struct = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({ type: 'object', properties, ...extra });
const list = (extra: JsonObject, items: JsonValue = { type: 'string' }): JsonObject => ({ type: 'array', items, ...extra });

describe('OpenAPI → SMD: lists (schemaconv getListElementRelationship)', () => {
  it('x-kubernetes-list-type atomic, set and map with its keys', () => {
    const c = convert(
      struct({
        a: list({ 'x-kubernetes-list-type': 'atomic' }),
        s: list({ 'x-kubernetes-list-type': 'set' }),
        m: list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'] }, struct({ name: { type: 'string' } })),
      }),
    );
    expect(fieldAtom(c, 'a').list).toMatchObject({ elementRelationship: 'atomic', keys: [] });
    expect(fieldAtom(c, 's').list).toMatchObject({ elementRelationship: 'associative', keys: [] });
    expect(fieldAtom(c, 'm').list).toMatchObject({ elementRelationship: 'associative', keys: ['name', 'protocol'] });
  });

  it('legacy patch strategy: merge + merge key is keyed, merge alone a set, merge,retainKeys keyed, retainKeys atomic', () => {
    const c = convert(
      struct({
        keyed: list({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' }),
        set: list({ 'x-kubernetes-patch-strategy': 'merge' }),
        retain: list({ 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'ip' }),
        retainOnly: list({ 'x-kubernetes-patch-strategy': 'retainKeys' }),
        // x-kubernetes-list-type wins over the legacy markers.
        both: list({ 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' }),
      }),
    );
    expect(fieldAtom(c, 'keyed').list).toMatchObject({ elementRelationship: 'associative', keys: ['name'] });
    expect(fieldAtom(c, 'set').list).toMatchObject({ elementRelationship: 'associative', keys: [] });
    expect(fieldAtom(c, 'retain').list).toMatchObject({ elementRelationship: 'associative', keys: ['ip'] });
    expect(fieldAtom(c, 'retainOnly').list).toMatchObject({ elementRelationship: 'atomic', keys: [] });
    expect(fieldAtom(c, 'both').list).toMatchObject({ elementRelationship: 'atomic', keys: [] });
  });

  it('a list without any extension is atomic', () => {
    expect(fieldAtom(convert(struct({ args: list({}) })), 'args').list).toMatchObject({ elementRelationship: 'atomic', keys: [] });
  });

  it('list-map keys keep only the string members (toStringSlice)', () => {
    const c = convert(struct({ m: list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a', 3, 'b'] }) }));
    expect(fieldAtom(c, 'm').list!.keys).toStrictEqual(['a', 'b']);
  });

  it('rejects unknown list types and strategies, missing or uninterpreted keys, arrays without one item schema', () => {
    expect(errorsOf(struct({ l: list({ 'x-kubernetes-list-type': 'bag' }) }))).toStrictEqual(['OpenAPI schema: inlined in T: unknown list type bag']);
    expect(errorsOf(struct({ l: list({ 'x-kubernetes-list-type': 'map' }) }))).toStrictEqual(['OpenAPI schema: inlined in T: missing map keys']);
    expect(errorsOf(struct({ l: list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': 'name' }) }))).toStrictEqual([
      'OpenAPI schema: inlined in T: uninterpreted map keys: name',
    ]);
    expect(errorsOf(struct({ l: list({ 'x-kubernetes-patch-strategy': 'replace' }) }))).toStrictEqual(['OpenAPI schema: inlined in T: unknown patch strategy replace']);
    expect(errorsOf(struct({ l: list({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': ['a'] }) }))).toStrictEqual([
      'OpenAPI schema: inlined in T: uninterpreted merge key: ["a"]',
    ]);
    expect(errorsOf(struct({ l: { type: 'array' } }))).toStrictEqual(['OpenAPI schema: inlined in T: `items` must be specified on arrays']);
    expect(errorsOf(struct({ l: { type: 'array', items: [{ type: 'string' }] } }))).toStrictEqual([
      'OpenAPI schema: inlined in T: structural schema arrays must have exactly one member subtype',
    ]);
  });
});

describe('OpenAPI → SMD: maps and structs (schemaconv parseObject, getMapElementRelationship)', () => {
  it('x-kubernetes-map-type atomic or granular; unset leaves the relationship unset (granular)', () => {
    const c = convert(
      struct({
        atomic: struct({ a: { type: 'string' } }, { 'x-kubernetes-map-type': 'atomic' }),
        granular: struct({ a: { type: 'string' } }, { 'x-kubernetes-map-type': 'granular' }),
        unset: struct({ a: { type: 'string' } }),
        selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      }),
    );
    expect(fieldAtom(c, 'atomic').map!.elementRelationship).toBe('atomic');
    expect(fieldAtom(c, 'granular').map!.elementRelationship).toBe('separable');
    expect(fieldAtom(c, 'unset').map!.elementRelationship).toBeUndefined();
    expect(fieldAtom(c, 'selector').map!.elementRelationship).toBe('atomic');
    expect(errorsOf(struct({ m: struct({}, { 'x-kubernetes-map-type': 'frozen' }) }))).toStrictEqual(['OpenAPI schema: inlined in T: unknown map type frozen']);
  });

  it('properties without additionalProperties make a closed struct; no properties make a free-form (deduced) map', () => {
    const c = convert(struct({ closed: struct({ a: { type: 'string' } }), open: { type: 'object' } }));
    expect(fieldAtom(c, 'closed').map!.elementType).toStrictEqual(EMPTY_TYPE_REF);
    expect(fieldAtom(c, 'open').map!.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    // The closed struct rejects an unknown field when the patch is typed.
    const r = applyStructuredMergeDiff(c.schema, c.typeRef, {}, { closed: { b: 'x' } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toContain('.closed.b: field not declared in schema');
  });

  it('additionalProperties: a schema types unknown keys, true deduces them, false closes the struct', () => {
    const c = convert(
      struct({
        typed: { type: 'object', additionalProperties: { type: 'integer' } },
        anything: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
        none: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      }),
    );
    expect(c.schema.resolve(fieldAtom(c, 'typed').map!.elementType)).toStrictEqual({ scalar: 'numeric' });
    expect(fieldAtom(c, 'anything').map!.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    expect(fieldAtom(c, 'none').map!.elementType).toStrictEqual(EMPTY_TYPE_REF);
  });

  it('x-kubernetes-preserve-unknown-fields opens the struct and every inline descendant, not referenced types', () => {
    const s = models({
      Root: struct(
        {
          spec: struct({ inner: struct({ a: { type: 'string' } }), items: list({}, struct({ b: { type: 'string' } })) }),
          named: { $ref: '#/components/schemas/Named' },
        },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
      Named: struct({ c: { type: 'string' } }),
      Plain: struct({ spec: struct({ a: { type: 'string' } }) }),
    });
    const root = s.resolve({ namedType: 'Root' })!.map!;
    expect(root.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    const spec = s.resolve(root.fieldIndex.get('spec')!.type)!.map!;
    expect(spec.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    expect(s.resolve(spec.fieldIndex.get('inner')!.type)!.map!.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    const item = s.resolve(s.resolve(spec.fieldIndex.get('items')!.type)!.list!.elementType)!;
    expect(item.map!.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
    // A named type is converted on its own: the flag does not cross a $ref.
    expect(s.resolve({ namedType: 'Named' })!.map!.elementType).toStrictEqual(EMPTY_TYPE_REF);
    // Unknown keys under a preserving struct merge as the deduced type: granular maps, atomic lists.
    const live = { spec: { extra: { x: 1 }, list: [1] } };
    const merged = applyStructuredMergeDiff(s, { namedType: 'Root' }, live, { spec: { extra: { y: 2 }, list: [2] } });
    expect(merged.ok && merged.value).toStrictEqual({ spec: { extra: { x: 1, y: 2 }, list: [2] } });
    expect(s.resolve(s.resolve({ namedType: 'Plain' })!.map!.fieldIndex.get('spec')!.type)!.map!.elementType).toStrictEqual(EMPTY_TYPE_REF);
  });

  it('NewTypeConverter(preserveUnknownFields=true) opens every struct', () => {
    const s = models({ T: struct({ a: struct({ b: { type: 'string' } }) }) }, true);
    expect(s.resolve({ namedType: 'T' })!.map!.elementType).toStrictEqual({ namedType: UNTYPED_DEDUCED });
  });
});

describe('OpenAPI → SMD: scalars, untyped schemas and special types (convertPrimitive)', () => {
  it('types scalars by type and format', () => {
    const c = convert(
      struct({
        i: { type: 'integer', format: 'int32' },
        n: { type: 'number', format: 'double' },
        b: { type: 'boolean' },
        s: { type: 'string' },
        bytes: { type: 'string', format: 'byte' },
        ios: { type: 'string', format: 'int-or-string' },
        time: { type: 'string', format: 'date-time' },
        other: { type: 'string', format: 'quantity' },
      }),
    );
    expect(['i', 'n', 'b', 's', 'bytes', 'ios', 'time', 'other'].map((f) => fieldAtom(c, f).scalar)).toStrictEqual([
      'numeric',
      'numeric',
      'boolean',
      'string',
      'string',
      'untyped',
      'untyped',
      'untyped',
    ]);
  });

  it('a schema without type accepts a scalar, a list (atomic, untyped items) and a free-form map', () => {
    const any = fieldAtom(convert(struct({ x: { 'x-kubernetes-int-or-string': true } })), 'x');
    expect(any.scalar).toBe('untyped');
    expect(any.list).toMatchObject({ elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: 'atomic' });
    expect(any.map).toMatchObject({ elementType: { namedType: UNTYPED_DEDUCED } });
  });

  it('rejects an unknown type', () => {
    expect(errorsOf(struct({ x: { type: 'tuple' } }))).toStrictEqual(["OpenAPI schema: inlined in T: unrecognized type: 'tuple'"]);
  });

  it('Quantity and RawExtension are untyped scalars whatever their schema says', () => {
    const s = models({
      'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
      'io.k8s.apimachinery.pkg.runtime.RawExtension': struct({}),
    });
    expect(s.resolve({ namedType: 'io.k8s.apimachinery.pkg.api.resource.Quantity' })).toStrictEqual({ scalar: 'untyped' });
    expect(s.resolve({ namedType: 'io.k8s.apimachinery.pkg.runtime.RawExtension' })).toStrictEqual({ scalar: 'untyped' });
  });
});

describe('OpenAPI → SMD: references and defaults', () => {
  it('$ref and a lone allOf $ref name a type; x-kubernetes-map-type beside a ref overrides its relationship', () => {
    const s = models({
      Root: struct({
        direct: { $ref: '#/components/schemas/Sel' },
        wrapped: { allOf: [{ $ref: '#/components/schemas/Sel' }], description: 'x' },
        granular: { allOf: [{ $ref: '#/components/schemas/Sel' }], 'x-kubernetes-map-type': 'granular' },
      }),
      Sel: struct({ a: { type: 'string' } }, { 'x-kubernetes-map-type': 'atomic' }),
      Alias: { $ref: '#/components/schemas/Sel' },
    });
    const root = s.resolve({ namedType: 'Root' })!.map!;
    expect(root.fieldIndex.get('direct')!.type).toStrictEqual({ namedType: 'Sel' });
    expect(root.fieldIndex.get('wrapped')!.type).toStrictEqual({ namedType: 'Sel' });
    expect(root.fieldIndex.get('granular')!.type).toStrictEqual({ namedType: 'Sel', elementRelationship: 'separable' });
    expect(s.resolve(root.fieldIndex.get('granular')!.type)!.map!.elementRelationship).toBe('separable');
    // A top-level reference is not a type (openapi.go: "Skip/Ignore top-level references").
    expect(s.hasType('Alias')).toBe(false);
    expect(atomicGuard(s, { namedType: 'Root' }, { direct: { a: 'x' }, granular: { a: 'y' } })).toStrictEqual(['.direct']);
  });

  it('carries property defaults, which complete a map-list key an item omits', () => {
    const c = convert(
      struct({
        ports: list(
          { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'] },
          struct({ port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string', default: null } }),
        ),
      }),
    );
    const item = c.schema.resolve(fieldAtom(c, 'ports').list!.elementType)!.map!;
    expect(item.fieldIndex.get('protocol')!.default).toBe('TCP');
    expect('default' in item.fieldIndex.get('name')!).toBe(false);
    const live = { ports: [{ port: 80, protocol: 'TCP' }] };
    const r = applyStructuredMergeDiff(c.schema, c.typeRef, live, { ports: [{ port: 80, name: 'http' }] });
    expect(r.ok && r.value).toStrictEqual({ ports: [{ port: 80, protocol: 'TCP', name: 'http' }] });
  });

  it('borrows referenced types the models do not define from the built-in table, and warns about the rest', () => {
    const r = convertOpenApiSchema(
      struct({ metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }, other: { $ref: '#/components/schemas/Nowhere' } }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.schema.hasType('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')).toBe(true);
    expect(r.value.schema.hasType('io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference')).toBe(true);
    expect(r.diagnostics.map((d) => [d.severity, d.message])).toStrictEqual([
      ['warning', 'OpenAPI schema: type Nowhere is referenced but not defined; values of it cannot be typed ("no type found matching")'],
    ]);
    // ObjectMeta's finalizers are a set and its ownerReferences are keyed by uid (each one an atomic struct).
    const live = { metadata: { finalizers: ['a'], ownerReferences: [{ uid: '1', name: 'x' }] } };
    const patch = { metadata: { finalizers: ['b'], ownerReferences: [{ uid: '2', name: 'y' }] } };
    expect(atomicGuard(r.value.schema, r.value.typeRef, patch)).toStrictEqual(['.metadata.ownerReferences[0]']);
    const m = applyStructuredMergeDiff(r.value.schema, r.value.typeRef, live, patch, { atomicGuard: false });
    expect(m.ok && m.value).toStrictEqual({ metadata: { finalizers: ['a', 'b'], ownerReferences: [{ uid: '1', name: 'x' }, { uid: '2', name: 'y' }] } });
  });

  it('treats __proto__ and constructor as ordinary property names', () => {
    const props = JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "integer"}}') as JsonObject;
    const c = convert({ type: 'object', properties: props });
    expect(fieldAtom(c, '__proto__').scalar).toBe('string');
    expect(fieldAtom(c, 'constructor').scalar).toBe('numeric');
  });
});

describe('OpenAPI v3 documents', () => {
  const DOC = `{
  "openapi": "3.0.0",
  "components": {
    "schemas": {
      "com.example.v1.Widget": {
        "type": "object",
        "properties": {
          "apiVersion": {"type": "string"},
          "kind": {"type": "string"},
          "spec": {"type": "object", "properties": {"tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}
        },
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}]
      },
      "com.example.v1.Part": {"type": "object", "properties": {"a": {"type": "string"}}}
    }
  }
}`;

  it('finds the kinds by x-kubernetes-group-version-kind', () => {
    const docs = loadYamlText('widget.json', DOC);
    if (!docs.ok) throw new Error('load');
    const r = convertOpenApiDocument(docs.value[0]!.value, { source: docs.value[0]! });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.kinds.keys()).toStrictEqual(['example.com/v1/Widget']);
    const widget = r.value.kinds.get({ group: 'example.com', version: 'v1', kind: 'Widget' })!;
    expect(widget.typeRef).toStrictEqual({ namedType: 'com.example.v1.Widget' });
    const m = applyStructuredMergeDiff(widget.schema, widget.typeRef, { spec: { tags: ['a'] } }, { spec: { tags: ['b'] } });
    expect(m.ok && m.value).toStrictEqual({ spec: { tags: ['a', 'b'] } });
  });

  it('reports problems at file:line:col', () => {
    const bad = DOC.replace('"x-kubernetes-list-type": "set"', '"x-kubernetes-list-type": "bag"');
    const docs = loadYamlText('widget.json', bad);
    if (!docs.ok) throw new Error('load');
    const r = convertOpenApiDocument(docs.value[0]!.value, { source: docs.value[0]! });
    expect(r.ok).toBe(false);
    const d = r.diagnostics[0]!;
    expect(d.message).toBe('OpenAPI schema: inlined in inlined in com.example.v1.Widget: unknown list type bag');
    const line = bad.split('\n').findIndex((l) => l.includes('"bag"')) + 1;
    expect(d.span).toMatchObject({ file: 'widget.json', line });
    expect(bad.split('\n')[line - 1]!.slice(d.span!.col - 1)).toMatch(/^"bag"/);
  });

  it('rejects a document without components.schemas', () => {
    const r = convertOpenApiDocument({ swagger: '2.0', definitions: {} });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toContain('expected components.schemas');
  });
});
