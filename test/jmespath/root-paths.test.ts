/**
 * JmesProgram.rootPaths: a root holding only the field chains a program reads gives the same result as the
 * whole root (engines/jmes.ts builds `{request: {object}}` for the queries that read `request.object` only).
 * Also the field-path reader's shortcut for names Object.prototype lacks against the careful reader.
 */
import { describe, expect, it } from 'vitest';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../src/ir/json.js';
import { compileJmes } from '../../src/jmespath/index.js';

const DATA: JsonObject = {
  request: {
    operation: 'CREATE',
    object: {
      metadata: { name: 'web', labels: { app: 'x', tier: 'backend' }, annotations: { 'example.com/debug': 'true' } },
      spec: { containers: [{ name: 'a', ports: [{ p: 1 }, { p: 2 }] }, { name: 'b' }, null, 'str'], restartPolicy: 'Always', n: 3 },
    },
    oldObject: null,
  },
  element: { name: 'nginx', list: [1, [2, 3], { x: 4 }] },
  str: 'text',
  num: 5,
  arr: [{ a: 1 }, { a: 2, b: { c: 3 } }],
  toString: 'own',
};

const EXPRESSIONS = [
  'request.object.metadata.labels.tier',
  'request.object.metadata.labels.missing',
  'request.object.metadata.missing.deeper',
  'request.object',
  'request',
  'request.missing.x',
  'length(request.object.spec.containers)',
  `request.object.metadata.annotations."example.com/debug" || ''`,
  'request.object.spec.containers[0].name',
  'request.object.spec.containers[].name',
  'request.object.spec.containers[*].ports[].p',
  "request.object.spec.containers[?name == 'b'].name | [0]",
  'request.object.spec.containers[-1]',
  'request.object.spec.containers[1:]',
  'request.object.metadata.labels.*',
  'request.object.metadata.{n: name, t: labels.tier}',
  'request.object.metadata.[name, labels.app]',
  'request.object.spec.n > `2` && request.object.spec.restartPolicy',
  '!request.object.spec.missing',
  'request.object.spec.containers | length(@)',
  'sort_by(request.object.spec.containers[0:2], &name)[].name',
  'request.object.spec.n.x',
  'request.operation',
  'request.oldObject.metadata.name',
  'element.name',
  'element.list[]',
  'element.list[2].x',
  'str.x',
  'num',
  'arr[*].b.c',
  'arr[1].b',
  'max_by(arr, &a).a',
  "join(',', [str, request.object.metadata.name])",
  "{a: str, b: element.name} | b",
  '`{"a": 1}`.a',
  "'lit'",
  'toString',
  'missing || element.name',
  'missing && element.name',
  'request.object.spec.containers[?ports].name',
  'request.object.metadata.labels.tier == `"backend"`',
];

/** `root` with only the chains in `paths`; a chain stops where the root has no such field or no map. */
function trimmed(root: JsonValue, paths: readonly (readonly string[])[]): JsonValue {
  if (!isJsonObject(root)) return root;
  const out: JsonObject = {};
  const byName = new Map<string, (readonly string[])[]>();
  for (const p of paths) byName.set(p[0]!, [...(byName.get(p[0]!) ?? []), p.slice(1)]);
  for (const [name, tails] of byName) {
    if (!hasOwn(root, name)) continue;
    const whole = tails.some((t) => t.length === 0);
    Object.defineProperty(out, name, { value: whole ? root[name] : trimmed(root[name]!, tails), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

describe('JmesProgram.rootPaths', () => {
  it('a root holding only those chains gives the same result', () => {
    let compared = 0;
    for (const expression of EXPRESSIONS) {
      const program = compileJmes(expression);
      expect(program.ok, expression).toBe(true);
      if (!program.ok) continue;
      const paths = program.value.rootPaths;
      if (paths === undefined) continue;
      expect(program.value.rootFields, expression).toEqual([...new Set(paths.map((p) => p[0]))]);
      expect(program.value.search(trimmed(DATA, paths)), expression).toEqual(program.value.search(DATA));
      compared++;
    }
    expect(compared).toBe(EXPRESSIONS.length);
  });

  it('names the chains, not the fields read after them', () => {
    const paths = (e: string) => (compileJmes(e) as { ok: true; value: { rootPaths: unknown } }).value.rootPaths;
    expect(paths('length(request.object.spec.containers[].name)')).toEqual([['request', 'object', 'spec', 'containers']]);
    expect(paths(`request.object.metadata.annotations."a/b" || ''`)).toEqual([['request', 'object', 'metadata', 'annotations', 'a/b']]);
    expect(paths('a.b | c')).toEqual([['a', 'b']]);
    expect(paths('@')).toBeUndefined();
    expect(paths('*.a')).toBeUndefined();
  });
});

describe('field paths through names Object.prototype has', () => {
  it('reads own fields only, as the careful reader does', () => {
    const search = (e: string, data: unknown) => {
      const p = compileJmes(e);
      if (!p.ok) throw new Error(e);
      return p.value.search(data);
    };
    const plain = { a: { b: 1 } };
    const own = JSON.parse('{"a": {"toString": "t", "__proto__": "p", "constructor": {"name": "c"}}}');
    const nullProto = Object.assign(Object.create(null), { a: Object.assign(Object.create(null), { b: 2 }) });
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
      expect(search(`a.${name}`, plain)).toEqual({ ok: false, error: { kind: 'NotFound', message: `Unknown key "${name}" in path` } });
      expect(search(`a.${name}`, nullProto)).toEqual({ ok: false, error: { kind: 'NotFound', message: `Unknown key "${name}" in path` } });
    }
    expect(search('a.toString', own)).toEqual({ ok: true, value: 't' });
    expect(search('a.__proto__', own)).toEqual({ ok: true, value: 'p' });
    expect(search('a.constructor.name', own)).toEqual({ ok: true, value: 'c' });
    expect(search('a.b', nullProto)).toEqual({ ok: true, value: 2 });
    expect(search('a.c', nullProto)).toEqual({ ok: false, error: { kind: 'NotFound', message: 'Unknown key "c" in path' } });
    expect(search('a.b.c', plain)).toEqual({ ok: true, value: null });
    expect(search('a.b', { a: [1] })).toEqual({ ok: true, value: null });
    expect(search('a.b', { a: { b: null } })).toEqual({ ok: true, value: null });
  });
});
