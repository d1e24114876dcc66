/** Which texts the fast readers take, which they leave to the reference, and what JSON and NDJSON input gives. */
import { describe, expect, it } from 'vitest';
import { readFast } from '../../../src/io/fast-yaml/fast-path.js';
import { printYamlFast } from '../../../src/io/fast-yaml/printer.js';
import { toYaml, toYamlReference } from '../../../src/io/yaml-dump.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import { parseYamlDocumentsReference, type ParseLimits } from '../../../src/io/yaml-parse.js';
import { differences } from './support.js';

const LIMITS: ParseLimits = { maxDepth: 256 };
const reader = (text: string): string => readFast(text, LIMITS, (t) => parseYamlDocumentsReference(t, LIMITS)).reader;

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
  annotations:
    example.com/debug: "true"
    note: 'it''s here'
spec:
  containers:
  - name: app
    image: nginx:1.25
    args: ["--port", 8080, {a: b}]
    ports:
    - containerPort: 80
      protocol: TCP
    command:
    - /bin/sh
    - -c
    - |
      echo hello
      exec nginx
    env: []
  nodeSelector: {}
  description: >-
    folded
    text
  long: a plain scalar
    folded over lines
`;

describe('the block reader', () => {
  it('reads kubectl-style documents as the reference does', () => {
    expect(reader(POD)).toBe('block');
    expect(differences('pod.yaml', POD).diffs).toEqual([]);
    const [doc] = [...readFastDocs(POD)];
    expect(doc).toMatchObject({ value: { spec: { containers: [{ args: ['--port', 8080, { a: 'b' }], command: ['/bin/sh', '-c', 'echo hello\nexec nginx\n'] }], description: 'folded text', long: 'a plain scalar folded over lines' } } });
  });

  it('resolves scalars and keys as go-yaml v2 does', () => {
    const text = 'a: yes\nb: 0777\nc: 1.5\nd: ~\ne: 2001-12-14\nf: "yes"\n1: one\ntrue: t\n1.5: x\ng: 99999999999999999999\n';
    expect(reader(text)).toBe('block');
    expect(differences('k.yaml', text).diffs).toEqual([]);
    expect(readFastDocs(text)[0]!.value).toEqual({ a: true, b: 511, c: 1.5, d: null, e: '2001-12-14', f: 'yes', '1': 'one', true: 't', '1.5': 'x', g: 1e20 });
  });

  it('reads YAML 1.1-only booleans as strings under yamlVersion 1.2, as the reference does', () => {
    const text = 'a: yes\non: off\nb: true\n';
    const fast = loadYamlText('v.yaml', text, { yamlVersion: '1.2' });
    const ref = loadYamlText('v.yaml', text, { yamlVersion: '1.2', referenceReader: true });
    expect(fast.ok && fast.value.map((d) => d.value)).toEqual([{ a: 'yes', on: 'off', b: true }]);
    expect(ref.ok && ref.value.map((d) => d.value)).toEqual([{ a: 'yes', on: 'off', b: true }]);
  });

  it.each([
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a merge key', 'base: {x: 1}\nm:\n  <<: {y: 2}\n'],
    ['a duplicate key (the reference warns, TM1006)', 'a: 1\na: 2\n'],
    ['a complex key', '? a\n: b\n'],
    ['a flow collection over several lines', 'a: [1,\n  2]\n'],
    ['CRLF line ends', 'a: 1\r\nb: 2\r\n'],
    ['a tab in indentation', 'a:\n\tb: 1\n'],
    ['a directive', '%YAML 1.1\n---\na: 1\n'],
    ['a document end marker', 'a: 1\n...\n'],
    ['a root sequence', '- a\n- b\n'],
    ['a root scalar', 'just text\n'],
    ['an indentation indicator', 'a: |2\n   x\n'],
    ['NaN', 'a: .nan\n'],
    ['a null key', '~: a\n'],
    ['a syntax error', 'a: b: c\n'],
    ['a comment line before a scalar on its own line', 'a:\n# c\n  b\n'],
    ['a multi-line quoted scalar', 'a: "x\n  y"\n'],
  ])('leaves %s to the reference', (_what, text) => {
    expect(reader(text)).toBe('reference');
    // And loadYamlText still gives exactly the reference's result.
    const fast = loadYamlText('t.yaml', text);
    const ref = loadYamlText('t.yaml', text, { referenceReader: true });
    expect(fast.diagnostics).toEqual(ref.diagnostics);
    expect(fast.ok ? fast.value.map((d) => d.value) : []).toEqual(ref.ok ? ref.value.map((d) => d.value) : []);
  });

  it('keeps the reference positions: spans of keys, values and characters inside strings', () => {
    const text = '# leading comment\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n    expr: "a \\u00e9 b"\n';
    expect(reader(text)).toBe('block');
    const r = loadYamlText('p.yaml', text);
    if (!r.ok) throw new Error('load failed');
    const doc = r.value[0]!;
    expect(doc.spanOf(['spec', 'containers', 0, 'name'])).toMatchObject({ line: 7, col: 11 });
    expect(doc.keySpanOf(['spec', 'containers'])).toMatchObject({ line: 6, col: 3 });
    expect(doc.spanInString(['spec', 'containers', 0, 'expr'], 4, 5)).toMatchObject({ line: 8, col: 21 });
    // The escape `\u00e9` is the whole source of the decoded é.
    expect(doc.spanInString(['spec', 'containers', 0, 'expr'], 2, 3)).toMatchObject({ line: 8, col: 14, endCol: 19 });
  });
});

describe('JSON and NDJSON input', () => {
  it('reads a JSON document with JSON.parse, with the reference ranges', () => {
    const text = '\n  {"kind": "Pod", "spec": {"containers": [{"name": "a\\u00e9"}]}, "n": 12345678901234567890}\n';
    expect(reader(text)).toBe('json');
    expect(differences('p.json', text).diffs).toEqual([]);
  });

  it.each([
    ['CRLF line ends', '{"a": 1,\r\n "b": [1, 2]}\r\n'],
    ['white space around it', '\r\n  {"a": 1}\r\n\r\n'],
    ['a top-level array', '[\r\n1, {"x": null}]'],
    ['NDJSON with CRLF', '{"a": 1}\r\n{"b": 2}\r\n'],
    ['NDJSON with blank and indented lines', '{"a":1}\n\n{"b":\t2}\n  {"c": 3}  \n'],
  ])('reads JSON with %s as the reference does', (_what, text) => {
    expect(reader(text)).toBe('json');
    expect(differences('x.json', text).diffs).toEqual([]);
  });

  it.each([
    ['a duplicate key', '{"a": 1, "a": 2}', 'TM1006'],
    ['a number beyond float64 (a string for go-yaml)', '{"a": 1e400}', undefined],
    ['the integer -0 (0 for go-yaml)', '{"a": -0}', undefined],
    ['nesting over the limit', `{"a": ${'['.repeat(300)}${']'.repeat(300)}}`, 'TM1007'],
  ])('leaves %s to the reference', (_what, text, code) => {
    expect(reader(text)).toBe('reference');
    const r = loadYamlText('t.json', text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(code ? [code] : []);
  });

  it('reads NDJSON, one document a line, as kubectl reads a stream of JSON objects', () => {
    const text = '{"kind": "A", "n": 1}\n\n{"kind": "B", "spec": {"x": true}}\n{"kind": "C"}';
    expect(reader(text)).toBe('json');
    expect(differences('s.ndjson', text).diffs).toEqual([]);
    const r = loadYamlText('s.json', text);
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
    expect(r.value.map((d) => d.value)).toEqual([{ kind: 'A', n: 1 }, { kind: 'B', spec: { x: true } }, { kind: 'C' }]);
    expect(r.value.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(r.value[1]!.spanOf(['spec', 'x'])).toMatchObject({ file: 's.json', line: 3, col: 29 });
    expect(r.value[2]!.keySpanOf(['kind'])).toMatchObject({ line: 4, col: 2 });
  });

  it('reads an NDJSON line JSON.parse cannot stand for with the reference, at its line', () => {
    const r = loadYamlText('s.json', '{"a": 1}\n{"b": 1, "b": 2}\n');
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col])).toEqual([['TM1006', 2, 10]]);
    expect(r.ok && r.value.map((d) => d.value)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('refuses a text that is not NDJSON as the reference always has', () => {
    const text = '{"a": 1}\n[1, 2]\n';
    expect(reader(text)).toBe('reference');
    expect(loadYamlText('s.json', text).diagnostics).toEqual(loadYamlText('s.json', text, { referenceReader: true }).diagnostics);
  });
});

describe('the fast printer', () => {
  it('prints plain JSON values as the reference printer does', () => {
    const value = { a: 'yes', b: ['x', { c: 1, d: [[1, 2], []] }, 'multi\nline\n'], e: {}, f: null, g: -0, 'h i': ' lead', j: 'a: b', k: '\u2028' };
    expect(printYamlFast(value, false)).toBe(toYamlReference(value));
    expect(printYamlFast(value, true)).toBe(toYamlReference(value, { sortKeys: true }));
  });

  it.each([
    ['an undefined member', { a: undefined, b: 1 }],
    ['a Date (toJSON)', { a: new Date(0) }],
    ['a bigint', { a: 1n }],
    ['an infinity', [Number.POSITIVE_INFINITY]],
    ['a class instance', { a: new (class Thing {})() }],
    ['a key over 1000 characters', { ['k'.repeat(1001)]: 1 }],
  ])('leaves %s to the reference printer', (_what, value) => {
    expect(printYamlFast(value, false)).toBeUndefined();
    expect(toYaml(value)).toBe(toYamlReference(value));
  });

  it('leaves a cycle to the reference, which refuses it', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => toYaml(a)).toThrow('circular');
  });
});

function readFastDocs(text: string): { value?: unknown }[] {
  const r = readFast(text, LIMITS, (t) => parseYamlDocumentsReference(t, LIMITS));
  if (r.reader === 'reference') throw new Error(`declined: ${r.why}`);
  return r.docs;
}
