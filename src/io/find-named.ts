/**
 * The test-file discovery `kyverno test` does (test.LoadTests walks every folder) and kaptest's
 * `<policy>.test/kaptest.yaml` layout share: a folder is walked recursively for files of one name, hidden
 * folders included (the kyverno/policies repository keeps its suites in `.kyverno-test/`); only `.git` and
 * `node_modules` are not entered. The folder's own file comes first, then its subfolders in name order. A file
 * given directly is kept when `accepts` says so, a file found by the walk when `keep` does. Paths keep the
 * user's spelling of PATH as prefix. A folder reached twice through symbolic links is walked once.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';

const NOT_ENTERED: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export function findNamedFiles(path: string, fileName: string, accepts: (file: string) => boolean, keep: (file: string) => boolean = () => true): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isFile()) return accepts(path) ? [path] : [];
  const out: string[] = [];
  walk(path, fileName, new Set(), out);
  return out.filter(keep);
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
