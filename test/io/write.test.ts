import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/io/write.js';

const dir = mkdtempSync(join(tmpdir(), 'transmute-write-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('writes a new file and leaves no temporary file behind', () => {
    const path = join(dir, 'new.yaml');
    expect(writeFileAtomic(path, 'a: 1\n')).toEqual({ ok: true, value: undefined, diagnostics: [] });
    expect(readFileSync(path, 'utf8')).toBe('a: 1\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('replaces an existing file whole, keeping its mode', () => {
    const path = join(dir, 'existing.yaml');
    writeFileSync(path, 'old content that is longer than the new one\n');
    chmodSync(path, 0o640);
    const big = 'é'.repeat(300_000);
    expect(writeFileAtomic(path, big).ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(big);
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it('writes through a symlink to its target', () => {
    const target = join(dir, 'target.yaml');
    const link = join(dir, 'link.yaml');
    writeFileSync(target, 'old\n');
    symlinkSync(target, link);
    expect(writeFileAtomic(link, 'new\n').ok).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(statSync(link).isFile()).toBe(true);
  });

  it('fails as a value, touching nothing, when the file cannot be written', () => {
    const r = writeFileAtomic(join(dir, 'no-such-dir', 'x.yaml'), 'a: 1\n');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe('TM1004');
    expect(r.diagnostics[0]!.message).toContain('ENOENT');
    // The target is a directory: the rename fails, and the temporary file is removed.
    expect(writeFileAtomic(dir, 'x').ok).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
