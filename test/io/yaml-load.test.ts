import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { SourceDoc } from '../../src/io/source.js';

function load(text: string): SourceDoc[] {
  const r = loadYamlText('t.yaml', text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

function values(text: string): unknown[] {
  return load(text).map((d) => d.value);
}

function errors(text: string): Diagnostic[] {
  const r = loadYamlText('t.yaml', text);
  expect(r.ok).toBe(false);
  return r.diagnostics;
}

describe('loadYamlText: documents', () => {
  it('reads every document of a multi-document text, in order, with dense indices', () => {
    const docs = load('a: 1\n---\nb: 2\n---\nc: [3]\n');
    expect(docs.map((d) => d.value)).toEqual([{ a: 1 }, { b: 2 }, { c: [3] }]);
    expect(docs.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(docs.every((d) => d.file === 't.yaml')).toBe(true);
  });

  it('drops empty documents: `---` alone and comments only', () => {
    expect(values('---\n---\n# just a comment\n---\na: 1\n---\n\n...\n---\n# trailing\n')).toEqual([{ a: 1 }]);
    expect(values('')).toEqual([]);
    expect(values('# nothing here\n')).toEqual([]);
  });

  it('keeps an explicit null document', () => {
    expect(values('--- null\n')).toEqual([null]);
  });

  it('accepts directives and document end markers', () => {
    expect(values('%YAML 1.1\n---\na: 1\n...\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('reads JSON as YAML', () => {
    expect(values('{"a": [1, 2.5, "x", true, null], "b": {"c\\u00e9": "\\n"}}')).toEqual([{ a: [1, 2.5, 'x', true, null], b: { 'cé': '\n' } }]);
  });

  it('can require every document to be a mapping (TM1005)', () => {
    const r = loadYamlText('t.yaml', 'a: 1\n---\n- x\n', { requireMapping: true });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([['TM1005', 3]]);
  });
});

describe('loadYamlText: __proto__ and constructor are ordinary keys', () => {
  it('creates own properties without touching the prototype', () => {
    const [doc] = load('__proto__:\n  polluted: true\nconstructor: {prototype: 1}\nnested:\n  __proto__: [1]\n');
    const v = doc!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(v, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')!.value).toEqual({ polluted: true });
    expect(Object.prototype.hasOwnProperty.call(v, 'constructor')).toBe(true);
    expect(Object.keys(v)).toEqual(['__proto__', 'constructor', 'nested']);
    const nested = v.nested as Record<string, unknown>;
    expect(Object.getPrototypeOf(nested)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(nested, '__proto__')!.value).toEqual([1]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(v))).toEqual(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"nested":{"__proto__":[1]}}'));
  });

  it('keeps __proto__ an own key when it comes from a merge or an alias', () => {
    const [doc] = load('base: &b {__proto__: {x: 1}}\nm:\n  <<: *b\n');
    const m = (doc!.value as Record<string, Record<string, unknown>>).m!;
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(m, '__proto__')!.value).toEqual({ x: 1 });
  });
});

describe('loadYamlText: Kubernetes (go-yaml v2, YAML 1.1) scalar resolution', () => {
  const one = (yaml: string): unknown => (values(`v: ${yaml}\n`)[0] as { v: unknown }).v;

  it.each([
    ['yes', true], ['Yes', true], ['YES', true], ['y', true], ['Y', true], ['on', true], ['ON', true], ['true', true], ['True', true],
    ['no', false], ['n', false], ['off', false], ['Off', false], ['false', false], ['FALSE', false],
    ['~', null], ['null', null], ['Null', null], ['NULL', null], ['', null],
  ])('plain %j is %j (YAML 1.1 booleans, as kubectl reads them)', (yaml, want) => {
    expect(one(yaml)).toBe(want);
  });

  it.each([
    ['12', 12], ['-12', -12], ['+12', 12], ['0', 0], ['0777', 511], ['0o17', 15], ['0x1F', 31], ['0b101', 5], ['-0b101', -5], ['1_000', 1000],
    ['08', 8], ['1.5', 1.5], ['.5', 0.5], ['-.5', -0.5], ['1e3', 1000], ['1.', 1], ['6.02e+23', 6.02e23], ['99999999999999999999', 1e20],
  ])('plain %j is the number %j', (yaml, want) => {
    expect(one(yaml)).toBe(want);
  });

  it.each(['yess', 'nULL', 'tRue', '1e400', '0x', '+inf', '1:20', '1.2.3', '0xZZ', '-x', '.', '.e3', '1 2', 'Infinity', 'NaN'])(
    'plain %j stays a string',
    (yaml) => {
      expect(one(yaml)).toBe(yaml);
    },
  );

  it('keeps timestamps as their text (go-yaml v2 decodes them into interface{} as strings)', () => {
    expect(one('2001-12-14')).toBe('2001-12-14');
    expect(one('2001-12-14t21:59:43.10-05:00')).toBe('2001-12-14t21:59:43.10-05:00');
    expect(one('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00Z');
  });

  it('never resolves quoted or block scalars', () => {
    expect(values(`a: 'yes'\nb: "1.0"\nc: |\n  null\nd: 'on'\n`)).toEqual([{ a: 'yes', b: '1.0', c: 'null\n', d: 'on' }]);
  });

  it('honours explicit tags the way decode.go does', () => {
    expect(values('a: !!str 123\nb: !!int "12"\nc: !!float 1\nd: !!bool yes\ne: !!null ""\nf: !custom 12\ng: ! 12\nh: !!binary aGVsbG8=\ni: !!timestamp 2001-12-14\n')).toEqual([
      { a: '123', b: 12, c: 1, d: true, e: null, f: '12', g: '12', h: 'hello', i: '2001-12-14' },
    ]);
  });

  it('refuses a tag that contradicts the text, and bad base64', () => {
    expect(errors('a: !!int abc\n')[0]!.message).toBe('cannot decode !!str `abc` as a !!int');
    expect(errors('a: !!binary "not base64!"\n')[0]!.message).toContain('invalid base64');
  });

  it('refuses NaN and infinities, which JSON cannot carry (encoding/json fails on them in YAMLToJSON)', () => {
    for (const v of ['.inf', '-.Inf', '.nan', '+.INF']) {
      const [d] = errors(`spec:\n  x: ${v}\n`);
      expect(d!.code).toBe('TM1001');
      expect([d!.span?.line, d!.span?.col]).toEqual([2, 6]);
    }
  });

  it('stringifies non-string keys like convertToJSONableObject: ints, floats at 32-bit precision, booleans', () => {
    expect(values('1: a\n0x10: b\n1.5: c\n3.14159265358979: d\n1e6: e\n100000.0: f\ntrue: g\nyes: h\nn: i\n-0.0: j\n2001-12-14: k\n')).toEqual([
      { '1': 'a', '16': 'b', '1.5': 'c', '3.1415927': 'd', '1e+06': 'e', '100000': 'f', true: 'h', false: 'i', '-0': 'j', '2001-12-14': 'k' },
    ]);
  });

  it('refuses keys JSON cannot have: null, collections, uint64', () => {
    expect(errors('~: a\n')[0]!.message).toContain('unsupported map key');
    expect(errors('? [a, b]\n: c\n')[0]!.message).toContain('invalid map key');
    expect(errors('18446744073709551615: x\n')[0]!.message).toContain('uint64');
  });

  it('applies merge keys with go-yaml v2 semantics (a later << overwrites, lists of maps: earlier wins)', () => {
    const text = [
      'a: &a {x: 1, p: 1}',
      'b: &b {p: 2, z: 2}',
      'explicit:', '  <<: *a', '  x: 10',
      'late:', '  x: 10', '  <<: *a',
      'list:', '  <<: [*a, *b]',
      'quoted:', "  '<<': *a",
    ].join('\n');
    const v = values(text)[0] as Record<string, unknown>;
    expect(v.explicit).toEqual({ x: 10, p: 1 });
    expect(v.late).toEqual({ x: 1, p: 1 });
    expect(v.list).toEqual({ p: 1, z: 2, x: 1 });
    expect(v.quoted).toEqual({ '<<': { x: 1, p: 1 } });
    expect(errors('a: 1\nb:\n  <<: 3\n')[0]!.message).toContain('map merge requires map');
  });

  it('reads the key `y` as the boolean true, as Kubernetes does (the YAML 1.1 "Norway problem")', () => {
    expect(values('y: 1\nN: 2\n')).toEqual([{ true: 1, false: 2 }]);
  });

  it('expands aliases into independent copies', () => {
    const v = values('a: &x {k: [1]}\nb: *x\n')[0] as { a: { k: number[] }; b: { k: number[] } };
    expect(v.b).toEqual({ k: [1] });
    expect(v.b).not.toBe(v.a);
    expect(v.b.k).not.toBe(v.a.k);
  });

  it('binds an alias to the anchor defined before it, even when the name is reused later', () => {
    expect(values('a: &y 1\nb: &x [*y]\nc: &y 2\nd: *x\ne: *y\n')).toEqual([{ a: 1, b: [1], c: 2, d: [1], e: 2 }]);
  });

  it('reports an unknown anchor and an anchor that contains itself', () => {
    expect(errors('a: *nope\n')[0]!.message).toContain("unknown anchor 'nope'");
    const [d] = errors('a: &a [1, *a]\n');
    expect(d!.code).toBe('TM1002');
    expect(d!.message).toContain('contains itself');
  });
});

describe('loadYamlText: duplicate keys', () => {
  it('warns TM1006 at the repeated key, with the first one as a note, and keeps the last value', () => {
    const r = loadYamlText('t.yaml', 'metadata:\n  name: a\n  labels: {}\n  name: b\n');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value[0]!.value).toEqual({ metadata: { name: 'b', labels: {} } });
    expect(Object.keys((r.value[0]!.value as { metadata: object }).metadata)).toEqual(['name', 'labels']);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect([d.code, d.severity, d.span?.line, d.span?.col]).toEqual(['TM1006', 'warning', 4, 3]);
    expect(d.related?.[0]?.span?.line).toBe(2);
  });

  it('treats keys that become the same JSON key as duplicates', () => {
    const r = loadYamlText('t.yaml', '1: a\n"1": b\n');
    expect(r.ok && r.value[0]!.value).toEqual({ '1': 'b' });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TM1006']);
  });

  it('does not warn about keys overridden through a merge', () => {
    const r = loadYamlText('t.yaml', 'a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n');
    expect(r.diagnostics).toEqual([]);
  });
});

describe('loadYamlText: malformed YAML gives TM1001 at the exact position', () => {
  it.each([
    ['a: b: c\n', 1, 4, 'Nested mappings are not allowed in compact mappings'],
    ['a: 1\nb: [1, 2\nc: 3\n', 3, 1, 'Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ['key: "unterminated\n', 2, 1, 'Missing closing "quote'],
    ['\tkey: 1\n', 1, 1, 'Tabs are not allowed as indentation'],
    ['a:\n  - 1\n  b: 2\n', 3, 1, 'All mapping items must start at the same column'],
    ['ok: 1\n---\nfine: 2\n---\nbad: [\n', 6, 1, 'Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ['a: 1\n  b: 2\n', 1, 4, 'Nested mappings are not allowed in compact mappings'],
  ])('%j -> line %i col %i: %s', (text, line, col, message) => {
    const ds = errors(text);
    const d = ds.find((x) => x.code === 'TM1001')!;
    expect(d).toBeDefined();
    expect(d.severity).toBe('error');
    expect(d.phase).toBe('io');
    expect([d.span?.file, d.span?.line, d.span?.col]).toEqual(['t.yaml', line, col]);
    expect(d.message).toBe(message);
  });

  it('reports errors from every bad document, not only the first', () => {
    expect(errors('a: b: c\n---\nok: 1\n---\nd: [\n').filter((d) => d.code === 'TM1001').map((d) => d.span?.line)).toEqual([1, 6]);
  });
});

describe('yamlVersion', () => {
  it('reads y/yes/on as booleans in YAML 1.1 (kubectl) and as strings in YAML 1.2', () => {
    const text = 'y: yes\nlabels: {on: off}\n';
    const v11 = loadYamlText('a.yaml', text);
    const v12 = loadYamlText('a.yaml', text, { yamlVersion: '1.2' });
    expect(v11.ok && v11.value[0]!.value).toEqual({ true: true, labels: { true: false } });
    expect(v12.ok && v12.value[0]!.value).toEqual({ y: 'yes', labels: { on: 'off' } });
  });
});
