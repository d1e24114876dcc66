/**
 * Differential test of the generated typing check (src/merge/ssa/typing-check.ts, through fast-checks.ts
 * typesCleanly with duplicates allowed) against the generic walk and the reference typing, over the shapes
 * the generator writes differently: children written inline and called (the depth limit, the field budget,
 * recursion), maps with declared fields and an element type, lists of lists, keyed lists whose items count
 * their key fields, null, missing and formless atoms, `__proto__` and other Object.prototype names as keys,
 * objects without prototype or with inherited enumerable keys. Values are drawn from each schema at random
 * (seeded) and broken at random. The benchmark Pods and the corpus are compared in fast-checks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { typesCleanly, typesCleanlyByWalk } from '../../../src/merge/ssa/fast-checks.js';
import { loadSmdSchema, type Schema } from '../../../src/merge/ssa/index.js';
import type { TypeNode } from '../../../src/merge/ssa/type-nodes.js';
import { INLINE_FIELD_BUDGET, INLINE_MAX_DEPTH } from '../../../src/merge/ssa/typing-plan.js';
import { typingErrors } from '../../../src/merge/ssa/validate.js';
import { mulberry32 } from '../../support/random.js';

type Random = () => number;

/** mulberry32 (test/support/random.ts): seeded, so that a failure replays. */
const seeded: (seed: number) => Random = mulberry32;

function pick<T>(rnd: Random, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

const STRAYS: JsonValue[] = [null, 0, 2.5, '', 'x', true, false, [], [null], {}, { zz: 1 }, [[1]]];

function scalarOf(kind: string | undefined, rnd: Random): JsonValue {
  switch (kind) {
    case 'numeric':
      return pick(rnd, [0, 7, -1.5]);
    case 'string':
      return pick(rnd, ['', 'a', 'name']);
    case 'boolean':
      return rnd() < 0.5;
    default:
      return pick(rnd, [1, 's', false]);
  }
}

/**
 * A value for `n`, mostly of the node's own form, now and then of another (the generator's `return false`
 * branches) or with an undeclared key; keyed list items mostly have their key fields.
 */
function sample(n: TypeNode, rnd: Random, depth: number): JsonValue {
  if (rnd() < 0.06 || depth > 9 || n.atom === undefined) return pick(rnd, STRAYS);
  const forms = [n.map && 'map', n.list && 'list', n.scalar !== undefined && 'scalar'].filter((f): f is string => typeof f === 'string');
  if (forms.length === 0) return pick(rnd, STRAYS);
  const form = pick(rnd, forms);
  if (form === 'scalar') return rnd() < 0.1 ? null : scalarOf(n.scalar, rnd);
  if (form === 'list') {
    const t = n.list!;
    const items: JsonValue[] = [];
    for (let i = Math.floor(rnd() * 4); i > 0; i--) {
      const item = sample(n.item, rnd, depth + 1);
      if (t.keys.length > 0 && item !== null && typeof item === 'object' && !Array.isArray(item) && rnd() < 0.85) {
        for (const key of t.keys) if (rnd() < 0.95) item[key] = n.item.map && n.item.declaredNode(key)?.scalar !== undefined ? scalarOf(n.item.declaredNode(key)!.scalar, rnd) : pick(rnd, ['k', 3]);
      }
      items.push(item);
    }
    return items;
  }
  const m = n.map!;
  const out: JsonObject = {};
  const names = [...m.fieldIndex.keys()];
  for (let i = Math.floor(rnd() * 5); i > 0 && names.length > 0; i--) {
    const name = pick(rnd, names);
    out[name] = sample(n.declaredNode(name)!, rnd, depth + 1);
  }
  if (!n.closed) for (let i = Math.floor(rnd() * 3); i > 0; i--) out[`e${i}`] = sample(n.elementNode, rnd, depth + 1);
  if (rnd() < 0.04) out.zzUndeclared = 1;
  return out;
}

/** The same object without prototype, or with an enumerable inherited key (for..in meets it, hasOwn skips it). */
function reparent(v: JsonValue, rnd: Random): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => reparent(x, rnd));
  const roll = rnd();
  const proto = roll < 0.15 ? null : roll < 0.3 ? { zzInherited: 1, name: 'inherited' } : Object.prototype;
  const out = Object.create(proto) as JsonObject;
  for (const key of Object.keys(v)) out[key] = reparent(v[key]!, rnd);
  return out;
}

