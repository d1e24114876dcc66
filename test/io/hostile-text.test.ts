import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../../src/io/inputs.js';
import { expandLists } from '../../src/io/lists.js';
import { decodeUtf8, firstInvalidUtf8, InvalidUtf8Error, nonPrintableDiagnostic } from '../../src/io/text-check.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { tempDir } from '../support/temp.js';

describe('firstInvalidUtf8', () => {
  it('finds the first byte of a malformed sequence, or -1', () => {
    expect(firstInvalidUtf8(Buffer.from('plain ascii, é, 漢, 😀'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xff]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc3]))).toBe(1); // truncated
    expect(firstInvalidUtf8(Buffer.from([0xc0, 0x80]))).toBe(0); // overlong
    expect(firstInvalidUtf8(Buffer.from([0xe0, 0x80, 0x80]))).toBe(0); // overlong
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // a surrogate
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // beyond U+10FFFF
    expect(firstInvalidUtf8(Buffer.from([0xe2, 0x82, 0x41]))).toBe(0); // not a continuation
  });

  it('decodeUtf8 throws with the offset and the text before it', () => {
    expect(decodeUtf8(Buffer.from('ok'))).toBe('ok');
    try {
      decodeUtf8(Buffer.from([0x61, 0x0a, 0x62, 0xfe]));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidUtf8Error);
      expect((e as InvalidUtf8Error).offset).toBe(3);
      expect((e as InvalidUtf8Error).before).toBe('a\nb');
      expect((e as Error).message).toBe('not UTF-8 text: invalid byte 0xFE at byte offset 3');
    }
  });
});

describe('nonPrintableDiagnostic', () => {
  it('allows tabs, line breaks, NEL, non-ASCII and astral characters; refuses C0, DEL, C1 and lone surrogates', () => {
    expect(nonPrintableDiagnostic('f', 'a:\tb\r\nc: "é漢😀\u0085\ufeff"\n')).toBeUndefined();
    for (const [text, shown, col] of [
      ['a: \x00', 'U+0000', 4],
      ['a: \x7f', 'U+007F', 4],
      ['é: \x9b', 'U+009B', 4],
      ['a: \ud800', 'U+D800', 4],
      ['a: \ufffe', 'U+FFFE', 4],
    ] as const) {
      const d = nonPrintableDiagnostic('f', text)!;
      expect(d.code).toBe('TM1009');
      expect(d.message).toContain(`control character ${shown}`);
      expect(d.span).toMatchObject({ line: 1, col });
    }
    expect(nonPrintableDiagnostic('f', 'é: \x9b')!.message).toContain('at byte offset 4');
  });
});

describe('loadInputs refuses bytes that are not YAML text', () => {
  it('a file with invalid UTF-8, at its line and column', () => {
    const dir = tempDir('hostile');
    const file = join(dir, 'bin.yaml');
    writeFileSync(file, Buffer.from([0x6b, 0x3a, 0x20, 0x76, 0x0a, 0x78, 0x3a, 0x20, 0xff, 0x0a]));
    const r = loadInputs([file]);
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'TM1009', span: { file, line: 2, col: 4, endLine: 2, endCol: 4 } })]);
    expect(r.diagnostics[0]!.message).toBe(`${file} is not UTF-8 text: invalid byte 0xFF at byte offset 8 (a binary file?)`);
  });

  it('standard input that is not UTF-8 (as processIO reads it), and a NUL in a text', () => {
    const r = loadInputs(['-'], { stdin: () => decodeUtf8(Buffer.from([0x61, 0x80])) });
    expect(r.diagnostics.map((d) => [d.code, d.span?.file, d.message])).toEqual([['TM1009', '<stdin>', '<stdin> is not UTF-8 text: invalid byte 0x80 at byte offset 1 (a binary file?)']]);
    const nul = loadInputs(['-'], { stdin: () => 'kind: Pod\nname: a\x00b\n' });
    expect(nul.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col])).toEqual([['TM1009', 2, 8]]);
  });
});

describe('expandLists', () => {
  const text = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: a
- apiVersion: v1
  kind: ServiceList
  items:
  - metadata: {name: s}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
`;

  it('replaces Lists by their items (recursively) with spans inside the items; other documents are kept as they are', () => {
    const r = loadYamlText('l.yaml', text);
    if (!r.ok) throw new Error('parse');
    const docs = expandLists(r.value);
    expect(docs.map((d) => d.value)).toEqual([
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' } },
    ]);
    expect(docs[2]).toBe(r.value[1]);
    expect(docs[0]!.spanOf(['metadata', 'name'])).toMatchObject({ line: 7, col: 11 });
    expect(docs[0]!.keySpanOf(['kind'])).toMatchObject({ line: 5, col: 3 });
    expect(docs[0]!.spanInString(['metadata', 'name'], 0)).toMatchObject({ line: 7, col: 11 });
    expect(docs[1]!.spanOf(['metadata', 'name'])).toMatchObject({ line: 11, col: 22 });
    // Fields the item inherited from the List have no place of their own: the item's.
    expect(docs[1]!.spanOf(['kind'])).toMatchObject({ line: 11, col: 5 });
  });

  it('leaves alone a *List without an items array, and an object named like a list', () => {
    const r = loadYamlText('l.yaml', 'apiVersion: v1\nkind: PodList\nitems: 3\n---\napiVersion: x/v1\nkind: Checklist\nitems: []\n');
    if (!r.ok) throw new Error('parse');
    expect(expandLists(r.value)).toEqual(r.value);
  });
});
