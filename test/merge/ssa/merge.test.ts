import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import {
  DEDUCED_SCHEMA,
  DEDUCED_TYPE_REF,
  loadSmdSchema,
  mergeTyped,
  mergeValidated,
  parseSmdSchemaYaml,
  validateTyped,
  type Schema,
} from '../../../src/merge/ssa/index.js';
import { goFloat } from '../../../src/merge/ssa/go-format.js';
import { deepFreeze } from './support.js';

function load(doc: unknown): Schema {
  const r = loadSmdSchema(doc);
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value;
}

/** A small schema in the style of structured-merge-diff's tests. */
const schema = load({
  types: [
    {
      name: 'root',
      map: {
        fields: [
          { name: 'list', type: { namedType: 'keyed' } },
          { name: 'ports', type: { list: { elementType: { namedType: 'port' }, elementRelationship: 'associative', keys: ['containerPort', 'protocol'] } } },
          { name: 'set', type: { list: { elementType: { scalar: 'string' }, elementRelationship: 'associative' } } },
          { name: 'atomicList', type: { list: { elementType: { scalar: 'string' }, elementRelationship: 'atomic' } } },
          { name: 'plainList', type: { list: { elementType: { scalar: 'string' } } } },
          { name: 'labels', type: { map: { elementType: { scalar: 'string' } } } },
          { name: 'numeric', type: { scalar: 'numeric' } },
          { name: 'string', type: { scalar: 'string' } },
          { name: 'bool', type: { scalar: 'boolean' } },
          { name: 'nested', type: { namedType: 'root' } },
        ],
      },
    },
    {
      name: 'keyed',
      list: { elementType: { namedType: 'element' }, elementRelationship: 'associative', keys: ['key', 'id'] },
    },
    {
      name: 'element',
      map: {
        fields: [
          { name: 'key', type: { scalar: 'string' } },
          { name: 'id', type: { scalar: 'numeric' } },
          { name: 'value', type: { scalar: 'string' } },
        ],
      },
    },
    {
      name: 'port',
      map: {
        fields: [
          { name: 'containerPort', type: { scalar: 'numeric' } },
          { name: 'protocol', type: { scalar: 'string' }, default: 'TCP' },
          { name: 'name', type: { scalar: 'string' } },
        ],
      },
    },
  ],
});
const ROOT = { namedType: 'root' };

function merged(lhs: JsonValue, rhs: JsonValue): JsonValue {
  const r = mergeTyped(schema, ROOT, deepFreeze(lhs), deepFreeze(rhs));
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value;
}

function mergeError(lhs: JsonValue, rhs: JsonValue): string {
  const r = mergeTyped(schema, ROOT, lhs, rhs);
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.diagnostics[0]!.message;
}

describe('mergeTyped: semantics', () => {
  it('a missing key field takes the schema default (ports protocol TCP)', () => {
    expect(merged({ ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'UDP' }] }, { ports: [{ containerPort: 80, name: 'http' }] })).toStrictEqual({
      ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 80, protocol: 'UDP' }],
    });
  });

  it('a null patch value is ignored on a non-empty granular map but clears a scalar and an atomic list', () => {
    expect(merged({ labels: { a: 'b' }, string: 's', atomicList: ['x'] }, { labels: null, string: null, atomicList: null })).toStrictEqual({
      labels: { a: 'b' },
      string: null,
      atomicList: null,
    });
  });

  it('keeps lhs key order and appends new keys in rhs order', () => {
    expect(Object.keys(merged({ string: 's', bool: true }, { numeric: 1, string: 't', labels: {} }) as JsonObject)).toStrictEqual(['string', 'bool', 'numeric', 'labels']);
  });

  it('keeps __proto__ as an ordinary map key', () => {
    const lhs = JSON.parse('{"labels":{"__proto__":"a","x":"1"}}') as JsonValue;
    const rhs = JSON.parse('{"labels":{"__proto__":"b","y":"2"}}') as JsonValue;
    const out = merged(lhs, rhs) as { labels: JsonObject };
    expect(Object.getPrototypeOf(out.labels)).toBe(Object.prototype);
    expect(Object.keys(out.labels)).toStrictEqual(['__proto__', 'x', 'y']);
    expect(Object.getOwnPropertyDescriptor(out.labels, '__proto__')?.value).toBe('b');
  });

  it('copy-on-write: unchanged subtrees are shared, an unchanged result is lhs itself', () => {
    const lhs = deepFreeze({ nested: { labels: { a: 'b' } }, list: [{ key: 'a', id: 1, value: 'v' }], string: 's' } as JsonValue);
    const out = merged(lhs, { string: 't' }) as JsonObject;
    expect(out['nested']).toBe((lhs as JsonObject)['nested']);
    expect(out['list']).toBe((lhs as JsonObject)['list']);
    expect(merged(lhs, { string: 's', list: [{ key: 'a', id: 1 }], nested: { labels: { a: 'b' } } })).toBe(lhs);
  });

  it('the deduced schema merges maps key by key and replaces lists', () => {
    const r = mergeTyped(DEDUCED_SCHEMA, DEDUCED_TYPE_REF, { a: { b: [1, 2], c: 1 } }, { a: { b: [3], d: 2 } });
    expect(r.ok && r.value).toStrictEqual({ a: { b: [3], c: 1, d: 2 } });
  });
});

