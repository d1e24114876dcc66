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
import { DEFAULT_MAX_TOTAL_BYTES, parseByteQuantity, POLICY_SHARE } from '../io/budget.js';
import { inputDocuments, readInputTexts, STDIN_NAME } from '../io/inputs.js';
import { pushAll } from '../util/arrays.js';
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
  /** The documents are policies: they get a quarter of the input budget (see POLICY_SHARE). */
  policies?: boolean;
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

type Texts = ReturnType<typeof readInputTexts>['texts'];

/** Where a diagnostic of `checkedDocuments` comes from: reading, a List's items, or the object check. */
type Checked = { doc: SourceDoc } | { diagnostics: Diagnostic[]; stage: 'load' | 'list' | 'object' };

function listItemRefusal(doc: SourceDoc): Diagnostic | undefined {
  if (isJsonObject(doc.value)) return undefined;
  const v = doc.value;
  const what = v === null ? 'null' : Array.isArray(v) ? 'a sequence' : `a ${typeof v}`;
  return diagnostic('TM1005', { phase: 'io', message: `the List item is ${what}, not a mapping`, span: doc.spanOf([]) });
}

/** The documents of `texts`, parsed one at a time, Lists expanded and objects checked as `opts` asks. */
function* checkedDocuments(texts: Texts, opts: CliInputOptions): Generator<Checked> {
  for (const item of inputDocuments(texts, { requireMapping: true })) {
    if (!('doc' in item)) {
      yield { diagnostics: item.diagnostics, stage: 'load' };
      continue;
    }
    for (const doc of opts.lists ? expandLists([item.doc]) : [item.doc]) {
      // Documents are mappings (requireMapping checked them); the items of a List must be too.
      const notMapping = opts.lists ? listItemRefusal(doc) : undefined;
      if (notMapping) {
        yield { diagnostics: [notMapping], stage: 'list' };
        continue;
      }
      const refused = opts.objects ? notAnObject(doc, 'the document') : undefined;
      if (refused) yield { diagnostics: [refused], stage: 'object' };
      else yield { doc };
    }
  }
}

function readTexts(paths: readonly string[], io: CliIO, sources: SourceRegistry, opts: CliInputOptions): Texts {
  const budget = sources.inputBudget ?? DEFAULT_MAX_TOTAL_BYTES;
  return readInputTexts(paths, {
    stdin: io.stdin,
    sources,
    maxTotalBytes: opts.policies ? Math.floor(budget / POLICY_SHARE) : budget,
    budgetLabel: opts.policies ? 'policy input' : 'input',
  }).texts;
}

/**
 * One pass over the documents: the diagnostics in the order a reader expects them (reading, then List items,
 * then objects; only reading's when it failed, as nothing read then is a document), each accepted document
 * handed to `visit`, and how many there were.
 */
function checkAll(paths: readonly string[], texts: Texts, opts: CliInputOptions, visit: (doc: SourceDoc) => void): { diagnostics: Diagnostic[]; ok: boolean; count: number } {
  const byStage = { load: [] as Diagnostic[], list: [] as Diagnostic[], object: [] as Diagnostic[] };
  let count = 0;
  for (const item of checkedDocuments(texts, opts)) {
    if ('doc' in item) {
      count++;
      visit(item.doc);
    } else pushAll(byStage[item.stage], item.diagnostics);
  }
  const loaded = !hasErrors(byStage.load);
  const diagnostics = loaded ? [...byStage.load, ...byStage.list, ...byStage.object] : byStage.load;
  if (opts.nonEmpty && loaded && count === 0 && !hasErrors(diagnostics)) {
    diagnostics.push(diagnostic('TM7001', { phase: 'cli', message: `no ${opts.nonEmpty} in ${paths.map(shown).join(', ')}` }));
  }
  return { diagnostics, ok: !hasErrors(diagnostics), count: loaded ? count : 0 };
}

export function readCliInputs(paths: readonly string[], io: CliIO, sources: SourceRegistry, opts: CliInputOptions = {}): CliInputs {
  const docs: SourceDoc[] = [];
  const r = checkAll(paths, readTexts(paths, io, sources, opts), opts, (doc) => docs.push(doc));
  // When reading failed nothing is a document (count is 0), as before any check ran.
  return { docs: r.count > 0 ? docs : [], diagnostics: r.diagnostics, ok: r.ok };
}

export interface CliInputStream {
  diagnostics: Diagnostic[];
  ok: boolean;
  /** How many documents `documents()` yields. */
  count: number;
  /** The documents again, parsed one at a time (none is kept between calls): for one pass of the work. */
  documents(): Generator<SourceDoc>;
}

/**
 * readCliInputs for inputs too large to hold as documents (a cluster's dump): the texts are read once and every
 * document checked, each handed to `visit` and then dropped; `documents()` parses them again for the work, so
 * memory stays at the texts' size whatever the number of documents, and nothing is written before every
 * document is known to be readable.
 */
export function streamCliInputs(paths: readonly string[], io: CliIO, sources: SourceRegistry, opts: CliInputOptions, visit: (doc: SourceDoc) => void = () => {}): CliInputStream {
  const texts = readTexts(paths, io, sources, opts);
  const r = checkAll(paths, texts, opts, visit);
  return {
    diagnostics: r.diagnostics,
    ok: r.ok,
    count: r.count,
    *documents() {
      for (const item of checkedDocuments(texts, opts)) if ('doc' in item) yield item.doc;
    },
  };
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


/** The `--max-input-size` option, shared by every command that reads policies or resources. */
export const MAX_INPUT_SIZE_OPTION = { 'max-input-size': { type: 'string' } } as const;

/** The flags of every command that reads policies and reports diagnostics (apply, expand, ir, translate). */
export const READER_OPTIONS = { validate: { type: 'string' }, diagnostics: { type: 'string' }, ...MAX_INPUT_SIZE_OPTION } as const;

/** What READER_OPTIONS (and the -h/--help every command takes) parse to. */
export interface ReaderFlags {
  validate?: string;
  diagnostics?: string;
  'max-input-size'?: string;
  help?: boolean;
}

export const MAX_INPUT_SIZE_HELP = `      --max-input-size SIZE  refuse a run whose input files total more than SIZE (default 128Mi; policies may
                             take a quarter of it), checked from their sizes before reading; e.g. 512Mi, 2G`;

/** The run's input budget in bytes, or a usage error for a value that is not a size. */
export function maxInputBytes(value: string | undefined): number | { error: string } {
  if (value === undefined) return DEFAULT_MAX_TOTAL_BYTES;
  const n = parseByteQuantity(value);
  return n === undefined ? { error: `--max-input-size "${value}" is not a size (a byte count, or a quantity such as 512Mi or 2G)` } : n;
}
