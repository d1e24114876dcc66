/**
 * Reading the files a `kyverno-test.yaml` names, relative to its folder; every failure is a TM1004/TM1001
 * diagnostic naming the file as the user reached it (`<test folder as given>/<name>`).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnostic, fail, ok, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { loadYamlText } from '../../../io/yaml-load.js';

export interface SuiteFiles {
  /** Absolute folder. */
  dir: string;
  /** The folder as shown to the user. */
  display: string;
}

export function displayName(files: SuiteFiles, name: string): string {
  const clean = name.replace(/^\.\//, '');
  return files.display === '' || files.display === '.' ? clean : `${files.display}/${clean}`;
}

export function readSuiteDocs(files: SuiteFiles, name: string): Result<SourceDoc[]> {
  let text: string;
  try {
    text = readFileSync(resolve(files.dir, name), 'utf8');
  } catch (e) {
    return fail(diagnostic('TM1004', { phase: 'io', message: `${displayName(files, name)}: ${(e as Error).message}` }));
  }
  return loadYamlText(displayName(files, name), text);
}

/** The first document of a file, which must be a mapping. */
export function readSuiteObject(files: SuiteFiles, name: string): Result<JsonObject> {
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return docs;
  const first = docs.value[0];
  if (!first || !isJsonObject(first.value)) return fail(diagnostic('TM1005', { phase: 'io', message: `${displayName(files, name)}: expected one YAML mapping` }));
  return ok(first.value);
}
