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
  io.stderr(capped(diagnostics).map((d) => (typeof d === 'string' ? d : renderDiagnostic(d, sources))).join('\n') + '\n');
}

/** How many diagnostics of one code and severity a terminal is shown before the rest are counted. */
export const MAX_SHOWN_PER_CODE = 20;

/**
 * The diagnostics a person reads: at most MAX_SHOWN_PER_CODE of each code and severity, in order, then one
 * line per code counting the rest, so a huge bad input prints a screenful, not megabytes. (JSON keeps all.)
 */
export function capped(diagnostics: readonly Diagnostic[]): (Diagnostic | string)[] {
  const seen = new Map<string, number>();
  const shown: (Diagnostic | string)[] = [];
  for (const d of diagnostics) {
    const key = `${d.severity} ${d.code}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n <= MAX_SHOWN_PER_CODE) shown.push(d);
  }
  for (const [key, n] of seen) {
    const [severity, code] = key.split(' ') as [string, string];
    if (n > MAX_SHOWN_PER_CODE) shown.push(`... and ${(n - MAX_SHOWN_PER_CODE).toLocaleString('en-US')} more ${severity}s of the same code (${code})`);
  }
  return shown;
}

export function diagnosticsFormat(v: unknown): DiagnosticsFormat | undefined {
  return v === undefined || v === 'text' ? 'text' : v === 'json' ? 'json' : undefined;
}

export { hasErrors };
