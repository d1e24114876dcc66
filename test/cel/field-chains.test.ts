/**
 * The generated field chains (src/cel/fastpath.ts fieldChain) take their fast branch only on JSON objects that
 * hold the field; every other receiver must give what operators.ts select / optSelect give: maps with an own
 * `constructor` key, null-prototype maps, Object values, optionals, missing keys and non-map receivers.
 */
import { describe, expect, it } from 'vitest';
import { compile, MAP_VARIABLES } from '../../src/cel/index.js';

function run(expr: string, object: unknown, variables = true): unknown {
  const p = compile(expr, variables ? { variables: MAP_VARIABLES } : {});
  if (!p.ok) throw new Error(p.diagnostics[0]!.message);
  const r = p.value.eval({ object, oldObject: null, params: null });
  return r.ok ? r.value : `error: ${r.error}`;
}

describe('CEL field chains', () => {
  it('reads through maps with an own constructor key and null-prototype maps', () => {
    const odd = Object.assign(Object.create(null) as Record<string, unknown>, { b: { c: 1 } });
    expect(run('object.a.b.c', { a: odd })).toBe(1);
    expect(run('object.constructor.x', { constructor: { x: 'y' } })).toBe('y');
    expect(run('object.m.x', { m: { constructor: 'k', x: 2 } })).toBe(2);
    expect(run('object.m.?x.orValue(0)', { m: { constructor: 'k', x: 2 } })).toBe(2);
    expect(run('object.m.?x.orValue(0)', { m: Object.assign(Object.create(null) as object, { x: 3 }) })).toBe(3);
  });

  it('reports missing keys and non-map receivers as select does', () => {
    expect(run('object.a.b', { a: {} })).toBe('error: no such key: b');
    expect(run('object.a.b', { a: [1] })).toMatch(/^error: type '.*' does not support field selection$/);
    expect(run('object.a.b', { a: 'text' })).toMatch(/^error: type '.*' does not support field selection$/);
    expect(run('has(object.a.b)', { a: { b: null } })).toBe(true);
  });

  it('a presence test of a field of null or a scalar is false, as cel-go answers it (attributes.go refQualify)', () => {
    expect(run('has(object.a.b)', { a: null })).toBe(false);
    expect(run('has(object.a.b)', { a: 'text' })).toBe(false);
    expect(run('has(object.a.b)', { a: 3 })).toBe(false);
    expect(run('object.a.?b.orValue("none")', { a: null })).toBe('none');
    expect(run('object.a.b', { a: null })).toMatch(/^error: type 'null' does not support field selection$/);
    // Through a present optional, a selection must find fields (cel-spec optionals map_null_entry_no_such_key).
    expect(run('object.?a.b.hasValue()', { a: null })).toMatch(/^error: /);
  });

  it('walks optional chains through absent fields, optionals and Object values', () => {
    expect(run('object.?a.?b.?c.orValue("none")', { a: { b: {} } })).toBe('none');
    expect(run('object.?a.?b.?c.orValue("none")', { a: { b: { c: 'x' } } })).toBe('x');
    expect(run('optional.of(object).?a.?b.orValue(0)', { a: { b: 4 } })).toBe(4);
    expect(run('Object{spec: Object.spec{replicas: 2}}.spec.replicas', {})).toBe(2);
    expect(run('Object{spec: Object.spec{replicas: 2}}.?spec.?replicas.orValue(0)', {})).toBe(2);
    expect(run('{"a": {"b": 1}}.?a.?b.orValue(0)', {})).toBe(1);
  });

  it('reports an undeclared variable value as before', () => {
    const p = compile('object.a', { variables: MAP_VARIABLES });
    if (!p.ok) throw new Error('compile');
    const r = p.value.eval({});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe('no such attribute: object');
  });
});
