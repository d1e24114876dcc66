/**
 * Command-line inputs to documents: files, directories (recursively, `.yaml`, `.yml` and `.json` files in sorted
 * order, as `kubectl apply -R -f DIR` visits them) and `-` for standard input. Every text read is registered in a
 * SourceRegistry so diagnostics can be rendered with the source line and a caret.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../diagnostics/diagnostic.js';
import { SourceRegistry } from '../diagnostics/render.js';
import type { SourceDoc } from './source.js';
import { decodeUtf8, InvalidUtf8Error, invalidUtf8Diagnostic, nonPrintableDiagnostic } from './text-check.js';
import { DEFAULT_MAX_BYTES, exceedsBytes, loadYamlText, tooLargeDiagnostic, type LoadOptions } from './yaml-load.js';

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

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function loadInputs(paths: readonly string[], opts: InputOptions = {}): Result<Inputs> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const sources = opts.sources ?? new SourceRegistry();
  const docs: SourceDoc[] = [];
  const diagnostics: Diagnostic[] = [];

  const loadText = (file: string, raw: string): void => {
    if (exceedsBytes(raw, maxBytes)) {
      diagnostics.push(tooLargeDiagnostic(file, maxBytes));
      return;
    }
    const text = stripBom(raw);
    const lineIndex = sources.add(file, text);
    const binary = nonPrintableDiagnostic(file, text, lineIndex);
    if (binary) {
      diagnostics.push(binary);
      return;
    }
    const r = loadYamlText(file, text, { maxBytes, maxDepth: opts.maxDepth, requireMapping: opts.requireMapping, lineIndex });
    diagnostics.push(...r.diagnostics);
    if (r.ok) docs.push(...r.value);
  };

  const loadFile = (path: string): void => {
    try {
      const size = statSync(path).size;
      if (size > maxBytes) {
        diagnostics.push(tooLargeDiagnostic(path, maxBytes, size));
        return;
      }
      const bytes = readFileSync(path);
      let text: string;
      try {
        text = decodeUtf8(bytes);
      } catch (e) {
        if (!(e instanceof InvalidUtf8Error)) throw e;
        diagnostics.push(invalidUtf8Diagnostic(path, e));
        return;
      }
      loadText(path, text);
    } catch (e) {
      diagnostics.push(unreadable(path, e));
    }
  };

  for (const path of paths) {
    if (path === '-') {
      let text: string;
      try {
        text = opts.stdin ? opts.stdin() : decodeUtf8(readFileSync(0));
      } catch (e) {
        diagnostics.push(e instanceof InvalidUtf8Error ? invalidUtf8Diagnostic(STDIN_NAME, e) : unreadable(STDIN_NAME, e));
        continue;
      }
      loadText(STDIN_NAME, text);
      continue;
    }
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      diagnostics.push(unreadable(path, e));
      continue;
    }
    if (!isDir) loadFile(path);
    else {
      try {
        for (const file of listInputFiles(path)) loadFile(file);
      } catch (e) {
        diagnostics.push(unreadable(path, e));
      }
    }
  }
  if (diagnostics.some((d) => d.severity === 'error')) return fail(...diagnostics);
  return ok({ docs, sources }, diagnostics);
}
