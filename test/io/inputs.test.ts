import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderDiagnostic, SourceRegistry } from '../../src/diagnostics/render.js';
import { listInputFiles, loadInputs, STDIN_NAME } from '../../src/io/inputs.js';

const root = mkdtempSync(join(tmpdir(), 'transmute-inputs-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const base = mkdtempSync(join(root, 'tree-'));
  for (const [rel, text] of Object.entries(files)) {
    const path = join(base, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
  return base;
}

describe('loadInputs', () => {
  it('loads directories recursively: YAML and JSON files only, sorted, depth first', () => {
    const base = tree({
      'b.yaml': 'id: b\n',
      'a.yml': 'id: a\n---\nid: a2\n',
      'sub/c.json': '{"id": "c"}',
      'sub/deeper/d.yaml': 'id: d\n',
      'sub/z.yaml': 'id: z\n',
      'notes.txt': 'id: ignored\n',
      'README.md': '# no\n',
      'Z.yaml': 'id: Z\n',
    });
    expect(listInputFiles(base).map((f) => f.slice(base.length + 1))).toEqual(['Z.yaml', 'a.yml', 'b.yaml', 'sub/c.json', 'sub/deeper/d.yaml', 'sub/z.yaml']);
    const r = loadInputs([base]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.docs.map((d) => (d.value as { id: string }).id)).toEqual(['Z', 'a', 'a2', 'b', 'c', 'd', 'z']);
    expect(r.value.docs.map((d) => d.index)).toEqual([0, 0, 1, 0, 0, 0, 0]);
    expect(r.value.sources.get(join(base, 'sub/c.json'))?.text).toBe('{"id": "c"}');
  });

  it('loads explicitly named files whatever their extension, in the order given', () => {
    const base = tree({ 'x.txt': 'id: file-x\n', 'y.yaml': 'id: file-y\n' }); // (a bare `y` would be the boolean true)
    const r = loadInputs([join(base, 'y.yaml'), join(base, 'x.txt')]);
    expect(r.ok && r.value.docs.map((d) => (d.value as { id: string }).id)).toEqual(['file-y', 'file-x']);
  });

  it('survives symlink cycles in directories', () => {
    const base = tree({ 'a/one.yaml': 'id: 1\n' });
    symlinkSync(base, join(base, 'a', 'loop'));
    expect(listInputFiles(base).map((f) => f.slice(base.length + 1))).toEqual(['a/one.yaml']);
  });

  it('reads `-` from stdin, named <stdin>', () => {
    const r = loadInputs(['-'], { stdin: () => 'kind: Pod\n---\nkind: Service\n' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.docs.map((d) => [d.file, (d.value as { kind: string }).kind])).toEqual([
      [STDIN_NAME, 'Pod'],
      [STDIN_NAME, 'Service'],
    ]);
    expect(r.value.docs[1]!.spanOf(['kind'])).toMatchObject({ file: STDIN_NAME, line: 3, col: 7 });
  });

  it('reports a missing file as TM1004 with its path, and still reports the other inputs', () => {
    const base = tree({ 'bad.yaml': 'a: [\n' });
    const missing = join(base, 'nope.yaml');
    const r = loadInputs([missing, join(base, 'bad.yaml')]);
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TM1004', 'TM1001']);
    expect(r.diagnostics[0]!.message).toBe(`cannot read ${missing}: no such file or directory`);
    expect(r.diagnostics[0]!.span).toEqual({ file: missing, line: 1, col: 1, endLine: 1, endCol: 1 });
  });

  it('refuses a file over the size limit from its size alone (TM1003)', () => {
    const base = tree({ 'big.yaml': `a: ${'x'.repeat(5000)}\n`, 'small.yaml': 'a: 1\n' });
    const r = loadInputs([base], { maxBytes: 1000 });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.span?.file])).toEqual([['TM1003', join(base, 'big.yaml')]]);
    expect(loadInputs(['-'], { stdin: () => 'x'.repeat(2000), maxBytes: 1000 }).diagnostics[0]!.code).toBe('TM1003');
  });

  it('registers every text so diagnostics render with the source line and a caret', () => {
    const base = tree({ 'p.yaml': '\ufeffkind: Pod\nmetadata:\n  name: [oops\n' });
    const sources = new SourceRegistry();
    const r = loadInputs([join(base, 'p.yaml')], { sources });
    expect(r.ok).toBe(false);
    const text = renderDiagnostic(r.diagnostics[0]!, sources);
    expect(text.split('\n')[0]).toMatch(/p\.yaml:4:1: error TM1001: /);
    // The byte-order mark is not part of the text, so columns match what editors show.
    expect(sources.get(join(base, 'p.yaml'))!.lineText(1)).toBe('kind: Pod');
  });

  it('renders a caret under the offending key for a warning', () => {
    const r = loadInputs(['-'], { stdin: () => 'metadata:\n  name: a\n  name: b\n' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(renderDiagnostic(r.diagnostics[0]!, r.value.sources)).toBe(
      [`${STDIN_NAME}:3:3: warning TM1006: duplicate key 'name': the last value wins`, '    name: b', '    ^^^^', `  note: ${STDIN_NAME}:2:3: first defined here`].join('\n'),
    );
  });
});
