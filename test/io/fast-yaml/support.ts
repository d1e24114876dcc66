/**
 * Shared checks of the fast YAML readers and printer against the reference (the `yaml` package path and the
 * reference printer): the same documents, values (key order and -0 included), spans, diagnostics and output.
 */
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import type { JsonValue } from '../../../src/ir/json.js';
import { readFast } from '../../../src/io/fast-yaml/fast-path.js';
import type { SourceDoc, YamlPath } from '../../../src/io/source.js';
import { toYaml, toYamlReference } from '../../../src/io/yaml-dump.js';
import { loadYamlText, type LoadOptions } from '../../../src/io/yaml-load.js';
import { parseYamlDocumentsReference, type ParsedDocument, type ParseLimits } from '../../../src/io/yaml-parse.js';

/** YAML and JSON files under `dir`, sorted, recursively. */
export function yamlFiles(dir: string, out: string[] = []): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return out;
  }
  for (const entry of entries) {
    // Symbolic links are not followed (a link back to an ancestor would never end).
    if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.isSymbolicLink()) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yamlFiles(path, out);
    else if (entry.isFile() && /\.(ya?ml|json)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every path of a value (maps and lists), the empty path first. */
export function pathsOf(value: JsonValue, prefix: (string | number)[] = [], out: YamlPath[] = []): YamlPath[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

/** Deep equality that also sees key order and -0 (isDeepStrictEqual alone ignores key order). */
export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b) && JSON.stringify(a) === JSON.stringify(b);
}

/** The reference's non-empty documents (the fast readers do not yield empty ones; every caller drops them). */
export function referenceDocuments(text: string, limits: ParseLimits): ParsedDocument[] {
  return [...parseYamlDocumentsReference(text, limits)].filter((d) => !d.empty);
}

export type Outcome = 'block' | 'json' | 'reference';

/**
 * Reads `text` both ways and returns what differs (empty when equal) and which reader took it. Compared: the
 * parsed documents (ranges, values, issues); `loadYamlText`'s result and diagnostics; the span, key span and a
 * string span of every path of every document; and both printers on every document value.
 */
export function differences(file: string, text: string, opts: { spans?: boolean } = {}): { outcome: Outcome; diffs: string[] } {
  const limits: ParseLimits = { maxDepth: 256 };
  const fast = readFast(text, limits, (slice) => parseYamlDocumentsReference(slice, limits));
  if (fast.reader === 'reference') return { outcome: 'reference', diffs: [] };
  const diffs: string[] = [];
  const ndjson = fast.reader === 'json' && !isOneJsonValue(text);
  const ref = ndjson ? ndjsonReference(text, limits) : referenceDocuments(text, limits);
  if (!sameJson(fast.docs, ref)) diffs.push(`${file}: documents differ\n  fast ${JSON.stringify(fast.docs).slice(0, 300)}\n  ref  ${JSON.stringify(ref).slice(0, 300)}`);
  printers(file, fast.docs, diffs);
  // The reference refuses NDJSON as a whole (several flow mappings in one document); its lines are compared above.
  if (ndjson) return { outcome: fast.reader, diffs };

  const load = (o: LoadOptions): { ok: boolean; docs: SourceDoc[]; diagnostics: Diagnostic[] } => {
    const r = loadYamlText(file, text, { requireMapping: true, ...o });
    return { ok: r.ok, docs: r.ok ? r.value : [], diagnostics: r.diagnostics };
  };
  const a = load({});
  const b = load({ referenceReader: true });
  if (a.ok !== b.ok || !sameJson(a.diagnostics, b.diagnostics)) diffs.push(`${file}: diagnostics differ\n  fast ${JSON.stringify(a.diagnostics)}\n  ref  ${JSON.stringify(b.diagnostics)}`);
  if (!sameJson(a.docs.map((d) => d.value), b.docs.map((d) => d.value))) diffs.push(`${file}: loaded values differ`);
  if (opts.spans !== false) {
    a.docs.forEach((doc, i) => {
      const other = b.docs[i];
      if (!other) return;
      for (const path of pathsOf(doc.value)) {
        const spans = (d: SourceDoc): unknown => [d.spanOf(path), d.keySpanOf(path), d.spanInString(path, 1, 3)];
        if (!isDeepStrictEqual(spans(doc), spans(other))) {
          diffs.push(`${file}: spans of ${JSON.stringify(path)} differ: ${JSON.stringify(spans(doc))} vs ${JSON.stringify(spans(other))}`);
          break;
        }
      }
    });
  }
  return { outcome: fast.reader, diffs };
}

function printers(file: string, docs: readonly ParsedDocument[], diffs: string[]): void {
  for (const doc of docs) {
    if (doc.value === undefined) continue;
    for (const sortKeys of [false, true]) {
      if (toYaml(doc.value, { sortKeys }) !== toYamlReference(doc.value, { sortKeys })) diffs.push(`${file}: printers differ (sortKeys ${sortKeys})`);
    }
  }
}

function isOneJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What the reference makes of each line of an NDJSON text on its own, at the line's offsets. */
export function ndjsonReference(text: string, limits: ParseLimits): ParsedDocument[] {
  const out: ParsedDocument[] = [];
  let at = 0;
  for (const line of text.split(/(?<=\n)/)) {
    for (const doc of referenceDocuments(line, limits)) {
      const move = (r: [number, number]): [number, number] => [r[0] + at, r[1] + at];
      out.push({ ...doc, start: doc.start + at, end: doc.end + at, contents: move(doc.contents), issues: doc.issues.map((i) => ({ ...i, range: move(i.range), ...(i.related ? { related: i.related.map((r) => ({ ...r, range: move(r.range) })) } : {}) })) });
    }
    at += line.length;
  }
  return out;
}