describe('mergeTyped: errors with upstream wording', () => {
  it('unknown field of a closed struct', () => {
    expect(mergeError({}, { nested: { zzz: 1 } })).toBe('failed to convert patch object to typed object: .nested.zzz: field not declared in schema');
  });

  it('unknown field inside a keyed list item is located by its key', () => {
    expect(mergeError({}, { list: [{ key: 'a', id: 1, zzz: 1 }] })).toBe(
      'failed to convert patch object to typed object: .list[id=1,key="a"].zzz: field not declared in schema',
    );
  });

  it('duplicate keys in the patch', () => {
    expect(mergeError({}, { list: [{ key: 'a', id: 1 }, { key: 'a', id: 1, value: 'x' }] })).toBe(
      'failed to convert patch object to typed object: .list: duplicate entries for key [id=1,key="a"]',
    );
    expect(mergeError({}, { set: ['a', 'a'] })).toBe('failed to convert patch object to typed object: .set: duplicate entries for key [="a"]');
  });

  it('duplicate keys in the live object are tolerated', () => {
    expect(merged({ set: ['a', 'a'] }, { string: 'x' })).toStrictEqual({ set: ['a', 'a'], string: 'x' });
  });

  it('a map-list item without a key and without default', () => {
    expect(mergeError({}, { list: [{ key: 'a' }] })).toBe(
      'failed to convert patch object to typed object: .list: element 0: associative list with keys has an element that omits key field "id" (and doesn\'t have default value)',
    );
  });

  it('set items must be scalars', () => {
    expect(mergeError({}, { set: [{ a: 1 }] })).toBe(
      "failed to convert patch object to typed object: .set: element 0: associative list without keys has an element that's a map type",
    );
  });

  it('scalar kinds', () => {
    expect(mergeError({}, { numeric: 'x' })).toBe('failed to convert patch object to typed object: .numeric: expected numeric (int or float), got string');
    expect(mergeError({}, { string: 1 })).toBe('failed to convert patch object to typed object: .string: expected string, got &value.valueUnstructured{Value:1}');
    expect(mergeError({}, { bool: 'yes' })).toBe('failed to convert patch object to typed object: .bool: expected boolean, got &{yes}');
  });

  it('several errors are listed', () => {
    expect(mergeError({}, { numeric: 'x', bool: 1 })).toBe(
      'failed to convert patch object to typed object: errors:\n  .numeric: expected numeric (int or float), got string\n  .bool: expected boolean, got &{1}',
    );
  });

  it('an invalid live object is reported as such', () => {
    expect(mergeError({ zzz: 1 }, {})).toBe('failed to convert original object to typed object: .zzz: field not declared in schema');
  });

  it('a list that is neither atomic nor associative cannot be merged, even when the patch does not touch it', () => {
    expect(mergeError({}, { plainList: ['a'] })).toBe('failed to merge patch: .plainList: element 0: invalid indexing of non-associative list');
    expect(mergeError({ plainList: ['a'] }, { string: 'x' })).toBe('failed to merge patch: .plainList: element 0: invalid indexing of non-associative list');
    expect(merged({ plainList: [] }, { plainList: [] })).toStrictEqual({ plainList: [] });
  });
});

describe('validateTyped and mergeValidated', () => {
  it('validateTyped returns structured errors', () => {
    expect(validateTyped(schema, ROOT, { nested: { numeric: true } })).toStrictEqual([
      { path: '.nested.numeric', message: 'expected numeric (int or float), got bool' },
    ]);
  });
  it('mergeValidated is the merge alone', () => {
    expect(mergeValidated(schema, ROOT, { set: ['a', 'b', 'c', 'd'] }, { set: ['d', 'e', 'f', 'a'] })).toStrictEqual({
      value: { set: ['b', 'c', 'd', 'e', 'f', 'a'] },
      errors: [],
    });
  });
});

describe('schema loading', () => {
  it('reads the YAML form, reference overrides and defaults', () => {
    const r = parseSmdSchemaYaml(
      'types:\n- name: t\n  map:\n    fields:\n    - name: r\n      type:\n        namedType: a\n        elementRelationship: separable\n- name: a\n  map:\n    elementRelationship: atomic\n    elementType:\n      scalar: string\n',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.resolve({ namedType: 'a' })?.map?.elementRelationship).toBe('atomic');
    expect(r.value.resolve({ namedType: 'a', elementRelationship: 'separable' })?.map?.elementRelationship).toBe('separable');
    expect(r.value.resolve({ namedType: 'missing' })).toBeUndefined();
  });

  it('rejects malformed schemas with a diagnostic', () => {
    const bad = loadSmdSchema({ types: [{ name: 't', list: { elementRelationship: 'sometimes' } }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.diagnostics[0]!.message).toBe('SMD schema: types[0].list.elementRelationship: expected one of associative, atomic, separable');
    const syntax = parseSmdSchemaYaml('types: [', 'schema.yaml');
    expect(!syntax.ok && syntax.diagnostics[0]!.code).toBe('TM1001');
  });

  it('a missing named type is a merge error', () => {
    const s = load({ types: [{ name: 't', map: { fields: [{ name: 'a', type: { namedType: 'nope' } }] } }] });
    const r = mergeTyped(s, { namedType: 't' }, {}, { a: 1 });
    expect(!r.ok && r.diagnostics[0]!.message).toBe('failed to convert patch object to typed object: .a: schema error: no type found matching: nope');
  });
});

describe('Go number formatting in messages', () => {
  it('matches fmt %v of float64', () => {
    expect(goFloat(3.14159)).toBe('3.14159');
    expect(goFloat(123456.5)).toBe('123456.5');
    expect(goFloat(1234567.5)).toBe('1.2345675e+06');
    expect(goFloat(0.00001)).toBe('1e-05');
  });
});
