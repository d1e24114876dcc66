/**
 * Input bytes that are not YAML text: invalid UTF-8, or characters YAML does not allow in a stream (go-yaml's
 * reader refuses them with "control characters are not allowed", so kubectl does too). Both are refused with
 * TM1009 naming the file, the byte offset and the line and column, instead of being read as a string of junk.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/span.js';
import { nonPrintableDiagnostic } from './printable.js';

export { nonPrintableDiagnostic };

/** Thrown by `decodeUtf8` (for example when standard input is read); `offset` is the first invalid byte. */
export class InvalidUtf8Error extends Error {
  constructor(
    readonly offset: number,
    readonly byte: number,
    /** The text before the invalid byte, to place it by line and column. */
    readonly before: string,
  ) {
    super(`not UTF-8 text: invalid byte 0x${byte.toString(16).padStart(2, '0').toUpperCase()} at byte offset ${offset}`);
  }
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(buf: Uint8Array): number {
  const LEAD_MASK = [0, 0x1f, 0x0f, 0x07];
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (n === 0) return i;
    let cp = b & LEAD_MASK[n]!;
    for (let k = 1; k <= n; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((n === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 3 && (cp < 0x10000 || cp > 0x10ffff))) return i;
    i += n + 1;
  }
  return -1;
}

/** `buf` as a string; throws InvalidUtf8Error when it is not UTF-8. */
export function decodeUtf8(buf: Buffer): string {
  if (!isUtf8(buf)) {
    const offset = Math.max(0, firstInvalidUtf8(buf));
    throw new InvalidUtf8Error(offset, buf[offset] ?? 0, buf.subarray(0, offset).toString('utf8'));
  }
  return buf.toString('utf8');
}

/** TM1009 for bytes that are not UTF-8, placed at the first invalid byte (line and column of the text before it). */
export function invalidUtf8Diagnostic(file: string, e: InvalidUtf8Error): Diagnostic {
  const at = new LineIndex(e.before).position(e.before.length);
  const span = { file, line: at.line, col: at.col, endLine: at.line, endCol: at.col };
  return diagnostic('TM1009', { phase: 'io', span, message: `${file} is ${e.message} (a binary file?)` });
}

/**
 * The text of a file read as YAML input, or TM1009 when it is not UTF-8 text or holds control characters
 * (`display` names it in diagnostics). A read error is thrown, for the caller to word.
 */
export function readYamlTextFile(path: string, display: string): { text: string } | { diagnostic: Diagnostic } {
  const bytes = readFileSync(path);
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch (e) {
    if (e instanceof InvalidUtf8Error) return { diagnostic: invalidUtf8Diagnostic(display, e) };
    throw e;
  }
  const binary = nonPrintableDiagnostic(display, text);
  return binary ? { diagnostic: binary } : { text };
}
