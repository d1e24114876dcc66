/**
 * Finds test files under the PATH arguments of `transmute test` as `kyverno test` does (test.LoadTests): a
 * folder is walked recursively for files named `kyverno-test.yaml`; a file given directly is a test. Paths
 * keep the user's spelling of PATH as prefix.
 */
import { basename } from 'node:path';
import { findNamedFiles } from '../../../io/find-named.js';
import { TEST_FILE_NAME } from './load.js';

export function findTestFiles(path: string, fileName: string = TEST_FILE_NAME): string[] {
  return findNamedFiles(path, fileName, (file) => basename(file) === fileName);
}
