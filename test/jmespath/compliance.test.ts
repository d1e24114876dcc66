/**
 * A representative JMESPath compliance table (the `jmespath` package ships no compliance suite),
 * with go-jmespath's answers where implementations differ.
 */
import { describe, expect, it } from 'vitest';
import { compileJmes } from '../../src/jmespath/index.js';
import { value } from './helpers.js';

type Case = [expression: string, data: unknown, expected: unknown];

const people = {
  people: [
    { name: 'a', age: 30, tags: ['x', 'y'] },
    { name: 'b', age: 20, tags: [] },
    { name: 'c', age: 40 },
  ],
};

const groups: Record<string, Case[]> = {
  identifiers: [
    ['foo', { foo: 'bar' }, 'bar'],
    ['foo.bar.baz', { foo: { bar: { baz: 1 } } }, 1],
    ['"foo bar"', { 'foo bar': 2 }, 2],
    ['"\\u00e9"', { é: 3 }, 3],
    ['foo.bar', { foo: 'str' }, null],
    ['foo.bar', { foo: [1] }, null],
    ['foo.bar', { foo: null }, null],
    ['__proto__', JSON.parse('{"__proto__": 5}'), 5],
  ],
  indexes: [
    ['[0]', [1, 2, 3], 1],
    ['[-1]', [1, 2, 3], 3],
    ['[5]', [1, 2, 3], null],
    ['[-5]', [1, 2, 3], null],
    ['foo[0]', { foo: 'abc' }, null],
    ['foo[1].bar', { foo: [{ bar: 1 }, { bar: 2 }] }, 2],
  ],
  slices: [
    ['[0:2]', [0, 1, 2, 3], [0, 1]],
    ['[::2]', [0, 1, 2, 3, 4], [0, 2, 4]],
    ['[::-1]', [0, 1, 2], [2, 1, 0]],
    ['[-2:]', [0, 1, 2, 3], [2, 3]],
    ['[10:]', [0, 1], []],
    ['[:-10]', [0, 1], []],
    ['[5:1:-2]', [0, 1, 2, 3, 4, 5, 6], [5, 3]],
    ['[1:3].a', [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }], [2, 3]],
    ['foo[0:3]', { foo: 'añbc' }, 'añb'],
    ['foo[::-1]', { foo: 'añb' }, 'bña'],
    ['foo[1:]', { foo: 'a😀b' }, '😀b'],
    ['foo[0:2].bar', { foo: 'abc' }, 'ab'],
    ['foo[0:2]', { foo: 5 }, null],
  ],
  projections: [
    ['people[*].name', people, ['a', 'b', 'c']],
    ['people[*].tags[0]', people, ['x']],
    ['people[].tags[]', people, ['x', 'y']],
    ['people[*].missing', people, []],
    ['*.a', { x: { a: 1 }, y: { a: 2 }, z: {} }, [1, 2]],
    ['*', { x: 1, y: 2 }, [1, 2]],
    ['foo[*]', { foo: 'str' }, null],
    ['foo.*', { foo: [1] }, null],
    ['[*][0]', [[1, 2], [3], []], [1, 3]],
    ['[][]', [[1, [2, 3]], [4]], [1, 2, 3, 4]],
    ['[]', [1, [2, [3]]], [1, 2, [3]]],
    ['foo[]', { foo: 'x' }, null],
    ['reservations[*].instances[*].id', { reservations: [{ instances: [{ id: 1 }, { id: 2 }] }, { instances: [{ id: 3 }] }] }, [[1, 2], [3]]],
    ['reservations[].instances[].id', { reservations: [{ instances: [{ id: 1 }, { id: 2 }] }, { instances: [{ id: 3 }] }] }, [1, 2, 3]],
  ],
  filters: [
    ['people[?age > `25`].name', people, ['a', 'c']],
    ['people[?age >= `30`].name', people, ['a', 'c']],
    ['people[?name == `"b"`].age', people, [20]],
    ["people[?name != 'b'].name", people, ['a', 'c']],
    ['people[?tags].name', people, ['a']],
    ['people[?!tags].name', people, ['b', 'c']],
    ['people[?age < `30` || age > `35`].name', people, ['b', 'c']],
    ['people[?age > `25` && tags].name', people, ['a']],
    ['[?@ > `1`]', [1, 2, 3], [2, 3]],
    ["[?@ > 'a']", ['a', 'b'], []],
    ['foo[?bar]', { foo: { bar: 1 } }, null],
    ['people[?age > `25`] | [0].name', people, 'a'],
    ['people[?age > `25`][].name', people, ['a', 'c']],
  ],
  multiselect: [
    ['[a, b]', { a: 1, b: 2 }, [1, 2]],
    ['{x: a, y: b}', { a: 1, b: 2 }, { x: 1, y: 2 }],
    ['people[*].[name, age]', people, [['a', 30], ['b', 20], ['c', 40]]],
    ['people[*].{n: name}', people, [{ n: 'a' }, { n: 'b' }, { n: 'c' }]],
    ['foo.[a, b]', { foo: null }, null],
    ['foo.{a: a}', { foo: {} }, { a: null }],
    ['[a, missing]', { a: 1 }, [1, null]],
  ],
  pipes: [
    ['foo | bar', { foo: { bar: 1 } }, 1],
    ['people[*].name | [0]', people, 'a'],
    ['people[*] | length(@)', people, 3],
    ['a | b | c', { a: { b: { c: 7 } } }, 7],
  ],
  literals: [
    ['`"foo"`', null, 'foo'],
    ['`[1, 2]`', null, [1, 2]],
    ['`{"a": true}`', null, { a: true }],
    ['`null`', null, null],
    ["'raw'", null, 'raw'],
    ["'it\\'s'", null, "it's"],
    ["'a\\'b\\'c'", null, "a'b'c"],
    ["'back\\\\slash'", null, 'back\\\\slash'],
    ['`1.5`', null, 1.5],
  ],
  comparators: [
    ['a == b', { a: [1, { x: 2 }], b: [1, { x: 2 }] }, true],
    ['a == b', { a: 1, b: '1' }, false],
    ['a != b', { a: { k: 1 }, b: { k: 2 } }, true],
    ['a < b', { a: 1, b: 2 }, true],
    ["a < b", { a: 'a', b: 'b' }, null],
    ['a > b', { a: 1, b: '2' }, null],
    ['`0` == `-0`', null, true],
  ],
  logic: [
    ['a || b', { a: [], b: 'x' }, 'x'],
    ['a || b', { a: 0, b: 'x' }, 0],
    ['a && b', { a: 'x', b: 'y' }, 'y'],
    ['a && b', { a: {}, b: 'y' }, {}],
    ['!a', { a: '' }, true],
    ['!a', { a: 0 }, false],
    ['!(a || b)', { a: null, b: false }, true],
  ],
  functions: [
    ['abs(`-1.5`)', null, 1.5],
    ['avg(`[1, 2, 3]`)', null, 2],
    ['ceil(`1.2`)', null, 2],
    ['floor(`1.8`)', null, 1],
    ["contains('foobar', 'oba')", null, true],
    ["contains(`[1, \"a\", {\"b\": 1}]`, `{\"b\": 1}`)", null, true],
    ["contains('abc', `1`)", null, false],
    ["ends_with('foobar', 'bar')", null, true],
    ["starts_with('foobar', 'foo')", null, true],
    ["join(', ', `[\"a\", \"b\"]`)", null, 'a, b'],
    ['keys(@)', { b: 1, a: 2 }, ['b', 'a']],
    ['values(@)', { b: 1, a: 2 }, [1, 2]],
    ["length('h€llo')", null, 5],
    ['length(@)', { a: 1, b: 2 }, 2],
    ['map(&a, @)', [{ a: 1 }, { b: 2 }], [1, null]],
    ['max(`[1, 3, 2]`)', null, 3],
    ["max(`[\"a\", \"c\", \"b\"]`)", null, 'c'],
    ['max(`[]`)', null, null],
    ['min(`[1, 3, 2]`)', null, 1],
    ['max_by(@, &age).name', people.people, 'c'],
    ['min_by(@, &age).name', people.people, 'b'],
    ['merge(`{"a": 1}`, `{"b": 2}`, `{"a": 3}`)', null, { a: 3, b: 2 }],
    ['not_null(a, b, `3`)', { a: null }, 3],
    ['not_null(missing, `"x"`)', {}, 'x'],
    ['reverse(`[1, 2, 3]`)', null, [3, 2, 1]],
    ["reverse('añb')", null, 'bña'],
    ['sort(`[3, 1, 2]`)', null, [1, 2, 3]],
    ["sort(`[\"b\", \"a\", \"B\"]`)", null, ['B', 'a', 'b']],
    ['sort_by(@, &age)[*].name', people.people, ['b', 'a', 'c']],
    ['sort_by(@, &name)[*].age', people.people, [30, 20, 40]],
    ['to_array(`1`)', null, [1]],
    ['to_array(`[1]`)', null, [1]],
    ["to_number('12.5')", null, 12.5],
    ["to_number('abc')", null, null],
    ['to_number(`true`)', null, null],
    ['to_string(`[1, {"b": 2, "a": "x&y"}]`)', null, '[1,{"a":"x\\u0026y","b":2}]'],
    ["to_string('already')", null, 'already'],
    ['type(@)', { a: 1 }, 'object'],
    ['type(`null`)', null, 'null'],
    ['type(`true`)', null, 'boolean'],
  ],
};

