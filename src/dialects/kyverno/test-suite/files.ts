/**
 * Reading the files a `kyverno-test.yaml` names, relative to its folder; every failure is a TM1004/TM1001
 * diagnostic naming the file as the user reached it (`<test folder as given>/<name>`).
 */
import type { Result } from '../../../diagnostics/diagnostic.js';
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
