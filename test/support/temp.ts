/**
 * Temporary folders for tests, removed when the test file ends (removeTempDirs, which test/support/setup.ts
 * registers as an afterAll of every test file: this module is shared by the files a worker runs in turn,
 * vitest.config.ts, so a hook registered here would run for the first of them only).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const created: string[] = [];

/** Removes every folder tempDir made since the last call. */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A temporary folder `transmute-<prefix>-*` holding `files` (paths may contain folders). */
export function tempDir(prefix: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `transmute-${prefix}-`));
  created.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
