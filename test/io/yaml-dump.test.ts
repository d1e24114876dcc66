import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defineOwn, jsonEqual, type JsonObject } from '../../src/ir/json.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { toJson, toYaml, toYamlDocuments } from '../../src/io/yaml-dump.js';

function readBack(yaml: string): unknown {
  const r = loadYamlText('out.yaml', yaml);
  if (!r.ok) throw new Error(`${r.diagnostics.map((d) => d.message).join('\n')}\n${yaml}`);
  expect(r.diagnostics).toEqual([]);
  return r.value[0]?.value ?? null;
}

describe('toYaml layout (kubectl style)', () => {
  it('writes block collections, 2-space indent, list items at the key indentation', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' }, annotations: {} },
      spec: {
        containers: [
          { name: 'app', image: 'nginx:1.25', args: ['--port=8080', '-v'], ports: [{ containerPort: 80 }] },
          { name: 'side', env: [] },
        ],
        matrix: [[1, 2], [], [{ a: null }]],
      },
    };
    expect(toYaml(pod)).toBe(
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        '  labels:',
        '    app: web',
        '  annotations: {}',
        'spec:',
        '  containers:',
        '  - name: app',
        '    image: nginx:1.25',
        '    args:',
        '    - --port=8080',
        '    - -v',
        '    ports:',
        '    - containerPort: 80',
        '  - name: side',
        '    env: []',
        '  matrix:',
        '  - - 1',
        '    - 2',
        '  - []',
        '  - - a: null',
        '',
      ].join('\n'),
    );
  });

  it('keeps insertion order, or sorts keys on request', () => {
    const v = { b: 1, a: { d: 1, c: 2 } };
    expect(toYaml(v)).toBe('b: 1\na:\n  d: 1\n  c: 2\n');
    expect(toYaml(v, { sortKeys: true })).toBe('a:\n  c: 2\n  d: 1\nb: 1\n');
  });

  it('does not fold long strings', () => {
    const long = 'word '.repeat(100).trim();
    expect(toYaml({ long })).toBe(`long: ${long}\n`);
  });

  it('writes multi-line strings as literal blocks with the right chomping and indentation indicator', () => {
    expect(toYaml({ s: 'a\nb\n' })).toBe('s: |\n  a\n  b\n');
    expect(toYaml({ s: 'a\nb' })).toBe('s: |-\n  a\n  b\n');
    expect(toYaml({ s: 'a\n\n' })).toBe('s: |+\n  a\n\n');
    expect(toYaml({ s: '  indented\nnext\n' })).toBe('s: |2\n    indented\n  next\n');
    expect(toYaml(['x\ny\n'])).toBe('- |\n  x\n  y\n');
    expect(toYaml([{ s: 'x\ny' }])).toBe('- s: |-\n    x\n    y\n');
    // libyaml refuses block style with white space before a break, or tabs: double quotes instead.
    expect(toYaml({ s: 'a \nb' })).toBe('s: "a \\nb"\n');
    expect(toYaml({ s: 'a\tb\nc' })).toBe('s: "a\\tb\\nc"\n');
  });

  it('writes scalars of every JSON type', () => {
    expect(toYaml({ nil: null, t: true, f: false, i: -3, x: 1.5, e: 1e21, s: 1e-7 })).toBe('nil: null\nt: true\nf: false\ni: -3\nx: 1.5\ne: 1e+21\ns: 1e-7\n');
    // `n` alone is a YAML 1.1 boolean (false), so as a key it needs quotes.
    expect(toYaml({ n: 1 })).toBe('"n": 1\n');
    expect(toYaml('top')).toBe('top\n');
    expect(toYaml(null)).toBe('null\n');
    expect(toYaml({})).toBe('{}\n');
    expect(toYaml([])).toBe('[]\n');
    expect(toYaml({ nan: Number.NaN, inf: Number.POSITIVE_INFINITY, u: undefined, fn: () => 1 })).toBe('nan: null\ninf: null\n');
  });

  it('writes __proto__ and constructor as ordinary keys', () => {
    const v: JsonObject = {};
    defineOwn(v, '__proto__', { a: 1 });
    defineOwn(v, 'constructor', 'x');
    const y = toYaml(v);
    expect(y).toBe('__proto__:\n  a: 1\nconstructor: x\n');
    const back = readBack(y) as JsonObject;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(jsonEqual(back, v)).toBe(true);
  });

  it('refuses circular structures like JSON.stringify', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => toYaml(a)).toThrow(/circular/);
  });

  it('writes repeated objects in full (no anchors)', () => {
    const shared = { x: 1 };
    expect(toYaml({ a: shared, b: shared })).toBe('a:\n  x: 1\nb:\n  x: 1\n');
  });
});

