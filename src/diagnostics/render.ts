import { formatSpan, LineIndex } from './span.js';
import type { Diagnostic } from './diagnostic.js';

/** Source texts by file name, so diagnostics can be shown with the offending line and a caret. */
export class SourceRegistry {
  private readonly files = new Map<string, LineIndex>();

  add(file: string, text: string): LineIndex {
    const index = new LineIndex(text);
    this.files.set(file, index);
    return index;
  }

  get(file: string): LineIndex | undefined {
    return this.files.get(file);
  }
}

/** `file:line:col: error TM2003: message`, then the source line and a caret under the span. */
export function renderDiagnostic(d: Diagnostic, sources?: SourceRegistry): string {
  const where = d.span ? `${formatSpan(d.span)}: ` : '';
  const lines = [`${where}${d.severity} ${d.code}: ${d.message}`];
  const index = d.span ? sources?.get(d.span.file) : undefined;
  if (d.span && index) {
    const text = index.lineText(d.span.line);
    if (text.length > 0 && text.length <= 400) {
      const width = d.span.endLine === d.span.line ? Math.max(1, d.span.endCol - d.span.col + 1) : 1;
      const lead = text.slice(0, d.span.col - 1).replace(/[^\t]/g, ' ');
      lines.push(`  ${text}`, `  ${lead}${'^'.repeat(Math.min(width, Math.max(1, text.length - d.span.col + 1)))}`);
    }
  }
  for (const r of d.related ?? []) lines.push(`  note: ${r.span ? `${formatSpan(r.span)}: ` : ''}${r.message}`);
  return lines.join('\n');
}

/** One line per diagnostic, no source excerpt: for summaries and error exits. */
export function renderDiagnosticLine(d: Diagnostic): string {
  return `${d.span ? `${formatSpan(d.span)}: ` : ''}${d.severity} ${d.code}: ${d.message}`;
}

export function diagnosticsToJson(diagnostics: readonly Diagnostic[]): string {
  return JSON.stringify(diagnostics, null, 2);
}
