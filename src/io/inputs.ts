/**
 * Command-line inputs to documents: files, directories (recursively, `.yaml`, `.yml` and `.json` files in sorted
 * order, as `kubectl apply -R -f DIR` visits them) and `-` for standard input. Every text read is registered in a
 * SourceRegistry so diagnostics can be rendered with the source line and a caret.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { diagnostic, failWith, ok, type Diagnostic, type Result } from '../diagnostics/diagnostic.js';
import { SourceRegistry } from '../diagnostics/render.js';
import type { SourceDoc } from './source.js';
import { decodeUtf8, InvalidUtf8Error, invalidUtf8Diagnostic } from './text-check.js';
import { prepareSourceText, type PreparedText } from './load-text.js';
import { DEFAULT_MAX_BYTES, tooLargeDiagnostic, yamlDocuments, type LoadOptions } from './yaml-load.js';
import { DEFAULT_MAX_TOTAL_BYTES, overBudgetDiagnostic } from './budget.js';
import { InputTooLargeError, readBounded } from './stdin.js';
import { pushAll } from '../util/arrays.js';

export { streamYamlDocuments, YamlStreamError, type StreamOptions } from './yaml-stream.js';

/** The file name diagnostics use for standard input. */
export const STDIN_NAME = '<stdin>';

/** kubectl's FileExtensions (k8s.io/cli-runtime resource/visitor.go). */
const EXTENSIONS = ['.yaml', '.yml', '.json'];

export interface InputOptions extends Pick<LoadOptions, 'maxDepth' | 'requireMapping'> {
  /** Reads standard input for `-` (tests pass a function; the default reads file descriptor 0). */
  stdin?: () => string;
  /** Largest single input in UTF-8 bytes (TM1003). Default 64 MiB. */
  maxBytes?: number;
  /**
   * Largest total of the files read in one run, checked from their sizes before any is read (TM1010), so a
   * folder of huge files is refused in milliseconds instead of exhausting the heap. Texts already held by
   * `sources` (read earlier in the run) count against it. Default 128 MiB.
   */
  maxTotalBytes?: number;
  /** What `maxTotalBytes` bounds, for the message: `input` (default) or `policy input`. */
  budgetLabel?: string;
  /** Register texts here instead of a new registry, so the caller can render carets even when loading fails. */
  sources?: SourceRegistry;
}

export interface Inputs {
  docs: SourceDoc[];
  sources: SourceRegistry;
}

function unreadable(path: string, e: unknown): Diagnostic {
  const err = e as NodeJS.ErrnoException;
  const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : (err.code ?? err.message);
  // The file itself is the place: `nope.yaml:1:1: error TM1004: ...` like every other input error.
  const span = { file: path, line: 1, col: 1, endLine: 1, endCol: 1 };
  return diagnostic('TM1004', { phase: 'io', message: `cannot read ${path}: ${why}`, span });
}

