/**
 * The test-file discovery `kyverno test` does (test.LoadTests) and kaptest's `<policy>.test/kaptest.yaml`
 * layout share: a folder is walked recursively (hidden entries skipped) for files of one name, the folder's
 * own file first, then its subfolders in name order; a file given directly is kept when `accepts` says so.
 * Paths keep the user's spelling of PATH as prefix.
 */
import { readdirSync, statSync } from 'node:fs';

export function findNamedFiles(path: string, fileName: string, accepts: (file: string) => boolean): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isFile()) return accepts(path) ? [path] : [];
  if (!stat.isDirectory()) return [];
  const own: string[] = [];
  const nested: string[] = [];
  const names = readdirSync(path)
    .filter((n) => !n.startsWith('.'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const child = path.endsWith('/') ? `${path}${name}` : `${path}/${name}`;
    let s;
    try {
      s = statSync(child);
    } catch {
      continue;
    }
    if (name === fileName && s.isFile()) own.push(child);
    else if (s.isDirectory()) nested.push(...findNamedFiles(child, fileName, accepts));
  }
  return [...own, ...nested];
}
