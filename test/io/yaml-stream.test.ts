import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/ir/json.js';
import { DocumentSplitter, streamYamlDocuments, YamlStreamError } from '../../src/io/yaml-stream.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { toYaml } from '../../src/io/yaml-dump.js';

const dir = mkdtempSync(join(tmpdir(), 'transmute-stream-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function collect(path: string, chunkSize?: number): Promise<JsonValue[]> {
  const out: JsonValue[] = [];
  for await (const v of streamYamlDocuments(path, chunkSize ? { chunkSize } : {})) out.push(v);
  return out;
}

function loaded(text: string): JsonValue[] {
  const r = loadYamlText('x', text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value.map((d) => d.value);
}

const TRICKY = [
  '%YAML 1.1',
  '# leading comment',
  '---',
  'a: 1',
  'text: |',
  '  --- not a marker (indented)',
  '  ... nor this',
  "quoted: 'x --- y'",
  '--- {inline: doc}',
  '---',
  '# comment only',
  '---',
  '--- |',
  '  root block scalar',
  '...',
  '# between',
  'after: end-marker',
  '---',
  '----: not a marker',
  '---x: nor this',
  '...',
  '',
].join('\n');

describe('streamYamlDocuments', () => {
  it('yields the same documents as loadYamlText, whatever the read size', async () => {
    const path = fileWith('tricky.yaml', TRICKY);
    const want = loaded(TRICKY);
    expect(want).toHaveLength(5);
    expect(await collect(path)).toEqual(want);
    for (const size of [1, 2, 3, 5, 7, 64]) expect(await collect(path, size)).toEqual(want);
  });

  it('handles CRLF line ends and a byte-order mark', async () => {
    const text = '\ufeffa: 1\r\n---\r\nb: [2]\r\n...\r\n';
    expect(await collect(fileWith('crlf.yaml', text), 3)).toEqual([{ a: 1 }, { b: [2] }]);
  });

  it('streams many documents in order', async () => {
    const pods = Array.from({ length: 2000 }, (_, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c', image: `img:${i}` }] } }));
    const path = fileWith('pods.yaml', pods.map((p) => `---\n${toYaml(p)}`).join(''));
    let i = 0;
    for await (const v of streamYamlDocuments(path, { chunkSize: 4096 })) {
      expect(v).toEqual(pods[i]);
      i++;
    }
    expect(i).toBe(2000);
  });

  it('reports a malformed document with its position in the whole file', async () => {
    const path = fileWith('bad.yaml', 'a: 1\n---\nb: 2\n---\nc: [oops\n');
    const seen: JsonValue[] = [];
    const err = await (async () => {
      try {
        for await (const v of streamYamlDocuments(path)) seen.push(v);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
    expect(err).toBeInstanceOf(YamlStreamError);
    const d = (err as YamlStreamError).diagnostics[0]!;
    expect([d.code, d.span?.file, d.span?.line]).toEqual(['TM1001', path, 6]);
  });

  it('refuses an alias bomb and a too-large document', async () => {
    const bomb = 'a: &a [x,x,x,x,x,x,x,x,x]\n' + 'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(',')}]`).join('\n') + '\n';
    await expect(collect(fileWith('bomb.yaml', bomb))).rejects.toMatchObject({ diagnostics: [{ code: 'TM1002' }] });
    const big = fileWith('big.yaml', `a: 1\n---\nb: ${'x'.repeat(5000)}\n`);
    const out: JsonValue[] = [];
    await expect((async () => {
      for await (const v of streamYamlDocuments(big, { maxBytes: 1000, chunkSize: 256 })) out.push(v);
    })()).rejects.toMatchObject({ diagnostics: [{ code: 'TM1003' }] });
    expect(out).toEqual([{ a: 1 }]);
  });

  it('reports a missing file as TM1004', async () => {
    await expect(collect(join(dir, 'missing.yaml'))).rejects.toMatchObject({ diagnostics: [{ code: 'TM1004' }] });
  });
});

describe('DocumentSplitter', () => {
  it('keeps directives and comments with the document that follows, and counts lines', () => {
    const s = new DocumentSplitter();
    const chunks = [...s.push('%YAML 1.1\n# c\n---\na: 1\n--'), ...s.push('-\nb: 2\n...\n# x\n'), ...s.end()];
    expect(chunks.map((c) => c.text)).toEqual(['%YAML 1.1\n# c\n---\na: 1\n', '---\nb: 2\n...\n', '# x\n']);
    expect(chunks.map((c) => c.line)).toEqual([1, 5, 8]);
  });
});
