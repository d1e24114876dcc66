import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticsToJson, renderDiagnostic, type SourceRegistry } from '../diagnostics/render.js';
import { styleFor } from './color.js';
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
  const style = styleFor(io, 'stderr');
  io.stderr(cappedText(diagnostics, (d) => renderDiagnostic(d, sources, style)).join('\n') + '\n');
}

/** How many diagnostics of one code and severity a terminal is shown before the rest are counted. */
export const MAX_SHOWN_PER_CODE = 20;
/** Lines of diagnostics (each with its source line and caret) a terminal is shown in one run. */
export const MAX_SHOWN_LINES = 45;
/** Lines counting what was not shown; with MAX_SHOWN_LINES, a huge bad input prints at most 50 lines. */
export const MAX_SUMMARY_LINES = 5;

/**
 * The text a person reads: diagnostics in order, at most MAX_SHOWN_PER_CODE of each code and severity and
 * MAX_SHOWN_LINES lines in all, then the rest counted per code, so a huge bad input prints a screenful, not
 * megabytes. (JSON keeps every diagnostic.)
 */
export function cappedText(diagnostics: readonly Diagnostic[], render: (d: Diagnostic) => string): string[] {
  const perCode = new Map<string, number>();
  const hidden = new Map<string, number>();
  const shown: string[] = [];
  let lines = 0;
  for (const d of diagnostics) {
    const key = `${d.severity} ${d.code}`;
    const n = (perCode.get(key) ?? 0) + 1;
    perCode.set(key, n);
    const text = n <= MAX_SHOWN_PER_CODE && lines < MAX_SHOWN_LINES ? render(d) : undefined;
    const height = text === undefined ? 0 : text.split('\n').length;
    if (text !== undefined && lines + height <= MAX_SHOWN_LINES) {
      shown.push(text);
      lines += height;
    } else {
      lines = n <= MAX_SHOWN_PER_CODE ? MAX_SHOWN_LINES : lines; // once one is left out for room, the rest are too
      hidden.set(key, (hidden.get(key) ?? 0) + 1);
    }
  }
  const counts = [...hidden].map(([key, n]) => {
    const [severity, code] = key.split(' ') as [string, string];
    return { severity, code, n };
  });
  const listed = counts.length <= MAX_SUMMARY_LINES ? counts : counts.slice(0, MAX_SUMMARY_LINES - 1);
  for (const { severity, code, n } of listed) shown.push(`... and ${n.toLocaleString('en-US')} more ${severity}${n === 1 ? '' : 's'} of the same code (${code})`);
  if (listed.length < counts.length) {
    const rest = counts.slice(listed.length);
    const n = rest.reduce((sum, c) => sum + c.n, 0);
    shown.push(`... and ${n.toLocaleString('en-US')} more diagnostics of ${rest.length} other codes (${rest.map((c) => c.code).join(', ')})`);
  }
  return shown;
}

export function diagnosticsFormat(v: unknown): DiagnosticsFormat | undefined {
  return v === undefined || v === 'text' ? 'text' : v === 'json' ? 'json' : undefined;
}

export { hasErrors };
