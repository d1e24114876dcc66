/**
 * JSON input read with `JSON.parse`: a text whose first character (after white space) is `{` or `[` is one JSON
 * value (JSON is YAML, so the reference reads it too, only 50 times slower), or a stream of JSON values one per line
 * (NDJSON, as `kubectl apply -f` reads concatenated JSON objects: apimachinery's YAMLOrJSONDecoder switches to a
 * json.Decoder when the input starts with `{`). Positions are not computed here: yaml-spans.ts re-reads a
 * document's slice only when a diagnostic asks for one.
 *
 * `JSON.parse` and the reference (go-yaml v2 resolution over the `yaml` package) agree on every JSON value except
 * these, which send the text (or, for NDJSON, the line) to the reference:
 * - a key given twice (JSON.parse keeps the last silently; the reference warns, TM1006);
 * - a number too large for a float64 (`1e400`: go-yaml's ParseFloat fails and the scalar stays a string, JSON.parse
 *   gives Infinity) and the integer `-0` (go-yaml's ParseInt gives 0, JSON.parse -0);
 * - nesting at the depth limit (the reference refuses it with TM1007).
 */
import type { JsonValue } from '../../ir/json.js';
import type { ParsedDocument } from '../yaml-parse.js';

/** The reference loader, for the parts JSON.parse cannot stand for. */
export type ReferenceParser = (text: string) => Iterable<ParsedDocument>;

/** Every string of a valid JSON text, with the white space and colon after it when it is a key. */
const JSON_STRING = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?/g;

function countKeys(text: string): number {
  let n = 0;
  JSON_STRING.lastIndex = 0;
  for (let m = JSON_STRING.exec(text); m; m = JSON_STRING.exec(text)) if (m[1] !== undefined) n++;
  return n;
}

/** Number of keys in `value`, or -1 when it holds something the reference would read differently. */
function checkedKeys(value: JsonValue, depth: number, maxDepth: number): number {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? 0 : -1;
  if (value === null || typeof value !== 'object') return 0;
  if (depth >= maxDepth) return -1;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const k = checkedKeys(item, depth + 1, maxDepth);
      if (k < 0) return -1;
      keys += k;
    }
    return keys;
  }
  for (const key in value) {
    const k = checkedKeys(value[key]!, depth + 1, maxDepth);
    if (k < 0) return -1;
    keys += k + 1;
  }
  return keys;
}

/**
 * The value of a JSON text; `invalid` when it is not one JSON value, `different` when the reference would read
 * it differently.
 */
function parseJson(text: string, maxDepth: number): { value: JsonValue } | 'invalid' | 'different' {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return 'invalid';
  }
  const keys = checkedKeys(value, 0, maxDepth);
  return keys >= 0 && keys === countKeys(text) ? { value } : 'different';
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** The document of the JSON text in `text` between `from` and `to`, with the reference's ranges. */
function documentOf(text: string, from: number, to: number, end: number, value: JsonValue): ParsedDocument {
  let first = from;
  while (first < to && isJsonSpace(text.charCodeAt(first))) first++;
  let last = to;
  while (last > first && isJsonSpace(text.charCodeAt(last - 1))) last--;
  // The reference starts a document at the start of its first content line (white space before it included).
  const lineStart = text.lastIndexOf('\n', first - 1) + 1;
  return { start: Math.max(from, lineStart), end, contents: [first, last], empty: false, issues: [], value };
}

function shifted(doc: ParsedDocument, by: number): ParsedDocument {
  const move = (r: [number, number]): [number, number] => [r[0] + by, r[1] + by];
  return {
    ...doc,
    start: doc.start + by,
    end: doc.end + by,
    contents: move(doc.contents),
    issues: doc.issues.map((i) => ({ ...i, range: move(i.range), ...(i.related ? { related: i.related.map((r) => ({ ...r, range: move(r.range) })) } : {}) })),
  };
}

/** One document per line, each a JSON object; a line JSON.parse cannot stand for is read by the reference. */
function ndjsonDocuments(text: string, maxDepth: number, reference: ReferenceParser): ParsedDocument[] | undefined {
  const docs: ParsedDocument[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const lineEnd = nl < 0 ? text.length : nl;
    const next = nl < 0 ? text.length : nl + 1;
    const line = text.slice(at, lineEnd);
    const first = firstContent(line);
    if (first < line.length) {
      // Anything else is not NDJSON: the reference reports the text as it always has.
      if (line.charCodeAt(first) !== 123 /* { */) return undefined;
      const parsed = parseJson(line, maxDepth);
      if (parsed === 'invalid') return undefined;
      if (parsed !== 'different') docs.push(documentOf(text, at, lineEnd, next, parsed.value));
      else for (const doc of reference(text.slice(at, next))) if (!doc.empty) docs.push(shifted(doc, at));
    }
    at = next;
  }
  return docs;
}

/** Offset of the first character that is not JSON white space. */
export function firstContent(text: string): number {
  let i = 0;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The documents of a JSON or NDJSON text (its first content character is `{` or `[`), or undefined when the
 * reference must read it.
 */
export function readJsonDocuments(text: string, maxDepth: number, reference: ReferenceParser): ParsedDocument[] | undefined {
  const parsed = parseJson(text, maxDepth);
  if (parsed === 'different') return undefined;
  if (parsed !== 'invalid') return [documentOf(text, 0, text.length, text.length, parsed.value)];
  if (text.charCodeAt(firstContent(text)) !== 123 /* { */ || text.indexOf('\n', firstContent(text)) < 0) return undefined;
  return ndjsonDocuments(text, maxDepth, reference);
}