function loaded(types: unknown[]): Schema {
  const schema = loadSmdSchema({ types });
  if (!schema.ok) throw new Error(`schema does not load: ${JSON.stringify(schema)}`);
  return schema.value;
}

/** The generated check, the walk and the reference typing give one answer for `value`. */
function expectAgreement(schema: Schema, root: string, value: JsonValue, name: string): boolean {
  const node = schema.node({ namedType: root });
  const reference = typingErrors(schema, { namedType: root }, value, true, undefined).length === 0;
  expect(typesCleanlyByWalk(schema, node, value, true, undefined), `${name}: the walk`).toBe(reference);
  expect(typesCleanly(schema, node, value, true, undefined), `${name}: the generated check on ${JSON.stringify(value)}`).toBe(reference);
  expect(typeof node.generatedTypingCheck, `${name}: generated code ran`).toBe('function');
  return reference;
}

/** `count` random values of `root` (and their reparented copies) compared; both answers must occur. */
function expectRandomAgreement(schema: Schema, root: string, seed: number, count = 400): void {
  const rnd = seeded(seed);
  const node = schema.node({ namedType: root });
  const answers = new Set<boolean>();
  for (let i = 0; i < count; i++) {
    const value = sample(node, rnd, 0);
    answers.add(expectAgreement(schema, root, value, `${root} #${i}`));
    expectAgreement(schema, root, reparent(value, rnd), `${root} #${i} reparented`);
  }
  expect([...answers].sort(), `${root}: values that type and values that do not`).toEqual([false, true]);
}

/** The nodes below `root` that got a function of their own (called, not written inline). */
function calledNodes(schema: Schema, root: string): number {
  const seen = new Set<TypeNode>();
  let called = 0;
  const visit = (n: TypeNode, depth: number): void => {
    if (seen.has(n) || depth > 40 || n.atom === undefined) return;
    seen.add(n);
    if (depth > 0 && typeof n.generatedTypingCheck === 'function') called++;
    if (n.map) {
      for (const name of n.map.fieldIndex.keys()) visit(n.declaredNode(name)!, depth + 1);
      if (!n.closed) visit(n.elementNode, depth + 1);
    }
    if (n.list) visit(n.item, depth + 1);
  };
  visit(schema.node({ namedType: root }), 0);
  return called;
}

const string = { scalar: 'string' };
const numeric = { scalar: 'numeric' };

