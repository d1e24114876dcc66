import { describe, expect, it } from 'vitest';
import { Document, parseDocument, Scalar } from 'yaml';
import type { Span } from '../../src/diagnostics/span.js';
import { decodeScalarWithOffsets, type ScalarStyle } from '../../src/io/scalar-offsets.js';
import type { SourceDoc } from '../../src/io/source.js';
import { loadYamlText } from '../../src/io/yaml-load.js';

function docs(text: string): SourceDoc[] {
  const r = loadYamlText('p.yaml', text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

/** The source text a span covers (single-line spans). */
function textAt(text: string, s: Span): string {
  expect(s.file).toBe('p.yaml');
  expect(s.endLine).toBe(s.line);
  return text.split('\n')[s.line - 1]!.slice(s.col - 1, s.endCol);
}

const POLICY = `# a policy
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-labels
spec:
  rules:
  - name: plain
    expr: object.spec.replicas > 1
  - name: single
    expr: 'object.metadata.name == ''x'' && y'
  - name: double
    expr: "caf\\u00e9 == \\"x\\" && \\ty"
  - name: literal
    expr: |
      first line
      object.spec == 2
  - name: folded
    expr: >-
      folded one
      folded two

      after blank
  - {name: flow, expr: "in flow"}
`;

describe('SourceDoc spans', () => {
  const [doc] = docs(POLICY);

  it('spanOf finds values by path; the empty path is the whole document', () => {
    expect(textAt(POLICY, doc!.spanOf(['metadata', 'name']))).toBe('add-labels');
    expect(doc!.spanOf(['metadata', 'name'])).toEqual({ file: 'p.yaml', line: 5, col: 9, endLine: 5, endCol: 18 });
    expect(textAt(POLICY, doc!.spanOf(['spec', 'rules', 1, 'name']))).toBe('single');
    expect(textAt(POLICY, doc!.spanOf(['spec', 'rules', 5, 'expr']))).toBe('"in flow"');
    const whole = doc!.spanOf([]);
    expect([whole.line, whole.col]).toEqual([2, 1]);
  });

  it('spanOf falls back to the nearest existing ancestor', () => {
    expect(doc!.spanOf(['metadata', 'missing', 'deeper'])).toEqual(doc!.spanOf(['metadata']));
    expect(doc!.spanOf(['spec', 'rules', 99])).toEqual(doc!.spanOf(['spec', 'rules']));
    expect(doc!.spanOf(['metadata', 'name', 'inside-a-string'])).toEqual(doc!.spanOf(['metadata', 'name']));
  });

  it('keySpanOf points at the key, and falls back to spanOf', () => {
    expect(textAt(POLICY, doc!.keySpanOf(['metadata', 'name']))).toBe('name');
    expect(textAt(POLICY, doc!.keySpanOf(['spec', 'rules', 5, 'expr']))).toBe('expr');
    expect(doc!.keySpanOf(['spec', 'rules', 0])).toEqual(doc!.spanOf(['spec', 'rules', 0]));
    expect(doc!.keySpanOf(['nope'])).toEqual(doc!.spanOf([]));
  });

  it('spanInString maps plain scalar offsets', () => {
    const s = doc!.spanInString(['spec', 'rules', 0, 'expr'], 7, 11);
    expect(textAt(POLICY, s)).toBe('spec');
    expect([s.line, s.col]).toEqual([9, 18]);
  });

  it("spanInString accounts for '' in single-quoted scalars", () => {
    const path = ['spec', 'rules', 1, 'expr'];
    const value = (doc!.value as any).spec.rules[1].expr as string;
    expect(value).toBe("object.metadata.name == 'x' && y");
    const q = value.indexOf("'x'");
    expect(textAt(POLICY, doc!.spanInString(path, q, q + 3))).toBe("''x''");
    const y = value.indexOf('y');
    expect(textAt(POLICY, doc!.spanInString(path, y))).toBe('y');
  });

  it('spanInString accounts for escapes in double-quoted scalars', () => {
    const path = ['spec', 'rules', 2, 'expr'];
    const value = (doc!.value as any).spec.rules[2].expr as string;
    expect(value).toBe('café == "x" && \ty');
    expect(textAt(POLICY, doc!.spanInString(path, 3))).toBe('\\u00e9');
    expect(textAt(POLICY, doc!.spanInString(path, 0, 4))).toBe('caf\\u00e9');
    expect(textAt(POLICY, doc!.spanInString(path, value.indexOf('"'), value.indexOf('"') + 3))).toBe('\\"x\\"');
    expect(textAt(POLICY, doc!.spanInString(path, value.indexOf('y')))).toBe('y');
    expect(textAt(POLICY, doc!.spanInString(path, value.indexOf('\t')))).toBe('\\t');
  });

  it('spanInString maps literal block scalars line by line', () => {
    const path = ['spec', 'rules', 3, 'expr'];
    const value = (doc!.value as any).spec.rules[3].expr as string;
    expect(value).toBe('first line\nobject.spec == 2\n');
    const s = doc!.spanInString(path, value.indexOf('spec'), value.indexOf('spec') + 4);
    expect([s.line, s.col, s.endCol]).toEqual([17, 14, 17]);
    expect(textAt(POLICY, s)).toBe('spec');
  });

  it('spanInString maps folded block scalars, folded breaks pointing at the line break', () => {
    const path = ['spec', 'rules', 4, 'expr'];
    const value = (doc!.value as any).spec.rules[4].expr as string;
    expect(value).toBe('folded one folded two\nafter blank');
    expect(textAt(POLICY, doc!.spanInString(path, value.indexOf('two'), value.indexOf('two') + 3))).toBe('two');
    expect(doc!.spanInString(path, value.indexOf('after')).line).toBe(23);
    const fold = doc!.spanInString(path, value.indexOf(' folded'));
    expect([fold.line, fold.col]).toEqual([20, 17]); // the break after `folded one`
  });

  it('spanInString clamps offsets and points past the end for an offset at the end', () => {
    const path = ['spec', 'rules', 0, 'expr'];
    const value = (doc!.value as any).spec.rules[0].expr as string;
    const end = doc!.spanInString(path, value.length);
    expect([end.line, end.col]).toEqual([9, 11 + value.length]); // value starts at column 11
    expect(doc!.spanInString(path, 1000)).toEqual(end);
    expect(doc!.spanInString(['spec', 'missing'], 0)).toEqual(doc!.spanOf(['spec']));
  });

  it('follows aliases and merge keys to where the text is', () => {
    const text = 'base: &b\n  image: nginx\n  cmd: "run x"\npod:\n  <<: *b\n  name: p\ncopy: *b\n';
    const [d] = docs(text);
    expect(textAt(text, d!.spanOf(['pod', 'image']))).toBe('nginx');
    expect(textAt(text, d!.keySpanOf(['pod', 'image']))).toBe('image');
    expect(textAt(text, d!.spanOf(['copy']))).toBe('*b');
    expect(textAt(text, d!.spanInString(['copy', 'cmd'], 4))).toBe('x');
  });

  it('uses the same key rules as the value (non-string keys, last duplicate wins)', () => {
    const text = 'm:\n  1: one\n  yes: two\n  k: first\n  k: second\n';
    const r = loadYamlText('p.yaml', text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const d = r.value[0]!;
    expect(textAt(text, d.spanOf(['m', '1']))).toBe('one');
    expect(textAt(text, d.spanOf(['m', 'true']))).toBe('two');
    expect(textAt(text, d.spanOf(['m', 'k']))).toBe('second');
  });

  it('gives positions in the whole file for later documents, including indented and directive-led ones', () => {
    const text = 'a: 1\n---\n# c\nb:\n  c: "x"\n...\n%YAML 1.1\n---\n  d: 1\n  e: two\n';
    const ds = docs(text);
    expect(ds).toHaveLength(3);
    expect(ds[1]!.spanOf(['b', 'c'])).toMatchObject({ line: 5, col: 6 });
    expect(textAt(text, ds[2]!.spanOf(['e']))).toBe('two');
    expect(ds[2]!.spanOf(['e'])).toMatchObject({ line: 10, col: 6 });
  });
});

describe('decodeScalarWithOffsets agrees with the yaml package', () => {
  const STYLES: ScalarStyle[] = ['PLAIN', 'QUOTE_SINGLE', 'QUOTE_DOUBLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'];
  const ALPHABET = ['a', 'bc', ' ', '  ', '\n', '\n\n', '\t', "'", '"', '\\', 'é', '😀', '#', ':', '-', ' \n', '\n ', '\u0085'];

  it('decodes generated strings in every style, mapping each visible character to itself', () => {
    let seed = 11;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let checked = 0;
    for (let n = 0; n < 3000; n++) {
      let s = '';
      for (let i = 1 + Math.floor(rnd() * 8); i > 0; i--) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
      for (const style of STYLES) {
        const doc = new Document({ k: { nested: s } });
        const node = (doc.contents as any).items[0].value.items[0].value as Scalar;
        node.type = style;
        const text = doc.toString({ lineWidth: 20, minContentWidth: 0 });
        const back = (parseDocument(text).contents as any).items[0].value.items[0].value as Scalar;
        if (back.source !== s) continue; // the stringifier chose another form; nothing to compare
        const src = text.slice(back.range![0], back.range![1]);
        const r = decodeScalarWithOffsets(src, back.type as ScalarStyle, s);
        expect(r, `${back.type} ${JSON.stringify(src)}`).toBeDefined();
        for (let i = 0; i < r!.decoded.length; i++) {
          const ch = r!.decoded[i]!;
          if (/[abcé#:-]/.test(ch)) expect(src[r!.start[i]!]).toBe(ch);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it.each([
    ['|2-\n    indented\n  normal\n', 'BLOCK_LITERAL', '  indented\nnormal'],
    ['|+\n  keep\n\n\n', 'BLOCK_LITERAL', 'keep\n\n\n'],
    ['>\n  a\n  b\n\n    more\n  c\n', 'BLOCK_FOLDED', 'a b\n\n  more\nc\n'],
    ['| # comment\n  x\n', 'BLOCK_LITERAL', 'x\n'],
    ['"a \\\n   b"', 'QUOTE_DOUBLE', 'a b'],
    ['"a\\\n   b"', 'QUOTE_DOUBLE', 'ab'],
    ["'a\n\n  b'", 'QUOTE_SINGLE', 'a\nb'],
    ['plain\n  continued\n\n  para', 'PLAIN', 'plain continued\npara'],
    ['"\\x41\\U0001F600\\N\\_"', 'QUOTE_DOUBLE', 'A😀\u0085\u00a0'],
  ])('hand-written %j', (src, style, want) => {
    const r = decodeScalarWithOffsets(src, style as ScalarStyle, want);
    expect(r?.decoded).toBe(want);
  });

  it('gives up (so callers fall back to the whole scalar) when it cannot reproduce the value', () => {
    expect(decodeScalarWithOffsets('"abc"', 'QUOTE_DOUBLE', 'something else')).toBeUndefined();
    expect(decodeScalarWithOffsets('"bad \\q escape"', 'QUOTE_DOUBLE', 'bad q escape')).toBeUndefined();
  });
});
