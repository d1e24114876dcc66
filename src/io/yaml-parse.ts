/**
 * Parses a YAML stream document by document into JSON values, with raw offsets for every problem. Shared by
 * `loadYamlText` (which keeps positions) and `streamYamlDocuments` (which does not). Documents are composed one at
 * a time from the lazily produced CST and their ASTs dropped after conversion, so memory stays proportional to the
 * JSON values, not to the `yaml` package's node trees.
 */
import { Composer, isScalar, Parser, type CST, type Document, type YAMLError } from 'yaml';
import type { JsonValue } from '../ir/json.js';
import { findTooDeep } from './cst-depth.js';
import { fastDocuments } from './fast-yaml/fast-path.js';
import { yamlToJson, type ConvertIssue } from './yaml-convert.js';
import { pushAll } from '../util/arrays.js';

/**
 * Composer options: the failsafe schema keeps every scalar's text as a string so go-yaml-resolve.ts alone decides
 * its type (the `yaml` package's own yaml-1.1 schema differs from go-yaml v2: sexagesimal numbers, Date objects for
 * timestamps); duplicate keys are ours to report.
 */
export const COMPOSE_OPTIONS = { schema: 'failsafe', uniqueKeys: false, strict: true } as const;

export interface ParsedDocument {
  /** Offset of the document in the text (its `---` marker when present) and the end of its last token. */
  start: number;
  end: number;
  /** Range of the document's contents (its root node). */
  contents: [number, number];
  /** `---` alone or comments only: Kubernetes tools skip these, and so do we. */
  empty: boolean;
  /** Absent when an error made the document unusable. */
  value?: JsonValue;
  issues: ConvertIssue[];
}

export interface ParseLimits {
  maxDepth: number;
  /** Read YAML 1.1-only booleans (`yes`, `on`, `y`...) as strings (LoadOptions.yamlVersion). */
  yaml12?: boolean;
}

function isEmptyDocument(doc: Document.Parsed): boolean {
  const c = doc.contents;
  return isScalar(c) && c.source === '' && c.type === 'PLAIN' && c.tag === undefined && !c.anchor;
}

function yamlIssue(e: YAMLError): ConvertIssue {
  const code = e.code === 'RESOURCE_EXHAUSTION' ? 'TM1007' : 'TM1001';
  return { code, message: e.message, range: [e.pos[0], e.pos[1]] };
}

/** Converts a composed document; the first YAML error (they tend to cascade) stands for the document. */
function convertDocument(doc: Document.Parsed, limits: ParseLimits): ParsedDocument {
  const range = doc.range;
  const contentsRange = doc.contents?.range;
  const parsed: ParsedDocument = {
    start: range[0],
    end: range[2],
    contents: contentsRange ? [contentsRange[0], contentsRange[1]] : [range[0], range[1]],
    empty: isEmptyDocument(doc),
    issues: [],
  };
  const firstError = doc.errors[0];
  if (firstError) {
    parsed.issues.push(yamlIssue(firstError));
    return parsed;
  }
  if (parsed.empty) return parsed;
  const converted = yamlToJson(doc.contents, limits.maxDepth, limits.yaml12 ?? false);
  pushAll(parsed.issues, converted.issues);
  if (converted.value !== undefined) parsed.value = converted.value;
  return parsed;
}

/**
 * Yields every document of `text` in order, converted to JSON, with its problems. Block-style YAML, JSON and
 * NDJSON are read by the fast readers (fast-yaml/), which give the same values and ranges and decline anything
 * else; empty documents are then not yielded (every caller drops them).
 */
export function* parseYamlDocuments(text: string, limits: ParseLimits): Generator<ParsedDocument> {
  const fast = fastDocuments(text, limits, (slice) => parseYamlDocumentsReference(slice, limits));
  if (fast) yield* fast;
  else yield* parseYamlDocumentsReference(text, limits);
}

/** `parseYamlDocuments` with the `yaml` package alone: the reference the fast readers are tested against. */
export function* parseYamlDocumentsReference(text: string, limits: ParseLimits): Generator<ParsedDocument> {
  const composer = new Composer(COMPOSE_OPTIONS);
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') {
      const deep = findTooDeep(token as CST.Document, limits.maxDepth);
      if (deep !== undefined) {
        // Composing it would overflow the stack; report it and let the composer see an empty document instead.
        yield* drain(composer.next({ ...token, value: undefined } as CST.Document), limits);
        yield {
          start: token.offset,
          end: token.offset,
          contents: [deep, deep + 1],
          empty: false,
          issues: [{ code: 'TM1007', message: `nesting deeper than ${limits.maxDepth} levels`, range: [deep, deep + 1] }],
        };
        continue;
      }
    }
    yield* drain(composer.next(token), limits);
  }
  yield* drain(composer.end(false, text.length), limits);
  const stray = composer.streamInfo().errors[0];
  if (stray) yield { start: stray.pos[0], end: stray.pos[1], contents: [stray.pos[0], stray.pos[1]], empty: false, issues: [yamlIssue(stray)] };
}

function* drain(docs: Iterable<Document.Parsed>, limits: ParseLimits): Generator<ParsedDocument> {
  // The placeholder composed for a too-deep document comes out here as an empty document, which callers drop.
  for (const doc of docs) yield convertDocument(doc, limits);
}
