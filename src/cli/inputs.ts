/**
 * How commands read the files named on the command line: every text into one SourceRegistry (so any
 * diagnostic gets its caret), every document a mapping (TM1005), Lists expanded into their items as kubectl
 * does, resources checked to be Kubernetes objects (TM1008), and a run with nothing to read refused. Standard
 * input (`-`) can be read once per run, so it may be named once (`stdinNamedTwice`).
 */
import { statSync } from 'node:fs';
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceRegistry } from '../diagnostics/render.js';
import { isJsonObject } from '../ir/json.js';
import { loadInputs, STDIN_NAME } from '../io/inputs.js';
import { expandLists } from '../io/lists.js';
import type { SourceDoc } from '../io/source.js';
import type { CliIO } from './io.js';

export interface CliInputOptions {
  /** Expand `kind: List` (and `*List` with `items`) into the items: true for policies and resources. */
  lists?: boolean;
  /** Each document (after List expansion) must have apiVersion and kind (TM1008). */
  objects?: boolean;
  /** What the documents are, for "no policy documents in ...": when given, reading nothing is an error. */
  nonEmpty?: string;
}

export interface CliInputs {
  docs: SourceDoc[];
  diagnostics: Diagnostic[];
  /** False when any error was found: `docs` then holds what could be read. */
  ok: boolean;
}

function shown(path: string): string {
  return path === '-' ? STDIN_NAME : path;
}

/** A mapping without apiVersion or kind, which kubectl refuses ("Object 'Kind' is missing in ..."). */
export function notAnObject(doc: SourceDoc, what: string): Diagnostic | undefined {
  const v = doc.value;
  if (!isJsonObject(v)) return undefined;
  const missing = (['apiVersion', 'kind'] as const).filter((k) => typeof v[k] !== 'string' || v[k] === '');
  if (missing.length === 0) return undefined;
  return diagnostic('TM1008', {
    phase: 'io',
    message: `${what} is not a Kubernetes object: it has no ${missing.join(' and no ')}`,
    span: doc.spanOf(missing.length === 1 && missing[0] === 'apiVersion' && 'kind' in v ? ['kind'] : []),
  });
}

export function readCliInputs(paths: readonly string[], io: CliIO, sources: SourceRegistry, opts: CliInputOptions = {}): CliInputs {
  const r = loadInputs(paths, { stdin: io.stdin, sources, requireMapping: true });
  const diagnostics = [...r.diagnostics];
  let docs = r.ok ? r.value.docs : [];
  if (opts.lists) {
    // Documents are mappings (loadInputs checked them); the items of a List must be too.
    docs = expandLists(docs).filter((doc) => {
      if (isJsonObject(doc.value)) return true;
      const v = doc.value;
      const what = v === null ? 'null' : Array.isArray(v) ? 'a sequence' : `a ${typeof v}`;
      diagnostics.push(diagnostic('TM1005', { phase: 'io', message: `the List item is ${what}, not a mapping`, span: doc.spanOf([]) }));
      return false;
    });
  }
  if (opts.objects) {
    docs = docs.filter((doc) => {
      const refused = notAnObject(doc, 'the document');
      if (refused) diagnostics.push(refused);
      return !refused;
    });
  }
  if (opts.nonEmpty && r.ok && docs.length === 0 && !hasErrors(diagnostics)) {
    diagnostics.push(diagnostic('TM7001', { phase: 'cli', message: `no ${opts.nonEmpty} in ${paths.map(shown).join(', ')}` }));
  }
  return { docs, diagnostics, ok: r.ok && !hasErrors(diagnostics) };
}

/**
 * A usage error when standard input is named more than once: `flags` maps each option to the values it was
 * given (`-p`: ['-', 'x.yaml']).
 */
export function stdinNamedTwice(flags: Record<string, readonly string[] | string | undefined>): string | undefined {
  const naming: string[] = [];
  for (const [flag, v] of Object.entries(flags)) {
    const values = v === undefined ? [] : typeof v === 'string' ? [v] : v;
    for (const value of values) if (value === '-') naming.push(flag);
  }
  if (naming.length < 2) return undefined;
  const names = [...new Set(naming)];
  const by = names.length === 1 ? `${names[0]} twice` : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `standard input (-) is named by ${by}; it can be read only once per run`;
}

/** A usage error when an option that takes one file was given a folder (it would read every file in it). */
export function folderForFile(flags: Record<string, string | undefined>): string | undefined {
  for (const [flag, path] of Object.entries(flags)) {
    if (path === undefined || path === '-') continue;
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      continue; // reading it reports why
    }
    if (isDir) return `${flag} ${path} is a folder; ${flag} takes one file`;
  }
  return undefined;
}

