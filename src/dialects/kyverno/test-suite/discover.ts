/**
 * Finds test files under the PATH arguments of `transmute test` as `kyverno test` does (test.LoadTests): a
 * folder is walked recursively for files named `kyverno-test.yaml`; a file given directly is a test. Paths
 * keep the user's spelling of PATH as prefix.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { TEST_FILE_NAME } from './load.js';

export function findTestFiles(path: string, fileName: string = TEST_FILE_NAME): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isFile()) return basename(path) === fileName ? [path] : [];
  if (!stat.isDirectory()) return [];
  const out: string[] = [];
  const names = readdirSync(path)
    .filter((n) => !n.startsWith('.'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The folder's own test first, then its subfolders in name order.
  if (names.includes(fileName) && statSync(join(path, fileName)).isFile()) out.push(joinPath(path, fileName));
  for (const name of names) {
    const child = joinPath(path, name);
    let s;
    try {
      s = statSync(child);
    } catch {
      continue;
    }
    if (s.isDirectory()) out.push(...findTestFiles(child, fileName));
  }
  return out;
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}
