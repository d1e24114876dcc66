/**
 * One input text to documents, as every reader of transmute reads it (files, standard input, strings given to
 * the library API): the size cap, the byte-order mark dropped, the text registered for carets, control
 * characters refused (TM1009), then YAML. No file system here: file reading (./inputs.ts) hands its texts in.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceRegistry } from '../diagnostics/render.js';
import type { LineIndex } from '../diagnostics/span.js';
import { nonPrintableDiagnostic } from './printable.js';
import type { SourceDoc } from './source.js';
import { DEFAULT_MAX_BYTES, exceedsBytes, loadYamlText, tooLargeDiagnostic, type LoadOptions } from './yaml-load.js';

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface TextLoadOptions extends Pick<LoadOptions, 'maxBytes' | 'maxDepth' | 'requireMapping'> {
  sources: SourceRegistry;
}

/** A text ready to parse: the size checked, the byte-order mark dropped, registered for carets, printable. */
export interface PreparedText {
  file: string;
  text: string;
  lineIndex: LineIndex;
}

/** `raw` read as `file`, checked and registered; or the diagnostic that refused it. */
export function prepareSourceText(file: string, raw: string, opts: Pick<TextLoadOptions, 'maxBytes' | 'sources'>): PreparedText | { diagnostic: Diagnostic } {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  if (exceedsBytes(raw, maxBytes)) return { diagnostic: tooLargeDiagnostic(file, maxBytes) };
  const text = stripBom(raw);
  const lineIndex = opts.sources.add(file, text);
  const binary = nonPrintableDiagnostic(file, text, lineIndex);
  return binary ? { diagnostic: binary } : { file, text, lineIndex };
}

/** The documents of `raw` read as `file`; on any error, no documents and the diagnostics. */
export function loadSourceText(file: string, raw: string, opts: TextLoadOptions): { docs: SourceDoc[]; diagnostics: Diagnostic[] } {
  const prepared = prepareSourceText(file, raw, opts);
  if ('diagnostic' in prepared) return { docs: [], diagnostics: [prepared.diagnostic] };
  const r = loadYamlText(file, prepared.text, { maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, maxDepth: opts.maxDepth, requireMapping: opts.requireMapping, lineIndex: prepared.lineIndex });
  return { docs: r.ok ? r.value : [], diagnostics: r.diagnostics };
}
