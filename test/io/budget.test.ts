/**
 * Issue 13, "Memory budget": a run's inputs are measured before any is read; over the budget, one TM1010
 * diagnostic and nothing read, so a folder of dumps is refused in milliseconds instead of exhausting the heap.
 */
import { closeSync, mkdirSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceRegistry } from '../../src/diagnostics/render.js';
import { formatBytes, parseByteQuantity } from '../../src/io/budget.js';
import { loadInputs } from '../../src/io/inputs.js';
import { InputTooLargeError, readBounded } from '../../src/io/stdin.js';
import { tempDir } from '../support/temp.js';

/** A file of `size` bytes that takes no disk (sparse): its content would be refused as binary if it were read. */
function sparse(path: string, size: number): void {
  writeFileSync(path, '');
  truncateSync(path, size);
}

describe('the input budget', () => {
  it('refuses a folder whose files total more than the budget, before reading any of them', () => {
    const dir = tempDir('budget', {});
    const folder = join(dir, 'dumps');
    mkdirSync(folder);
    for (const name of ['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml']) sparse(join(folder, name), 50 * 1024 * 1024);
    const started = Date.now();
    const r = loadInputs([folder]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.ok).toBe(false);
    // Had any file been read, its NUL bytes would have been refused as TM1009.
    expect(r.diagnostics.map((d) => [d.code, d.span?.file, d.message])).toEqual([
      ['TM1010', folder, '4 inputs are 200 MiB, over the input budget of 128 MiB for one run; nothing was read (raise it with --max-input-size)'],
    ]);
  });

  it('counts what the run already read, and standard input once read', () => {
    const dir = tempDir('budget', { 'p.yaml': 'kind: Pod\n' + 'x: y\n'.repeat(100) });
    const sources = new SourceRegistry();
    expect(loadInputs([join(dir, 'p.yaml')], { sources, maxTotalBytes: 1000 }).ok).toBe(true);
    const again = loadInputs([join(dir, 'p.yaml')], { sources, maxTotalBytes: 1000 });
    expect(again.diagnostics.map((d) => d.code)).toEqual(['TM1010']);
    expect(again.diagnostics[0]!.message).toContain('on top of 510 bytes already read');
    const stdin = loadInputs(['-'], { stdin: () => 'kind: Pod\n'.repeat(200), maxTotalBytes: 1000 });
    expect(stdin.diagnostics.map((d) => [d.code, d.span?.file])).toEqual([['TM1010', '<stdin>']]);
  });

  it('stays out of the way of a run inside it', () => {
    const dir = tempDir('budget', { 'a.yaml': 'kind: Pod\n', 'b.yaml': 'kind: Service\n' });
    const r = loadInputs([dir], { maxTotalBytes: 1000 });
    expect(r.ok && r.value.docs.map((d) => d.value)).toEqual([{ kind: 'Pod' }, { kind: 'Service' }]);
  });

  it('reads a stream to its end, or stops one byte past the limit', () => {
    const dir = tempDir('budget', { 'in.txt': 'x'.repeat(3000) });
    const fd = openSync(join(dir, 'in.txt'), 'r');
    try {
      expect(() => readBounded(1000, fd)).toThrow(InputTooLargeError);
    } finally {
      closeSync(fd);
    }
    const again = openSync(join(dir, 'in.txt'), 'r');
    try {
      expect(readBounded(5000, again).toString()).toBe('x'.repeat(3000));
    } finally {
      closeSync(again);
    }
  });

  it('reads sizes as Kubernetes quantities and prints them for people', () => {
    expect([parseByteQuantity('16Mi'), parseByteQuantity('2G'), parseByteQuantity('1024'), parseByteQuantity('1.5Ki')]).toEqual([16 * 2 ** 20, 2e9, 1024, 1536]);
    expect([parseByteQuantity(''), parseByteQuantity('-1'), parseByteQuantity('12XB'), parseByteQuantity('0')]).toEqual([undefined, undefined, undefined, undefined]);
    expect([formatBytes(512), formatBytes(1536), formatBytes(200 * 2 ** 20), formatBytes(3 * 2 ** 30)]).toEqual(['512 bytes', '1.5 KiB', '200 MiB', '3.0 GiB']);
  });
});
