/**
 * vitest.config.ts runs most test files in workers that keep their modules from one file to the next, and
 * only the files of its ISOLATED list with a module graph of their own: a file that replaces modules or spies
 * on their exports must be on that list (its mocks would not reach modules an earlier file imported, and
 * would stay in place for the files after it), and every file on the list must exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODULE_STATE = /\bvi\.(?:mock|doMock|unmock|doUnmock|spyOn|hoisted|stubGlobal|stubEnv|resetModules|importActual|importMock)\b/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

function isolatedList(): string[] {
  const config = readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8');
  const list = /export const ISOLATED = \[([^\]]*)\]/.exec(config);
  if (list === null) throw new Error('vitest.config.ts has no ISOLATED list');
  return [...list[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

describe('vitest.config.ts ISOLATED', () => {
  it('lists exactly the test files that replace modules or spy on them', () => {
    const self = relative(ROOT, fileURLToPath(import.meta.url)).split('\\').join('/');
    const using = testFiles(join(ROOT, 'test'))
      .filter((f) => f !== self && MODULE_STATE.test(readFileSync(join(ROOT, f), 'utf8')))
      .sort();
    expect(using.length).toBeGreaterThan(0);
    expect([...isolatedList()].sort()).toEqual(using);
  });
});
