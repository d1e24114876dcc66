/**
 * Reads a large multi-document YAML file one document at a time (for example 100,000 Pods, ~100 MB) so only the
 * current document's text and the consumer's values are in memory. Positions are not kept; errors still carry the
 * right file:line:col.
 *
 * The file is cut at document markers: a line that starts with `---` or `...` followed by white space or the end
 * of the line. YAML forbids such lines inside any scalar (spec 9.1.4, c-forbidden), so they always end a document,
 * whatever the indentation or quoting around them. Directives and comments before a `---` stay with the document
 * that follows them. A file of JSON values (NDJSON, or objects one after another) is cut one value a chunk
 * instead (fast-yaml/json-splitter.ts).
 */
import { createReadStream } from 'node:fs';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { LineIndex } from '../diagnostics/span.js';
import type { JsonValue } from '../ir/json.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, exceedsBytes, issueDiagnostics, tooLargeDiagnostic } from './yaml-load.js';
import { JsonOrYamlSplitter } from './fast-yaml/json-splitter.js';
import { parseYamlDocuments, parseYamlDocumentsReference } from './yaml-parse.js';

export interface StreamOptions {
  /** Largest single document, in UTF-8 bytes (TM1003). Default 64 MiB. */
  maxBytes?: number;
  maxDepth?: number;
  /** Read-buffer size; tests use a tiny one to exercise markers split across reads. */
  chunkSize?: number;
  /** Read with the `yaml` package alone, never the fast readers (fast-yaml/): for the bench's before/after. */
  referenceReader?: boolean;
}

/** Thrown from the iteration when a document cannot be read; carries the diagnostics (errors are values elsewhere). */
export class YamlStreamError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.message).join('; '));
    this.name = 'YamlStreamError';
  }
}

const MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
/** A line that is not blank, not a comment and not a directive: the chunk holds a document's content. */
const CONTENT_LINE = /^(?:[ \t]*[^\s#%]|[ \t]+%)/m;

export interface DocumentChunk {
  text: string;
  /** 1-based line of the chunk's first line in the file. */
  line: number;
}

/**
 * Splits text arriving in pieces into document chunks. `push` returns the chunks completed so far; `end` the rest.
 * Exposed for tests; `streamYamlDocuments` is the public reader.
 */
export class DocumentSplitter {
  private buf = '';
  private scanned = 0;
  private first = true;

  /** @param line the line of the file the first piece starts on (when another splitter read the lines before). */
  constructor(private line = 1) {}

  /** Characters held for the current document. */
  get pending(): number {
    return this.buf.length;
  }

  push(piece: string): DocumentChunk[] {
    if (this.first) {
      this.first = false;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    this.buf += piece;
    return this.cut(this.buf.lastIndexOf('\n') + 1);
  }

  end(): DocumentChunk[] {
    const out = this.cut(this.buf.length);
    if (/\S/.test(this.buf)) out.push(this.take(this.buf.length));
    this.buf = '';
    return out;
  }

  /** Cuts at the markers found in the complete lines before `limit` (a line start). */
  private cut(limit: number): DocumentChunk[] {
    const out: DocumentChunk[] = [];
    let pos = this.scanned;
    for (;;) {
      MARKER.lastIndex = pos;
      const m = MARKER.exec(this.buf);
      if (!m || m.index >= limit) break;
      if (m[0] === '---') {
        // Directives and comments before the first `---` belong to the document it starts.
        if (m.index > 0 && CONTENT_LINE.test(this.buf.slice(0, m.index))) {
          out.push(this.take(m.index));
          limit -= m.index;
          pos = 3;
        } else pos = m.index + 3;
      } else {
        const nl = this.buf.indexOf('\n', m.index);
        const at = nl < 0 ? this.buf.length : nl + 1;
        out.push(this.take(at));
        limit -= at;
        pos = 0;
      }
    }
    this.scanned = limit;
    return out;
  }

  private take(n: number): DocumentChunk {
    const text = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    const chunk = { text, line: this.line };
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.line++;
    return chunk;
  }
}

/** Parses one chunk; errors get positions in the whole file. */
function parseChunk(file: string, chunk: DocumentChunk, maxBytes: number, maxDepth: number, read = parseYamlDocuments): JsonValue[] {
  if (exceedsBytes(chunk.text, maxBytes)) {
    const d = tooLargeDiagnostic(file, maxBytes);
    throw new YamlStreamError([{ ...d, span: { file, line: chunk.line, col: 1, endLine: chunk.line, endCol: 1 } }]);
  }
  const values: JsonValue[] = [];
  for (const parsed of read(chunk.text, { maxDepth })) {
    const errors = parsed.issues.filter((i) => i.code !== 'TM1006');
    if (errors.length > 0) {
      const shifted = issueDiagnostics(file, errors, new LineIndex(chunk.text)).map((d) => ({
        ...d,
        span: d.span && { ...d.span, line: d.span.line + chunk.line - 1, endLine: d.span.endLine + chunk.line - 1 },
      }));
      throw new YamlStreamError(shifted);
    }
    if (!parsed.empty && parsed.value !== undefined) values.push(parsed.value);
  }
  return values;
}

/** Yields the JSON value of every non-empty document in `file`, in order. Throws YamlStreamError on bad input. */
export async function* streamYamlDocuments(file: string, opts: StreamOptions = {}): AsyncGenerator<JsonValue> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const read = opts.referenceReader ? parseYamlDocumentsReference : parseYamlDocuments;
  // JSON values (NDJSON) are cut one value a chunk, YAML at its document markers.
  const splitter = new JsonOrYamlSplitter((line) => new DocumentSplitter(line));
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: opts.chunkSize ?? 1 << 20 });
  try {
    for await (const piece of stream as AsyncIterable<string>) {
      for (const chunk of splitter.push(piece)) yield* parseChunk(file, chunk, maxBytes, maxDepth, read);
      // No marker in more than maxBytes characters: the document is too large, stop reading it into memory.
      if (splitter.pending > maxBytes) throw new YamlStreamError([tooLargeDiagnostic(file, maxBytes)]);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (e instanceof YamlStreamError || typeof code !== 'string') throw e;
    throw new YamlStreamError([diagnostic('TM1004', { phase: 'io', message: `cannot read ${file}: ${code}` })]);
  } finally {
    stream.destroy();
  }
  for (const chunk of splitter.end()) yield* parseChunk(file, chunk, maxBytes, maxDepth, read);
}
