import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticsToJson, renderDiagnostic, type SourceRegistry } from '../diagnostics/render.js';
import type { CliIO } from './io.js';

export type DiagnosticsFormat = 'text' | 'json';

/** Prints diagnostics to stderr, as text with carets or as JSON. */
export function reportDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], format: DiagnosticsFormat, sources?: SourceRegistry): void {
  if (diagnostics.length === 0) return;
  if (format === 'json') io.stderr(diagnosticsToJson(diagnostics) + '\n');
  else io.stderr(diagnostics.map((d) => renderDiagnostic(d, sources)).join('\n') + '\n');
}

export function diagnosticsFormat(v: unknown): DiagnosticsFormat | undefined {
  return v === undefined || v === 'text' ? 'text' : v === 'json' ? 'json' : undefined;
}

export { hasErrors };
