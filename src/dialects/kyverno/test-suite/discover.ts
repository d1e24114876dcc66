/**
 * Finds test files under the PATH arguments of `transmute test` as `kyverno test` does (test.LoadTests walks
 * every folder): a folder is walked recursively for files of one name, hidden folders included (the
 * kyverno/policies repository keeps its suites in `.kyverno-test/`); only `.git` and `node_modules` are not
 * entered. The folder's own file comes first, then its subfolders in name order; a file given directly is
 * kept when `accepts` says so. Paths keep the user's spelling of PATH as prefix. A folder reached twice
 * through symbolic links is walked once.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { TEST_FILE_NAME } from './load.js';

const NOT_ENTERED: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export function findTestFiles(path: string, fileName: string = TEST_FILE_NAME): string[] {
  return findFilesNamed(path, fileName, (file) => basename(file) === fileName);
}

export function findFilesNamed(path: string, fileName: string, accepts: (file: string) => boolean): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isFile()) return accepts(path) ? [path] : [];
  const out: string[] = [];
  walk(path, fileName, new Set(), out);
  return out;
}

function walk(dir: string, fileName: string, seen: Set<string>, out: string[]): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  let names: string[];
  try {
    names = readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    return;
  }
  const folders: string[] = [];
  for (const name of names) {
    const child = dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
    let s;
    try {
      s = statSync(child);
    } catch {
      continue;
    }
    if (name === fileName && s.isFile()) out.push(child);
    else if (s.isDirectory() && !NOT_ENTERED.has(name)) folders.push(child);
  }
  for (const f of folders) walk(f, fileName, seen, out);
}
