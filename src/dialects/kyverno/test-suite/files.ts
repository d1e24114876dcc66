/**
 * Reading the files a `kyverno-test.yaml` names, relative to its folder; every failure is a TM1004/TM1001
 * diagnostic naming the file as the user reached it (`<test folder as given>/<name>`).
 */
import { diagnostic, fail, ok, type Result } from '../../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { readDocsShown, type RelativeFiles } from '../../../io/relative-files.js';

export type SuiteFiles = RelativeFiles;

export function displayName(files: SuiteFiles, name: string): string {
  const clean = name.replace(/^\.\//, '');
  return files.display === '' || files.display === '.' ? clean : `${files.display}/${clean}`;
}

export function readSuiteDocs(files: SuiteFiles, name: string): Result<SourceDoc[]> {
  return readDocsShown(files, name, displayName(files, name));
}

/** The first document of a file, which must be a mapping. */
export function readSuiteObject(files: SuiteFiles, name: string): Result<JsonObject> {
  const docs = readSuiteDocs(files, name);
  if (!docs.ok) return docs;
  const first = docs.value[0];
  if (!first || !isJsonObject(first.value)) return fail(diagnostic('TM1005', { phase: 'io', message: `${displayName(files, name)}: expected one YAML mapping` }));
  return ok(first.value);
}
