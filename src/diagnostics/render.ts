import { formatSpan, LineIndex } from './span.js';
import type { Severity } from './codes.js';
import type { Diagnostic } from './diagnostic.js';

/**
 * How a terminal paints a diagnostic (the CLI passes one only when colour is on). Only transmute's own words are
 * painted: the severity and the caret, never the escaped input text.
 */
export interface RenderStyle {
  severity(severity: Severity, text: string): string;
  caret(text: string): string;
}

/** Source texts by file name, so diagnostics can be shown with the offending line and a caret. */
export class SourceRegistry {
  private readonly files = new Map<string, LineIndex>();
  private length = 0;

  /** @param inputBudget how many bytes of input the run may read in all (`--max-input-size`); see io/budget.ts. */
  constructor(readonly inputBudget?: number) {}

  add(file: string, text: string): LineIndex {
    const index = new LineIndex(text);
    this.files.set(file, index);
    this.length += text.length;
    return index;
  }

  /** Characters of every text added: what the run has read so far, for the input budget. */
  get totalLength(): number {
    return this.length;
  }

  get(file: string): LineIndex | undefined {
    return this.files.get(file);
  }
}

/**
 * Control characters (C0 but tab and line feed, DEL, C1) of input text echoed to a terminal, written as `\x1b`:
 * a file must not be able to move the cursor, rewrite the window title or ring the bell through a message.
 */
const CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/g;

function escapeControl(c: string): string {
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** `text` with its control characters escaped (tabs and line breaks kept). */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/**
 * A source line as shown under a diagnostic, and the caret line under columns [col, col + width): every control
 * character but tab escaped, the caret moved and widened by the escapes (tabs are kept in the lead, to align).
 */
function sourceLine(text: string, col: number, width: number): [string, string] {
  let shown = '';
  let lead = '';
  let carets = 0;
  const chars = text.split('');
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const out = c === '\t' ? c : /[\x00-\x1F\x7F-\x9F]/.test(c) ? escapeControl(c) : c;
    shown += out;
    if (i < col - 1) lead += c === '\t' ? '\t' : ' '.repeat(out.length);
    else if (i < col - 1 + width) carets += c === '\t' ? 1 : out.length;
  }
  return [shown, `${lead}${'^'.repeat(Math.max(1, carets))}`];
}

/** `file:line:col: error TM2003: message`, then the source line and a caret under the span. */
export function renderDiagnostic(d: Diagnostic, sources?: SourceRegistry, style?: RenderStyle): string {
  const lines = [styledDiagnosticLine(d, style)];
  const index = d.span ? sources?.get(d.span.file) : undefined;
  if (d.span && index) {
    const text = index.lineText(d.span.line);
    if (text.length > 0 && text.length <= 400) {
      const width = d.span.endLine === d.span.line ? Math.max(1, d.span.endCol - d.span.col + 1) : 1;
      const [shown, caret] = sourceLine(text, d.span.col, Math.min(width, Math.max(1, text.length - d.span.col + 1)));
      lines.push(`  ${shown}`, `  ${style ? style.caret(caret) : caret}`);
    }
  }
  for (const r of d.related ?? []) lines.push(escapeControls(`  note: ${r.span ? `${formatSpan(r.span)}: ` : ''}${r.message}`));
  return lines.join('\n');
}

/** One line per diagnostic, no source excerpt: for summaries and error exits. */
export function renderDiagnosticLine(d: Diagnostic): string {
  return styledDiagnosticLine(d);
}

/** renderDiagnosticLine, painted for a terminal when a style is given. */
export function styledDiagnosticLine(d: Diagnostic, style?: RenderStyle): string {
  const where = d.span ? escapeControls(`${formatSpan(d.span)}: `) : '';
  const label = `${d.severity} ${d.code}`;
  // The escapes are added after escapeControls, which would otherwise show them as text.
  return `${where}${style ? style.severity(d.severity, label) : label}: ${escapeControls(d.message)}`;
}

/** JSON, with DEL and the C1 controls escaped too (JSON.stringify escapes only C0): the same value, safe to print. */
export function diagnosticsToJson(diagnostics: readonly Diagnostic[]): string {
  return JSON.stringify(diagnostics, null, 2).replace(/[\x7F-\x9F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
