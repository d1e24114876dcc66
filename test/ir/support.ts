/**
 * Minimal SourceDoc construction for the IR tests, on `yaml`'s parseAllDocuments + LineCounter.
 * (The real loader with limits and multi-file handling lives in src/io/; this only needs positions.)
 */
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import type { Span } from '../../src/diagnostics/span.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { SourceDoc, YamlPath } from '../../src/io/source.js';

export function sourceDocs(file: string, text: string): SourceDoc[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  if (!Array.isArray(docs)) throw new Error('empty stream');
  return docs.map((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`YAML error in test input: ${doc.errors[0]!.message}`);
    return makeDoc(file, index, text, doc, lineCounter);
  });
}

export function sourceDoc(file: string, text: string): SourceDoc {
  const docs = sourceDocs(file, text);
  if (docs.length !== 1) throw new Error(`expected one document, got ${docs.length}`);
  return docs[0]!;
}

function makeDoc(file: string, index: number, text: string, doc: Document.Parsed, lc: LineCounter): SourceDoc {
  const span = (start: number, end: number): Span => {
    const a = lc.linePos(start);
    const b = lc.linePos(Math.max(start, end - 1));
    return { file, line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  };
  const nodeSpan = (node: Node | null | undefined): Span => {
    const r = node?.range ?? doc.range;
    return span(r[0], r[1]);
  };
  /** The deepest existing node along `path`, and the key node of its last map entry. */
  const find = (path: YamlPath): { node: Node | null; key: Node | null; complete: boolean } => {
    let node: Node | null = doc.contents;
    let key: Node | null = null;
    for (const step of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(step));
        if (!pair) return { node, key: null, complete: false };
        key = pair.key as Node;
        node = (pair.value as Node | null) ?? key;
      } else if (isSeq(node) && typeof step === 'number') {
        const item = node.items[step] as Node | undefined;
        if (!item) return { node, key: null, complete: false };
        key = null;
        node = item;
      } else {
        return { node, key: null, complete: false };
      }
    }
    return { node, key, complete: true };
  };
  return {
    file,
    index,
    value: doc.toJS({ maxAliasCount: 100 }) as JsonValue,
    spanOf: (path) => nodeSpan(find(path).node),
    keySpanOf: (path) => {
      const f = find(path);
      return f.complete && f.key ? nodeSpan(f.key) : nodeSpan(f.node);
    },
    spanInString: (path, start, end = start + 1) => {
      const f = find(path);
      const node = f.node;
      if (!f.complete || !isScalar(node) || !node.range) return nodeSpan(node);
      const offsets = scalarOffsets(text, node);
      if (!offsets) return nodeSpan(node);
      const at = (i: number) => offsets[Math.max(0, Math.min(i, offsets.length - 1))]!;
      return span(at(start), at(Math.max(start, end - 1)) + 1);
    },
  };
}

/**
 * Source offsets of each character of a single-line scalar's value (plain, single- or double-quoted),
 * plus one past the end; undefined for other styles (the caller falls back to the node's span).
 */
function scalarOffsets(text: string, node: Node): number[] | undefined {
  if (!node.range) return undefined;
  const base = node.range[0];
  const s = text.slice(base, node.range[1]);
  const out: number[] = [];
  const type = (node as { type?: string }).type;
  if (type === 'PLAIN') {
    if (s.includes('\n')) return undefined;
    for (let i = 0; i <= s.length; i++) out.push(base + i);
    return out;
  }
  if (type === 'QUOTE_SINGLE') {
    if (s.includes('\n')) return undefined;
    for (let i = 1; i < s.length - 1; i++) {
      out.push(base + i);
      if (s[i] === "'" && s[i + 1] === "'") i++;
    }
    out.push(base + s.length - 1);
    return out;
  }
  if (type === 'QUOTE_DOUBLE') {
    if (s.includes('\n')) return undefined;
    for (let i = 1; i < s.length - 1; i++) {
      out.push(base + i);
      if (s[i] === '\\') {
        const c = s[i + 1];
        if (c === 'x') i += 3;
        else if (c === 'u') i += 5;
        else if (c === 'U') i += 9;
        else i += 1;
      }
    }
    out.push(base + s.length - 1);
    return out;
  }
  return undefined;
}
