/**
 * Reading the files a `kyverno-test.yaml` names, relative to its folder; every failure is a TM1004/TM1001
 * diagnostic naming the file as the user reached it (`<test folder as given>/<name>`).
 */
import { resolve } from 'node:path';
import { diagnostic, fail, ok, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { readYamlTextFile } from '../../../io/text-check.js';
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
  let read: ReturnType<typeof readYamlTextFile>;
  try {
    read = readYamlTextFile(resolve(files.dir, name), displayName(files, name));
  } catch (e) {
    return fail(diagnostic('TM1004', { phase: 'io', message: `${displayName(files, name)}: ${(e as Error).message}` }));
  }
  if ('diagnostic' in read) return fail(read.diagnostic);
  return loadYamlText(displayName(files, name), read.text);
}

/** The first document of a file, which must be a mapping. */
export function readSuiteObject(files: SuiteFiles, name: string): Result<JsonObject> {
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return docs;
  const first = docs.value[0];
  if (!first || !isJsonObject(first.value)) return fail(diagnostic('TM1005', { phase: 'io', message: `${displayName(files, name)}: expected one YAML mapping` }));
  return ok(first.value);
}
