import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticsToJson, renderDiagnostic, type SourceRegistry } from '../diagnostics/render.js';
import type { CliIO } from './io.js';

export type DiagnosticsFormat = 'text' | 'json';

/**
 * Prints diagnostics to stderr, as text with carets or as JSON. JSON is always printed, `[]` when there are
 * none, so a caller can parse stderr whatever happened; call it once per run.
 */
export function reportDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], format: DiagnosticsFormat, sources?: SourceRegistry): void {
  if (format === 'json') {
    io.stderr(diagnosticsToJson(diagnostics) + '\n');
    return;
  }
  if (diagnostics.length === 0) return;
  io.stderr(diagnostics.map((d) => renderDiagnostic(d, sources)).join('\n') + '\n');
}

export function diagnosticsFormat(v: unknown): DiagnosticsFormat | undefined {
  return v === undefined || v === 'text' ? 'text' : v === 'json' ? 'json' : undefined;
}

export { hasErrors };
