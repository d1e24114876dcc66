/**
 * Characters YAML does not allow in a stream (go-yaml's reader refuses them with "control characters are not
 * allowed", so kubectl does too): TM1009 with the byte offset, line and column. Text only, no file reading, so
 * the core can check strings it is given.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/span.js';
import { utf8ByteLength } from '../util/bytes.js';

/** Characters outside YAML's printable set (YAML 1.2 §5.1, go-yaml reader.go), as a sticky-free search. */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** TM1009 when `text` holds a character YAML does not allow (a control character, DEL, a C1 control, a lone surrogate). */
export function nonPrintableDiagnostic(file: string, text: string, index?: LineIndex): Diagnostic | undefined {
  const m = NOT_PRINTABLE.exec(text);
  if (!m) return undefined;
  const at = m.index;
  const code = text.codePointAt(at)!;
  const byteOffset = utf8ByteLength(text.slice(0, at));
  const span = (index ?? new LineIndex(text)).span(file, at, at + m[0].length);
  const shown = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return diagnostic('TM1009', {
    phase: 'io',
    span,
    message: `${file} is not YAML text: control character ${shown} at byte offset ${byteOffset} (a binary file?); YAML allows tabs, line breaks and printable characters only`,
  });
}