describe('JMESPath compliance (go-jmespath answers)', () => {
  for (const [group, cases] of Object.entries(groups)) {
    describe(group, () => {
      for (const [expr, data, expected] of cases) {
        it(expr, () => {
          expect(value(expr, data)).toEqual(expected);
        });
      }
    });
  }
});

describe('syntax errors', () => {
  const bad: [string, number][] = [
    ['a.', 3],
    ['foo[?a == `1`', 14],
    ['[1', 3],
    ['a ^ b', 3],
    ['foo.bar)', 8],
    ['{a: }', 5],
  ];
  for (const [expr, column] of bad) {
    it(`${expr} → TM6001 at column ${column}`, () => {
      const r = compileJmes(expr);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.diagnostics[0]!.code).toBe('TM6001');
      expect(r.diagnostics[0]!.message).toContain(`column ${column}`);
    });
  }

  it('maps the column into the source file when given a position', () => {
    const r = compileJmes('a.', { position: { file: 'p.yaml', line: 4, col: 10 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics[0]!.span).toEqual({ file: 'p.yaml', line: 4, col: 12, endLine: 4, endCol: 12 });
  });
});

describe('function dispatch', () => {
  it('reports unknown functions at evaluation time, as go-jmespath does', () => {
    const r = compileJmes('nope(@)');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.search({})).toEqual({ ok: false, error: { kind: 'UnknownFunction', message: 'Unknown function: nope' } });
  });

  it('checks arity and argument types with go-jmespath messages', () => {
    const arity = compileJmes("length('a', 'b')");
    expect(arity.ok && arity.value.search(null)).toEqual({ ok: false, error: { kind: 'InvalidArity', message: 'Incorrect number of args.' } });
    const type = compileJmes('length(`1`)');
    expect(type.ok && type.value.search(null)).toEqual({
      ok: false,
      error: { kind: 'InvalidType', message: 'Invalid type for: 1, expected: []jmespath.JpType{"string", "array", "object"}' },
    });
  });

  it('propagates errors raised inside function arguments', () => {
    const r = compileJmes('length(abs(`"x"`))');
    expect(r.ok && r.value.search(null).ok).toBe(false);
  });

  it('rejects a zero slice step on arrays', () => {
    const r = compileJmes('[::0]');
    expect(r.ok && r.value.search([1])).toEqual({ ok: false, error: { kind: 'Runtime', message: 'Invalid slice, step cannot be 0' } });
  });
});
