import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadYamlText } from '../../src/io/yaml-load.js';

/** The classic "billion laughs": 9 levels of 9 aliases each, 9^9 (387 million) leaves when expanded. */
function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghi';
  for (let i = 1; i < names.length; i++) {
    const prev = `*${names[i - 1]}`;
    lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(prev).join(',')}]`);
  }
  return lines.join('\n') + '\n';
}

describe('alias expansion is capped (TM1002)', () => {
  it('refuses a billion laughs document quickly, without expanding it', () => {
    const t0 = performance.now();
    const r = loadYamlText('bomb.yaml', billionLaughs());
    const ms = performance.now() - t0;
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TM1002']);
    expect(r.diagnostics[0]!.message).toContain('excessive aliasing');
    expect(r.diagnostics[0]!.span?.file).toBe('bomb.yaml');
    expect(ms).toBeLessThan(2000);
  });

  it('refuses the same bomb with keys and merges as the amplifiers', () => {
    const lines = ['l0: &l0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}'];
    for (let i = 1; i < 12; i++) lines.push(`l${i}: &l${i} [${Array(8).fill(`*l${i - 1}`).join(', ')}]`);
    const r = loadYamlText('bomb2.yaml', lines.join('\n'));
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe('TM1002');
  });

  it('allows ordinary alias use (go-yaml lets up to 99% of a small document come from aliases)', () => {
    const text = 'base: &b {image: nginx, ports: [80, 443]}\n' + Array.from({ length: 50 }, (_, i) => `c${i}: *b`).join('\n');
    const r = loadYamlText('ok.yaml', text);
    expect(r.ok).toBe(true);
    expect(r.ok && (r.value[0]!.value as Record<string, unknown>).c49).toEqual({ image: 'nginx', ports: [80, 443] });
  });

  it("documents why the yaml package's own maxAliasCount is not what protects us: it only acts in toJS()", () => {
    // Composing (what we do) never resolves aliases; the yaml package counts them only while building JS values.
    const [doc] = parseAllDocuments(billionLaughs());
    expect(doc!.errors).toEqual([]);
    expect(() => doc!.toJS({ maxAliasCount: 100 })).toThrow(/Excessive alias count/);
  });
});

describe('input size is capped (TM1003)', () => {
  it('refuses a text over the limit without parsing it', () => {
    // Malformed on purpose: a parse would report TM1001, the cap must answer first.
    const text = 'a: [' + 'x'.repeat(2000);
    const r = loadYamlText('big.yaml', text, { maxBytes: 1000 });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col])).toEqual([['TM1003', 1, 1]]);
    expect(r.diagnostics[0]!.message).toContain('1000 bytes');
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(loadYamlText('e.yaml', `a: ${'é'.repeat(500)}`, { maxBytes: 900 }).ok).toBe(false);
    expect(loadYamlText('e.yaml', `a: ${'é'.repeat(400)}`, { maxBytes: 900 }).ok).toBe(true);
  });

  it('loads a 50 MB document under the default 64 MiB limit', () => {
    const line = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+/'.repeat(2);
    const block = Array.from({ length: 4096 }, () => `    ${line}`).join('\n');
    const parts = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big', 'data:'];
    let size = 0;
    for (let k = 0; size < 50 * 1024 * 1024; k++) {
      parts.push(`  key${k}: |`, block);
      size += block.length;
    }
    const text = parts.join('\n') + '\n';
    expect(text.length).toBeGreaterThan(50 * 1024 * 1024);
    const t0 = performance.now();
    const r = loadYamlText('big.yaml', text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const data = (r.value[0]!.value as { data: Record<string, string> }).data;
    expect(Object.keys(data).length).toBeGreaterThan(90);
    expect(data.key0!.length).toBe(4096 * (line.length + 1));
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});

describe('nesting depth is capped (TM1007)', () => {
  it('refuses a deeply nested flow document before the composer can overflow the stack', () => {
    const n = 100_000;
    const r = loadYamlText('deep.yaml', `a: ${'['.repeat(n)}${']'.repeat(n)}\n`);
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([['TM1007', 1]]);
    expect(r.diagnostics[0]!.message).toContain('256');
  });

  it('refuses a deeply nested block document', () => {
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(`${' '.repeat(i)}k:`);
    const r = loadYamlText('deep.yaml', lines.join('\n') + ' v\n');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe('TM1007');
    expect(r.diagnostics[0]!.span?.line).toBe(257);
  });

  it('counts depth through aliases too', () => {
    const text = 'a: &a [[[[1]]]]\nb: &b [[[[*a]]]]\nc: [[[[*b]]]]\n';
    expect(loadYamlText('d.yaml', text, { maxDepth: 12 }).ok).toBe(false);
    expect(loadYamlText('d.yaml', text, { maxDepth: 14 }).ok).toBe(true);
  });

  it('is configurable and keeps the other documents of the file', () => {
    const r = loadYamlText('d.yaml', 'a: [[1]]\n---\nb: [[[1]]]\n', { maxDepth: 3 });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.map((d) => [d.code, d.span?.line])).toEqual([['TM1007', 3]]);
  });
});
