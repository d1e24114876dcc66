/**
 * Cuts a streamed input into document chunks. A stream whose first character (after white space) is `{` is read
 * as a sequence of JSON values, as kubectl reads one (apimachinery's YAMLOrJSONDecoder hands it to a
 * json.Decoder): NDJSON, or objects printed one after another; each value starting at the beginning of a line
 * becomes its own chunk, so a gigabyte of NDJSON streams in constant memory instead of being one document.
 * Anything else, and the rest of a JSON stream from the first text that is not a JSON value (a `---`, a
 * comment, a YAML document), goes to the YAML splitter (yaml-stream.ts `DocumentSplitter`), which cuts at
 * document markers. Brackets are counted outside double-quoted strings only, so a value is cut nowhere inside.
 */
import type { DocumentChunk } from '../yaml-stream.js';

export interface Splitter {
  push(piece: string): DocumentChunk[];
  end(): DocumentChunk[];
  /** Characters held for the current document. */
  readonly pending: number;
}

const NL = 10;

export class JsonOrYamlSplitter implements Splitter {
  private mode: 'undecided' | 'json' | 'yaml' = 'undecided';
  private yaml: Splitter | undefined;
  private buf = '';
  /** Offset in `buf` up to which characters have been scanned, and the scanner's state there. */
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the held chunk has started a value, and the 1-based line of its first line. */
  private holdsValue = false;
  private line = 1;

  constructor(private readonly yamlSplitter: (firstLine: number) => Splitter) {}

  get pending(): number {
    return this.yaml ? this.yaml.pending : this.buf.length;
  }

  push(piece: string): DocumentChunk[] {
    if (this.yaml) return this.yaml.push(piece);
    this.buf += piece;
    if (this.mode === 'undecided') {
      // What came before this piece was all white space.
      const first = /\S/.exec(piece);
      if (!first) return [];
      if (first[0] !== '{') return this.toYaml([]);
      this.mode = 'json';
    }
    return this.scan();
  }

  end(): DocumentChunk[] {
    if (this.yaml) return this.yaml.end();
    if (this.mode !== 'json') return this.toYaml([]).concat(this.yaml!.end());
    const out = this.scan();
    if (this.yaml) return out.concat((this.yaml as Splitter).end());
    if (/\S/.test(this.buf)) out.push(this.take(this.buf.length));
    this.buf = '';
    return out;
  }

  /** Scans the new characters, cutting before each line that starts a new top-level value. */
  private scan(): DocumentChunk[] {
    const out: DocumentChunk[] = [];
    const b = this.buf;
    let cut = 0;
    for (let i = this.scanned; i < b.length; i++) {
      const c = b.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
        continue;
      }
      switch (c) {
        case 34:
          this.inString = true;
          break;
        case 123: // {
        case 91: // [
          if (this.depth === 0 && this.holdsValue && (i === 0 || b.charCodeAt(i - 1) === NL)) {
            out.push(this.chunk(cut, i));
            cut = i;
          }
          this.depth++;
          this.holdsValue = true;
          break;
        case 125: // }
        case 93: // ]
          if (--this.depth < 0) return this.toYaml(out, cut);
          break;
        case 32:
        case 9:
        case 13:
        case NL:
          break;
        default:
          // Scalars, commas and colons belong inside a value; at the top level the text is not JSON values.
          if (this.depth === 0) return this.toYaml(out, cut);
      }
    }
    this.buf = b.slice(cut);
    this.scanned = this.buf.length;
    return out;
  }

  private chunk(from: number, to: number): DocumentChunk {
    const text = this.buf.slice(from, to);
    const chunk = { text, line: this.line };
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.line++;
    return chunk;
  }

  private take(n: number): DocumentChunk {
    const chunk = this.chunk(0, n);
    this.buf = this.buf.slice(n);
    return chunk;
  }

  /** From `from` on, the text is YAML (or not JSON values): the YAML splitter takes it, and the rest of the stream. */
  private toYaml(out: DocumentChunk[], from = 0): DocumentChunk[] {
    this.mode = 'yaml';
    this.yaml = this.yamlSplitter(this.line);
    const rest = this.buf.slice(from);
    this.buf = '';
    return out.concat(this.yaml.push(rest));
  }
}
