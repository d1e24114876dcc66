/**
 * Finds kaptest manifests under the PATH arguments of `transmute test`. kaptest itself runs the files it is
 * given (any name: README "There are no restrictions on the test file names"); `kaptest init policy.yaml` writes
 * `policy.test/kaptest.yaml`, so a folder is walked recursively for files named `kaptest.yaml` (hidden folders
 * skipped, as for kyverno-test.yaml: the old `.kaptest/` layout is kaptest v0.1's VAP-only format). A file given
 * directly is a manifest when it is named `kaptest.yaml` or reads as one (mapTestSuites / vapTestSuites).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { isJsonObject } from '../../../ir/json.js';
import { loadYamlText } from '../../../io/yaml-load.js';
import { KAPTEST_FILE_NAME, looksLikeKaptest } from './load.js';

/** True when `file` (given directly) should run as a kaptest manifest. */
export function isKaptestFile(file: string): boolean {
  if (basename(file) === KAPTEST_FILE_NAME) return true;
  if (!/\.ya?ml$/.test(file)) return false;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  // Cheap pre-check before parsing a file that is most likely something else.
  if (!/^(mapTestSuites|vapTestSuites)\s*:/m.test(text)) return false;
  const docs = loadYamlText(file, text);
  return docs.ok && docs.value.length >= 1 && isJsonObject(docs.value[0]!.value) && looksLikeKaptest(docs.value[0]!.value);
}

export function findKaptestFiles(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isFile()) return isKaptestFile(path) ? [path] : [];
  if (!stat.isDirectory()) return [];
  const out: string[] = [];
  const names = readdirSync(path)
    .filter((n) => !n.startsWith('.'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The folder's own manifest first, then its subfolders in name order.
  for (const name of names) {
    const child = joinPath(path, name);
    let s;
    try {
      s = statSync(child);
    } catch {
      continue;
    }
    if (name === KAPTEST_FILE_NAME && s.isFile()) out.unshift(child);
    else if (s.isDirectory()) out.push(...findKaptestFiles(child));
  }
  return out;
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}
