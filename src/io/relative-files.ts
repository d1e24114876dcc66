/**
 * The files a test definition (kyverno-test.yaml, a kaptest manifest) names, read relative to its folder and
 * shown as the user reached them: every failure is a TM1004/TM1001 diagnostic naming the file so.
 */
import { basename, dirname, resolve } from 'node:path';
import { diagnostic, fail, type Result } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import type { SourceDoc } from './source.js';
import { readYamlTextFile } from './text-check.js';
import { loadYamlText } from './yaml-load.js';

export interface RelativeFiles {
  /** Absolute folder. */
  dir: string;
  /** The folder as the user reached it ('' for the current folder). */
  display: string;
}

/** The folder of the definition at `path` (reached as `display`), and the definition's file name. */
export function folderOf(path: string, display: string): { files: RelativeFiles; name: string } {
  const abs = resolve(path);
  const slash = display.lastIndexOf('/');
  return { files: { dir: dirname(abs), display: slash < 0 ? '' : display.slice(0, slash) }, name: basename(abs) };
}

/** The YAML documents of `name` in the folder, shown as `shown` in diagnostics. */
export function readDocsShown(files: RelativeFiles, name: string, shown: string, span?: Span): Result<SourceDoc[]> {
  let read: ReturnType<typeof readYamlTextFile>;
  try {
    read = readYamlTextFile(resolve(files.dir, name), shown);
  } catch (e) {
    return fail(diagnostic('TM1004', { phase: 'io', message: `${shown}: ${(e as Error).message}`, ...(span ? { span } : {}) }));
  }
  if ('diagnostic' in read) return fail(read.diagnostic);
  return loadYamlText(shown, read.text);
}
