import { describe, expect, it } from 'vitest';
import { createCelEngine } from '../../src/engines/cel.js';
import { objectResultToJson, toJson, toSharedJson } from '../../src/cel/index.js';
import { CelError, CelMap, CelObject, CelOptional, mkDouble } from '../../src/cel/values.js';
import type { ExprScope } from '../../src/interpreter/engines.js';
import { evalFailure } from '../../src/interpreter/failure.js';
import type { JsonValue } from '../../src/ir/json.js';

const origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' };

/** A scope whose variables are looked up by name, counting reads, as the interpreter's lazy bindings are. */
function scopeWith(vars: Record<string, () => JsonValue>, reads: string[] = []): ExprScope {
  return {
    object: { metadata: { name: 'p' } },
    oldObject: null,
    request: { operation: 'CREATE', object: { metadata: { name: 'p' } } },
    params: null,
    namespaceObject: null,
    get vars(): Record<string, JsonValue> {
      throw new Error('the engine should look variables up by name');
    },
    lookup(name: string) {
      const compute = vars[name];
      if (compute === undefined) return undefined;
      return {
        get value() {
          reads.push(name);
          return compute();
        },
      };
    },
  };
}

function run(text: string, scope: ExprScope): { ok: true; value: unknown } | { ok: false; message: string } {
  const compiled = createCelEngine().compile({ text, origin });
  if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
  const r = compiled.fn(scope);
  return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.diagnostic.message };
}

describe('CEL engine: variables read by name', () => {
  it('reads only the variables the taken branch selects, once per read', () => {
    const reads: string[] = [];
    const scope = scopeWith({ a: () => 'x', b: () => 'y' }, reads);
    expect(run('variables.a == "x" ? variables.a + "!" : variables.b', scope)).toEqual({ ok: true, value: 'x!' });
    expect(reads).toEqual(['a', 'a']);
  });

  it('has(), optional selection and `in` see bound names without evaluating them', () => {
    const reads: string[] = [];
    const scope = scopeWith({ a: () => 1, broken: () => { throw evalFailure('TM3004', 'boom', origin); } }, reads);
    expect(run('has(variables.broken)', scope)).toEqual({ ok: true, value: true });
    expect(run('has(variables.missing)', scope)).toEqual({ ok: true, value: false });
    expect(run('variables.?a.orValue(2)', scope)).toEqual({ ok: true, value: 1 });
    expect(run('variables.?missing.orValue(2)', scope)).toEqual({ ok: true, value: 2 });
    expect(reads).toEqual(['a']);
  });

  it('an error of a variable surfaces where it is read, in composition.go words', () => {
    const scope = scopeWith({ broken: () => { throw evalFailure('TM3004', 'boom', origin); } });
    const r = run('variables.broken == 1', scope);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('composited variable "broken" fails to evaluate: boom');
    // An absorbing branch never reads it.
    expect(run('true || variables.broken == 1', scope)).toEqual({ ok: true, value: true });
  });

  it('a name with no binding is no such key', () => {
    const r = run('variables.missing', scopeWith({ $params: () => 'secret' }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('no such key: missing');
  });

  it('`variables` as a whole value still offers every binding', () => {
    const scope: ExprScope = { object: null, oldObject: null, request: { operation: 'CREATE', object: null }, params: null, namespaceObject: null, vars: { a: 1, b: 'two' } };
    expect(run('variables', scope)).toEqual({ ok: true, value: { a: 1, b: 'two' } });
    expect(run('size(variables)', scope)).toEqual({ ok: true, value: 2 });
  });
});

describe('CEL results as JSON', () => {
  it('toSharedJson returns JSON-shaped values themselves and copies only what converts', () => {
    const inner = { a: [1, 'x', { b: true }] };
    expect(toSharedJson(inner)).toBe(inner);
    const withDouble = { keep: inner, d: mkDouble(1) };
    const out = toSharedJson(withDouble) as Record<string, unknown>;
    expect(out).not.toBe(withDouble);
    expect(out.keep).toBe(inner);
    expect(out).toStrictEqual(toJson(withDouble));
    expect(Object.keys(out)).toEqual(['keep', 'd']);
  });

  it('keeps key order and __proto__ as an ordinary key when copying', () => {
    const m: Record<string, unknown> = {};
    Object.defineProperty(m, '__proto__', { value: 1, enumerable: true, writable: true, configurable: true });
    m.z = mkDouble(2);
    m.a = 'a';
    const out = toSharedJson(m) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'z', 'a']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":1,"z":2,"a":"a"}');
  });

  it('objectResultToJson checks nested type names as checkTypeNames does', () => {
    const good = new CelObject('Object', { spec: new CelObject('Object.spec', { containers: [new CelObject('Object.spec.containers', { name: 'a' })] }) });
    expect(objectResultToJson(good)).toStrictEqual({ spec: { containers: [{ name: 'a' }] } });
    const bad = new CelObject('Object', { spec: new CelObject('Object.spec', { containers: [new CelObject('Object.spec.containers.item', { name: 'a' })] }) });
    expect(() => objectResultToJson(bad)).toThrow(
      'type mismatch: unexpected type name "Object.spec.containers.item", expected "Object.spec.containers", which matches field name path from root Object type',
    );
    // A name of the right length but another path.
    const swapped = new CelObject('Object', { ab: new CelObject('Objecta.b', {}) });
    expect(() => objectResultToJson(swapped)).toThrow('expected "Object.ab"');
  });

  it('a type-name problem wins over a conversion error met earlier in the walk', () => {
    const m = new CelMap();
    m.entries.set(1, [1, 'x']);
    const v = new CelObject('Object', { first: m, second: new CelObject('Object.wrong', {}) });
    expect(() => objectResultToJson(v)).toThrow(/type mismatch: unexpected type name "Object.wrong", expected "Object.second"/);
    const onlyConversion = new CelObject('Object', { first: m });
    expect(() => objectResultToJson(onlyConversion)).toThrow(CelError);
    expect(() => objectResultToJson(onlyConversion)).toThrow('map key of type int cannot be converted to JSON');
  });

  it('does not check names below an optional, as checkTypeNames does not look there', () => {
    const v = new CelObject('Object', { o: CelOptional.of(new CelObject('Other', { a: 1 })) });
    expect(objectResultToJson(v)).toStrictEqual({ o: { a: 1 } });
  });
});

describe('CEL engine: activation entries derived only when named', () => {
  it('still reads params, request and authorizer.requestResource when the expression names them', () => {
    const scope = scopeWith({ $params: () => ({ x: 'from-binding' }) });
    expect(run('params.x', scope)).toEqual({ ok: true, value: 'from-binding' });
    expect(run('request.operation', scope)).toEqual({ ok: true, value: 'CREATE' });
    expect(run('[1].map(p, params.x)', scope)).toEqual({ ok: true, value: ['from-binding'] });
    expect(run('authorizer.requestResource.check("get").allowed()', scope)).toEqual({ ok: true, value: true });
  });

  it('leaves the unnamed entries alone', () => {
    const looked: string[] = [];
    const scope = scopeWith({});
    const lookup = scope.lookup!;
    scope.lookup = (name: string) => {
      looked.push(name);
      return lookup(name);
    };
    expect(run('object.metadata.name + "!"', scope)).toEqual({ ok: true, value: 'p!' });
    expect(looked).toEqual([]);
  });
});
