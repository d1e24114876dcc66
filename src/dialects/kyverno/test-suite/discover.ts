/** Finds `kyverno-test.yaml` files under the PATH arguments of `transmute test` as `kyverno test` does (io/find-named.ts). */
import { basename } from 'node:path';
import { findNamedFiles } from '../../../io/find-named.js';
import { TEST_FILE_NAME } from './load.js';

export function findTestFiles(path: string, fileName: string = TEST_FILE_NAME): string[] {
  return findNamedFiles(path, fileName, (file) => basename(file) === fileName);
}
