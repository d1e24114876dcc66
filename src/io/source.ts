import type { Span } from '../diagnostics/span.js';
import type { JsonValue } from '../ir/json.js';

/** A path into a YAML document's value: map keys and list indices. */
export type YamlPath = readonly (string | number)[];

/**
 * One YAML document with its plain JSON value and the ability to find source spans inside it.
 * Dialect parsers work on `value` and ask for spans only when they report a diagnostic or record an origin.
 */
export interface SourceDoc {
  /** File name as given by the user (or `<stdin>`). */
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  value: JsonValue;
  /** Span of the node at `path`, or of its nearest existing ancestor. The empty path is the whole document. */
  spanOf(path: YamlPath): Span;
  /** Span of the key of the map entry at `path` (falls back to `spanOf`). */
  keySpanOf(path: YamlPath): Span;
  /**
   * Span of the characters [start, end) of the string scalar at `path`, in the YAML file: accounts for the
   * scalar's quoting style and escapes, so an error inside an embedded expression points at the right column.
   */
  spanInString(path: YamlPath, start: number, end?: number): Span;
}

/**
 * A document with another value whose positions are those of `doc` at `mapPath(path)`: an item of a List, or a
 * document derived from part of another (one rule of a policy).
 */
export function remappedDoc(doc: SourceDoc, value: JsonValue, mapPath: (path: YamlPath) => YamlPath): SourceDoc {
  return {
    file: doc.file,
    index: doc.index,
    value,
    spanOf: (path) => doc.spanOf(mapPath(path)),
    keySpanOf: (path) => doc.keySpanOf(mapPath(path)),
    spanInString: (path, start, end) => doc.spanInString(mapPath(path), start, end),
  };
}
