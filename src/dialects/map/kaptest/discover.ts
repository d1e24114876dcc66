/**
 * Finds kaptest manifests under the PATH arguments of `transmute test`. kaptest itself runs the files it is
 * given (any name: README "There are no restrictions on the test file names"); `kaptest init policy.yaml` writes
 * `policy.test/kaptest.yaml`, so a folder is walked recursively for files named `kaptest.yaml`, as for
 * kyverno-test.yaml (io/find-named.ts). A file found so that is kaptest v0.1's VAP-only format (the old
 * `.kaptest/` layout: a top-level `testSuites`) is passed over. A file given directly is a manifest when it is
 * named `kaptest.yaml` or reads as one (mapTestSuites / vapTestSuites).
 */
import { readFileSync } from 'node:fs';
import { findNamedFiles } from '../../../io/find-named.js';
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

/** A kaptest v0.1 manifest: `testSuites` at the top, none of v1's `mapTestSuites` / `vapTestSuites`. */
function isKaptestV01(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  return /^testSuites\s*:/m.test(text) && !/^(mapTestSuites|vapTestSuites)\s*:/m.test(text);
}

export function findKaptestFiles(path: string): string[] {
  return findNamedFiles(path, KAPTEST_FILE_NAME, isKaptestFile, (file) => !isKaptestV01(file));
}