describe('the generated typing check agrees with the walk', () => {
  it('below the depth limit and past it (a chain of types deeper than INLINE_MAX_DEPTH)', () => {
    const levels = INLINE_MAX_DEPTH + 6;
    const types = Array.from({ length: levels }, (_, i) => ({
      name: `t${i}`,
      map: {
        fields: [
          { name: 's', type: string },
          ...(i + 1 < levels ? [{ name: 'next', type: { namedType: `t${i + 1}` } }, { name: 'many', type: { list: { elementType: { namedType: `t${i + 1}` }, elementRelationship: 'atomic' } } }] : []),
        ],
      },
    }));
    const schema = loaded(types);
    let deep: JsonValue = { s: 'leaf' };
    for (let i = levels - 2; i >= 0; i--) deep = { s: `l${i}`, next: deep, many: [deep] };
    expect(expectAgreement(schema, 't0', deep, 'the whole chain')).toBe(true);
    expect(calledNodes(schema, 't0'), 'levels past the limit are called').toBeGreaterThan(0);
    expectRandomAgreement(schema, 't0', 1);
  });

  it('past the field budget (a root wider than INLINE_FIELD_BUDGET)', () => {
    const fields = Array.from({ length: INLINE_FIELD_BUDGET }, (_, i) => ({ name: `f${i}`, type: { namedType: 'small' } }));
    const schema = loaded([
      { name: 'wide', map: { fields } },
      { name: 'small', map: { fields: [{ name: 'a', type: numeric }, { name: 'bb', type: string }, { name: 'cc', type: { namedType: 'small' } }] } },
    ]);
    const value: JsonObject = {};
    for (let i = 0; i < INLINE_FIELD_BUDGET; i += 7) value[`f${i}`] = { a: i, bb: 'x', cc: { a: 1 } };
    expect(expectAgreement(schema, 'wide', value, 'every seventh field')).toBe(true);
    expect(calledNodes(schema, 'wide'), 'fields past the budget are called').toBeGreaterThan(0);
    expectRandomAgreement(schema, 'wide', 2, 150);
  });

  it('through recursion (a tree keyed by name, with a map of subtrees)', () => {
    const schema = loaded([
      {
        name: 'tree',
        map: {
          fields: [
            { name: 'name', type: string },
            { name: 'children', type: { list: { elementType: { namedType: 'tree' }, elementRelationship: 'associative', keys: ['name'] } } },
            { name: 'byName', type: { map: { elementType: { namedType: 'tree' } } } },
            { name: 'weight', type: numeric },
          ],
        },
      },
    ]);
    const leaf = { name: 'c', weight: 1 };
    const tree = { name: 'a', children: [{ name: 'b', children: [leaf], byName: { x: leaf } }, leaf, leaf], byName: { y: { name: 'd', byName: {} } } };
    expect(expectAgreement(schema, 'tree', tree, 'a tree (duplicates allowed)')).toBe(true);
    expect(expectAgreement(schema, 'tree', { name: 'a', children: [{ weight: 1 }] }, 'a child without its key')).toBe(false);
    expectRandomAgreement(schema, 'tree', 3);
  });

  it('on maps with declared fields and an element type, lists of lists, and sets', () => {
    const schema = loaded([
      {
        name: 'root',
        map: {
          fields: [
            { name: 'grid', type: { list: { elementType: { list: { elementType: { list: { elementType: numeric, elementRelationship: 'atomic' } }, elementRelationship: 'atomic' } }, elementRelationship: 'atomic' } } },
            { name: 'tags', type: { list: { elementType: string, elementRelationship: 'associative' } } },
            { name: 'open', type: { namedType: 'open' } },
            { name: 'either', type: { namedType: 'either' } },
            { name: 'untyped', type: { namedType: '__untyped_atomic_' } },
          ],
        },
      },
      // Declared fields of their own types, any other key a list of strings.
      { name: 'open', map: { fields: [{ name: 'kind', type: string }, { name: 'size', type: numeric }], elementType: { list: { elementType: string, elementRelationship: 'atomic' } } } },
      // Every form at once: a map, a list and a scalar.
      { name: 'either', map: { fields: [{ name: 'a', type: numeric }], elementType: string }, list: { elementType: { namedType: 'either' }, elementRelationship: 'atomic' }, scalar: 'boolean' },
      { name: '__untyped_atomic_', scalar: 'untyped', list: { elementType: { namedType: '__untyped_atomic_' }, elementRelationship: 'atomic' }, map: { elementType: { namedType: '__untyped_atomic_' }, elementRelationship: 'atomic' } },
    ]);
    const value = { grid: [[[1, 2], []], [[3]]], tags: ['a', 'b', 'a'], open: { kind: 'k', size: 1, other: ['x'] }, either: [true, { a: 1, b: 's' }, [false]], untyped: { a: [1, { b: 'c' }] } };
    expect(expectAgreement(schema, 'root', value, 'every shape')).toBe(true);
    expect(expectAgreement(schema, 'root', { grid: [[[1, 'x']]] }, 'a string deep in the grid')).toBe(false);
    expect(expectAgreement(schema, 'root', { open: { other: 'x' } }, 'an element that is not a list')).toBe(false);
    expect(expectAgreement(schema, 'root', { tags: [null] }, 'a null set member')).toBe(false);
    expectRandomAgreement(schema, 'root', 4);
  });

  it('on keyed lists: key fields counted by the item, missing, inherited, not enumerable or undeclared', () => {
    const schema = loaded([
      {
        name: 'root',
        map: {
          fields: [
            { name: 'ports', type: { list: { elementType: { namedType: 'port' }, elementRelationship: 'associative', keys: ['port', 'protocol'] } } },
            // A key the item does not declare: the item's own loop cannot count it.
            { name: 'loose', type: { list: { elementType: { namedType: 'open' }, elementRelationship: 'associative', keys: ['id'] } } },
            { name: 'nested', type: { list: { elementType: { namedType: 'nest' }, elementRelationship: 'associative', keys: ['name'] } } },
          ],
        },
      },
      { name: 'port', map: { fields: [{ name: 'port', type: numeric }, { name: 'protocol', type: string }, { name: 'name', type: string }] } },
      { name: 'open', map: { fields: [{ name: 'x', type: numeric }], elementType: string } },
      // The key name again one level down: only the item's own keys count.
      { name: 'nest', map: { fields: [{ name: 'name', type: string }, { name: 'inner', type: { namedType: 'nest' } }] } },
    ]);
    const hidden = { port: 1 } as JsonObject;
    Object.defineProperty(hidden, 'protocol', { value: 'TCP', enumerable: false });
    const inherited = Object.create({ protocol: 'TCP' }) as JsonObject;
    inherited.port = 2;
    const cases: [string, JsonValue, boolean][] = [
      ['both keys', { ports: [{ port: 1, protocol: 'TCP' }, { protocol: 'UDP', port: 1, name: 'n' }] }, true],
      ['one key missing', { ports: [{ port: 1, name: 'n' }] }, true],
      ['no key at all', { ports: [{ name: 'n' }] }, false],
      ['a null key', { ports: [{ port: null, protocol: 'TCP' }] }, true],
      ['a key not enumerable', { ports: [hidden] }, true],
      ['a key inherited only', { ports: [inherited] }, true],
      ['an item that is a list', { ports: [[{ port: 1, protocol: 'TCP' }]] }, false],
      ['a null item', { ports: [null] }, false],
      ['an undeclared key present', { loose: [{ id: 'a', x: 1 }] }, true],
      ['an undeclared key absent', { loose: [{ x: 1 }] }, false],
      ['the key one level down only', { nested: [{ inner: { name: 'a' } }] }, false],
      ['the key at both levels', { nested: [{ name: 'a', inner: { name: 'b' } }] }, true],
    ];
    for (const [name, value] of cases) expectAgreement(schema, 'root', value, name);
    expectRandomAgreement(schema, 'root', 5);
  });

  it('on null, missing and formless atoms, at fields, elements and items', () => {
    const schema = loaded([
      {
        name: 'root',
        map: {
          fields: [
            { name: 'formless', type: { namedType: 'formless' } },
            { name: 'missing', type: { namedType: 'nowhere' } },
            { name: 'formlessItems', type: { list: { elementType: { namedType: 'formless' }, elementRelationship: 'atomic' } } },
            { name: 'missingElements', type: { map: { elementType: { namedType: 'nowhere' } } } },
            { name: 'child', type: { namedType: 'child' } },
          ],
        },
      },
      { name: 'formless' },
      { name: 'child', map: { fields: [{ name: 'a', type: numeric }] } },
    ]);
    for (const v of [null, 1, 's', true, [], {}, [null], { a: null }] as JsonValue[]) {
      for (const field of ['formless', 'missing', 'formlessItems', 'missingElements', 'child']) {
        expectAgreement(schema, 'root', { [field]: v }, `${field} given ${JSON.stringify(v)}`);
      }
    }
    expect(expectAgreement(schema, 'root', null, 'a null root')).toBe(true);
    expect(expectAgreement(schema, 'formless', null, 'a null formless root')).toBe(false);
    expect(expectAgreement(schema, 'nowhere', null, 'a null missing root')).toBe(false);
    expectRandomAgreement(schema, 'root', 6);
  });

  it('on keys named like Object.prototype members, and fields of one length', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'aaa', 'bbb', 'ccc', 'ddd', 'a'];
    const schema = loaded([
      { name: 'root', map: { fields: [...names.map((name) => ({ name, type: string })), { name: 'closed', type: { namedType: 'closed' } }, { name: 'labels', type: { map: { elementType: string } } }] } },
      { name: 'closed', map: { fields: [{ name: 'x', type: numeric }] } },
    ]);
    const parse = (s: string): JsonValue => JSON.parse(s) as JsonValue;
    const cases: [string, JsonValue, boolean][] = [
      ['__proto__ declared', parse('{"__proto__": "p", "constructor": "c", "": "e", "ccc": "c"}'), true],
      ['__proto__ of the wrong type', parse('{"__proto__": 1}'), false],
      ['__proto__ undeclared in a closed struct', parse('{"closed": {"__proto__": 1}}'), false],
      ['constructor undeclared in a closed struct', parse('{"closed": {"constructor": 1}}'), false],
      ['toString as a label', parse('{"labels": {"toString": "t", "__proto__": "p"}}'), true],
      ['__proto__ label of the wrong type', parse('{"labels": {"__proto__": {}}}'), false],
      ['a key of a declared length, undeclared', { eee: 'e' }, false],
    ];
    for (const [name, value, types] of cases) expect(expectAgreement(schema, 'root', value, name), name).toBe(types);
    const bare = Object.create(null) as JsonObject;
    bare.aaa = 'a';
    bare.closed = Object.assign(Object.create(null) as JsonObject, { x: 1 });
    expect(expectAgreement(schema, 'root', bare, 'objects without prototype')).toBe(true);
    expectRandomAgreement(schema, 'root', 7);
  });
});
