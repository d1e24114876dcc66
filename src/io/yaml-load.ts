/**
 * `loadYamlText`: a multi-document YAML text to SourceDocs (JSON values that can find their source spans).
 * Conversion follows Kubernetes' YAML-to-JSON (see go-yaml-resolve.ts and yaml-convert.ts); limits keep hostile
 * input cheap to refuse: a byte cap checked before parsing (TM1003), a nesting cap checked on the CST before
 * composing (TM1007), and go-yaml's alias-expansion budget (TM1002).
 */
import { diagnostic, fail, failWith, ok, type Diagnostic, type Result } from '../diagnostics/diagnostic.js';
import { LineIndex, type Span } from '../diagnostics/span.js';
import { isJsonObject } from '../ir/json.js';
import type { SourceDoc, YamlPath } from './source.js';
import type { ConvertIssue } from './yaml-convert.js';
import { parseYamlDocuments, parseYamlDocumentsReference } from './yaml-parse.js';
import { DocumentSpans } from './yaml-spans.js';
import { MAX_OBJECT_DEPTH } from './limits.js';
import { pushAll } from '../util/arrays.js';
import { utf8ByteLength } from '../util/bytes.js';

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = MAX_OBJECT_DEPTH;

export interface LoadOptions {
  /** Refuse a text larger than this many UTF-8 bytes without parsing it (TM1003). Default 64 MiB. */
  maxBytes?: number;
  /** Refuse documents nested deeper than this many collections (TM1007). Default 256. */
  maxDepth?: number;
  /** Report documents whose value is not a mapping (TM1005). Default false. */
  requireMapping?: boolean;
  /** A LineIndex of `text` to share (for example the one a SourceRegistry built); otherwise built when first needed. */
  lineIndex?: LineIndex;
  /**
   * `1.1` (default) reads plain `yes`/`no`/`on`/`off`/`y`/`n` as booleans, as kubectl's go-yaml v2 does;
   * `1.2` reads them as strings, for YAML written for other readers (data transcribed from Go tests).
   */
  yamlVersion?: '1.1' | '1.2';
  /** Read with the `yaml` package alone, never the fast readers (fast-yaml/): for differential tests and the bench. */
  referenceReader?: boolean;
}

/** UTF-8 size of `text` compared with `max`, without encoding it when the length alone decides. */
export function exceedsBytes(text: string, max: number): boolean {
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return utf8ByteLength(text) > max;
}

export function tooLargeDiagnostic(file: string, max: number, size?: number): Diagnostic {
  const span: Span = { file, line: 1, col: 1, endLine: 1, endCol: 1 };
  const actual = size === undefined ? '' : ` (${size} bytes)`;
  return diagnostic('TM1003', { phase: 'io', span, message: `input is larger than the limit of ${max} bytes${actual}; not parsed` });
}

/** Raw-offset issues to diagnostics with spans. */
export function issueDiagnostics(file: string, issues: readonly ConvertIssue[], index: LineIndex): Diagnostic[] {
  return issues.map((issue) =>
    diagnostic(issue.code, {
      phase: 'io',
      message: issue.message,
      span: index.span(file, issue.range[0], Math.max(issue.range[0] + 1, issue.range[1])),
      related: issue.related?.map((r) => ({ message: r.message, span: index.span(file, r.range[0], Math.max(r.range[0] + 1, r.range[1])) })),
    }),
  );
}

/**
 * Every non-empty document of `text`, in order. `SourceDoc.index` counts the documents returned (empty ones are
 * dropped, as kubectl drops them), so it is dense; spans carry the real line numbers.
 * Errors in any document make the whole result fail (with every document's diagnostics); warnings ride along.
 */
export function loadYamlText(file: string, text: string, opts: LoadOptions = {}): Result<SourceDoc[]> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  if (exceedsBytes(text, maxBytes)) return fail(tooLargeDiagnostic(file, maxBytes));
  const docs: SourceDoc[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const item of yamlDocuments(file, text, opts)) {
    if ('doc' in item) docs.push(item.doc);
    else pushAll(diagnostics, item.diagnostics);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return failWith(diagnostics);
  return ok(docs, diagnostics);
}

/**
 * The documents of `text` one at a time, with the diagnostics of each as they are found: what loadYamlText
 * collects, for a reader that keeps only the document it is working on (`apply` over a whole cluster's dump).
 * The caller checks the size; `index` counts the documents yielded.
 */
export function* yamlDocuments(file: string, text: string, opts: LoadOptions = {}): Generator<{ doc: SourceDoc } | { diagnostics: Diagnostic[] }> {
  let index = opts.lineIndex;
  const lineIndex = (): LineIndex => (index ??= new LineIndex(text));
  let count = 0;
  const limits = { maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH, yaml12: opts.yamlVersion === '1.2' };
  for (const parsed of (opts.referenceReader ? parseYamlDocumentsReference : parseYamlDocuments)(text, limits)) {
    if (parsed.issues.length > 0) yield { diagnostics: issueDiagnostics(file, parsed.issues, lineIndex()) };
    if (parsed.empty || parsed.value === undefined) continue;
    const value = parsed.value;
    if (opts.requireMapping && !isJsonObject(value)) {
      const what = value === null ? 'null' : Array.isArray(value) ? 'a sequence' : `a ${typeof value}`;
      const span = lineIndex().span(file, parsed.contents[0], Math.max(parsed.contents[0] + 1, parsed.contents[1]));
      yield { diagnostics: [diagnostic('TM1005', { phase: 'io', message: `document ${count + 1} is ${what}, not a mapping`, span })] };
      continue;
    }
    const spans = new DocumentSpans(file, text, parsed.start, parsed.end, lineIndex);
    yield {
      doc: {
        file,
        index: count++,
        value,
        spanOf: (path: YamlPath) => spans.spanOf(path),
        keySpanOf: (path: YamlPath) => spans.keySpanOf(path),
        spanInString: (path: YamlPath, start: number, end?: number) => spans.spanInString(path, start, end),
      },
    };
  }
}