describe('toYaml quoting: only what a reader would misread', () => {
  it.each([
    // would change type under Kubernetes' YAML 1.1 rules: double quotes, as go-yaml v2's encoder writes them
    ['yes', '"yes"'], ['No', '"No"'], ['on', '"on"'], ['y', '"y"'], ['n', '"n"'], ['true', '"true"'], ['null', '"null"'], ['~', '"~"'],
    ['', '""'], ['1.0', '"1.0"'], ['0777', '"0777"'], ['0x1F', '"0x1F"'], ['1_000', '"1_000"'], ['1e3', '"1e3"'], ['.5', '".5"'],
    ['12', '"12"'], ['-1', '"-1"'], ['.inf', '".inf"'], ['2001-12-14', '"2001-12-14"'], ['1:20', '"1:20"'], ['1e400', '"1e400"'],
    // cannot be plain: single quotes, as libyaml's emitter prefers
    ['*star', "'*star'"], ['&anchor', "'&anchor'"], ['!tag', "'!tag'"], ['- item', "'- item'"], ['-', "'-'"], ['a: b', "'a: b'"],
    ['a #b', "'a #b'"], ['#c', "'#c'"], ['ends:', "'ends:'"], [' lead', "' lead'"], ['trail ', "'trail '"], ["it's' ", "'it''s'' '"],
    ['{x}', "'{x}'"], ['[x]', "'[x]'"], ['|', "'|'"], ['>', "'>'"], ['%x', "'%x'"], ['@x', "'@x'"], ['`x', "'`x'"], ['"q"', '\'"q"\''],
    ['---', "'---'"], ['...', "'...'"], ['? x', "'? x'"],
    // characters single quotes cannot show
    ['tab\there', '"tab\\there"'], ['nel\u0085', '"nel\\u0085"'], ['ls\u2028', '"ls\\u2028"'],
    // plain is fine
    ['plain', 'plain'], ['yess', 'yess'], ['nginx:1.25', 'nginx:1.25'], ['http://x.io/a#b', 'http://x.io/a#b'], ['--flag', '--flag'],
    ['a,b', 'a,b'], ["it's", "it's"], ['café 😀', 'café 😀'], ['1.2.3', '1.2.3'], ['-x', '-x'], ['a!b&c*d', 'a!b&c*d'], ['x:y', 'x:y'],
  ])('%j -> %s', (s, want) => {
    expect(toYaml({ k: s })).toBe(`k: ${want}\n`);
    expect(readBack(toYaml({ k: s }))).toEqual({ k: s });
  });

  it('quotes keys by the same rules, and a << key so it is not read as a merge', () => {
    expect(toYaml({ yes: 1, '<<': 2, 'a: b': 3, 'multi\nline': 4, plain: 5 })).toBe('"yes": 1\n"<<": 2\n\'a: b\': 3\n"multi\\nline": 4\nplain: 5\n');
    expect(toYaml({ v: '<<' })).toBe('v: "<<"\n');
  });
});

describe('toYaml round trips', () => {
  const ATOMS = ['a', 'yes', 'No', 'y', 'on', '~', 'null', '', ' ', '1', '1.0', '0777', '0x1F', '0o7', '1e3', '1_000', '.5', '-', '--x', '- x', '?', ':', ':x',
    'a: b', 'a #b', '#c', '*x', '&y', '!t', '|', '>', "'", '"', '%', '@', '`', '<<', '2001-12-14', '1:20', '---', '...', '\n', '\t', '\r', 'é', '😀',
    '\u2028', '\u0085', '\\', '{', ']', ',', 'TRUE', '.inf', '1e400', '+1', '-0', 'x ', ' x', 'a\nb', '\n\n', 'line\n', ' lead\n', 'a\n\n', '\ud800'];

  it('reads back equal with our reader and with a YAML 1.2 reader, for generated values', () => {
    let seed = 5;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T,>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
    const str = (): string => Array.from({ length: Math.floor(rnd() * 4) }, () => pick(ATOMS)).join('');
    const gen = (d: number): unknown => {
      const r = rnd();
      if (d > 3 || r < 0.5) return pick([() => str(), () => Math.floor(rnd() * 2000) - 1000, () => rnd() * 100, () => null, () => rnd() < 0.5])();
      if (r < 0.75) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(d + 1));
      const o: JsonObject = {};
      for (let i = Math.floor(rnd() * 4); i > 0; i--) defineOwn(o, str(), gen(d + 1) as never);
      return o;
    };
    for (let i = 0; i < 3000; i++) {
      const v = gen(0);
      const y = toYaml(v);
      expect(jsonEqual(readBack(y), v), y).toBe(true);
      expect(jsonEqual(parse(y, { version: '1.2' }) ?? null, v), y).toBe(true);
    }
  });

  it('writes keys longer than YAML allows for implicit keys through the yaml package', () => {
    const key = 'k'.repeat(1500);
    expect(readBack(toYaml({ [key]: 1, b: [2] }))).toEqual({ [key]: 1, b: [2] });
  });
});

describe('toYamlDocuments and toJson', () => {
  it('separates documents with --- lines', () => {
    expect(toYamlDocuments([{ a: 1 }, { b: [2] }])).toBe('a: 1\n---\nb:\n- 2\n');
    expect(toYamlDocuments([])).toBe('');
    const r = loadYamlText('m.yaml', toYamlDocuments([{ a: 1 }, 'x', { c: null }]));
    expect(r.ok && r.value.map((d) => d.value)).toEqual([{ a: 1 }, 'x', { c: null }]);
  });

  it('writes 2-space JSON without a trailing newline', () => {
    expect(toJson({ a: [1, { b: null }] })).toBe('{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}');
    expect(toJson(undefined)).toBe('null');
  });
});
