/**
 * The one-string form of an IR template, `"text {{ jmes }} text"`: the inverse of `templateAsString`
 * in src/ir/print.ts. Holes are trimmed; a hole ends at the first `}}` (the IR form never nests braces in a
 * hole: templates that need it are written as a list of parts).
 */
import type { TemplatePart } from '../../ir/nodes.js';

export type TemplateParse = { ok: true; parts: TemplatePart[] } | { ok: false; message: string; start: number; end: number };

export function parseTemplateText(text: string): TemplateParse {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      parts.push(text.slice(i));
      break;
    }
    if (open > i) parts.push(text.slice(i, open));
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return { ok: false, message: 'unterminated "{{" in template', start: open, end: open + 2 };
    const jmes = text.slice(open + 2, close).trim();
    if (jmes === '') return { ok: false, message: 'empty "{{ }}" in template', start: open, end: close + 2 };
    parts.push({ jmes });
    i = close + 2;
  }
  return { ok: true, parts };
}