/** Files under `dir` with a YAML or JSON extension, depth first, entries sorted by name at each level. */
export function listInputFiles(dir: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (d: string): void => {
    const real = realpathSync(d);
    if (seen.has(real)) return; // a symlink cycle
    seen.add(real);
    const names = readdirSync(d).sort();
    for (const name of names) {
      const path = join(d, name);
      let isDir = false;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        continue; // a dangling symlink
      }
      if (isDir) walk(path);
      else if (EXTENSIONS.some((ext) => name.endsWith(ext))) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/** One input to read: a file with its size, or standard input (whose size is known only once read). */
type Planned = { kind: 'file'; path: string; size: number } | { kind: 'stdin' } | { kind: 'error'; diagnostic: Diagnostic };

/** The files each path names (a folder's YAML and JSON files), with their sizes, before reading any of them. */
function planInputs(paths: readonly string[]): { planned: Planned[]; total: number } {
  const planned: Planned[] = [];
  let total = 0;
  const addFile = (path: string): void => {
    try {
      const size = statSync(path).size;
      total += size;
      planned.push({ kind: 'file', path, size });
    } catch (e) {
      planned.push({ kind: 'error', diagnostic: unreadable(path, e) });
    }
  };
  for (const path of paths) {
    if (path === '-') {
      planned.push({ kind: 'stdin' });
      continue;
    }
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      planned.push({ kind: 'error', diagnostic: unreadable(path, e) });
      continue;
    }
    if (!isDir) addFile(path);
    else {
      try {
        for (const file of listInputFiles(path)) addFile(file);
      } catch (e) {
        planned.push({ kind: 'error', diagnostic: unreadable(path, e) });
      }
    }
  }
  return { planned, total };
}

/**
 * The texts the inputs name, read once, in order, each checked (size, UTF-8, printable) and registered in the
 * run's SourceRegistry, or the diagnostic that refused it; nothing is parsed. The whole run is refused up front
 * (TM1010) when the files' sizes exceed the budget. Readers that keep one document at a time (`apply` over a
 * cluster dump) parse these texts with `inputDocuments`; `loadInputs` parses them all.
 */
export function readInputTexts(paths: readonly string[], opts: InputOptions = {}): { texts: (PreparedText | { diagnostic: Diagnostic })[]; sources: SourceRegistry } {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxTotal = opts.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
  const sources = opts.sources ?? new SourceRegistry();
  const texts: (PreparedText | { diagnostic: Diagnostic })[] = [];

  const { planned, total } = planInputs(paths);
  const already = sources.totalLength;
  if (already + total > maxTotal) {
    const files = planned.filter((p) => p.kind === 'file').length;
    return { texts: [{ diagnostic: overBudgetDiagnostic(paths.find((p) => p !== '-') ?? STDIN_NAME, { total, files, already, max: maxTotal, label: opts.budgetLabel }) }], sources };
  }

  const readFile = (path: string, size: number): PreparedText | { diagnostic: Diagnostic } => {
    if (size > maxBytes) return { diagnostic: tooLargeDiagnostic(path, maxBytes, size) };
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      return { diagnostic: unreadable(path, e) };
    }
    let text: string;
    try {
      text = decodeUtf8(bytes);
    } catch (e) {
      if (!(e instanceof InvalidUtf8Error)) throw e;
      return { diagnostic: invalidUtf8Diagnostic(path, e) };
    }
    return prepareSourceText(path, text, { sources, maxBytes });
  };

  const readStdin = (): PreparedText | { diagnostic: Diagnostic } => {
    let text: string;
    try {
      text = opts.stdin ? opts.stdin() : decodeUtf8(readBounded(Math.min(maxBytes, maxTotal - sources.totalLength)));
    } catch (e) {
      const diagnostic =
        e instanceof InvalidUtf8Error ? invalidUtf8Diagnostic(STDIN_NAME, e) : e instanceof InputTooLargeError ? tooLargeDiagnostic(STDIN_NAME, e.limit) : unreadable(STDIN_NAME, e);
      return { diagnostic };
    }
    // Standard input has no size to check beforehand; what it brought still counts against the run's budget.
    if (sources.totalLength + text.length > maxTotal) {
      return { diagnostic: overBudgetDiagnostic(STDIN_NAME, { total: text.length, files: 1, already: sources.totalLength, max: maxTotal, label: opts.budgetLabel }) };
    }
    return prepareSourceText(STDIN_NAME, text, { sources, maxBytes });
  };

  for (const input of planned) {
    if (input.kind === 'error') texts.push({ diagnostic: input.diagnostic });
    else texts.push(input.kind === 'file' ? readFile(input.path, input.size) : readStdin());
  }
  return { texts, sources };
}

/** The documents of texts readInputTexts read, parsed one at a time, with each text's refusal in its place. */
export function* inputDocuments(
  texts: readonly (PreparedText | { diagnostic: Diagnostic })[],
  opts: Pick<InputOptions, 'maxDepth' | 'requireMapping'> = {},
): Generator<{ doc: SourceDoc } | { diagnostics: Diagnostic[] }> {
  for (const t of texts) {
    if ('diagnostic' in t) yield { diagnostics: [t.diagnostic] };
    else yield* yamlDocuments(t.file, t.text, { maxDepth: opts.maxDepth, requireMapping: opts.requireMapping, lineIndex: t.lineIndex });
  }
}

export function loadInputs(paths: readonly string[], opts: InputOptions = {}): Result<Inputs> {
  const { texts, sources } = readInputTexts(paths, opts);
  const docs: SourceDoc[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const item of inputDocuments(texts, opts)) {
    if ('doc' in item) docs.push(item.doc);
    else pushAll(diagnostics, item.diagnostics);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return failWith(diagnostics);
  return ok({ docs, sources }, diagnostics);
}


