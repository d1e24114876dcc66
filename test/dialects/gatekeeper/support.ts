/**
 * A small SourceDoc builder for these tests (the real loader lives in src/io/): `yaml` documents with a
 * LineCounter-free LineIndex, spans of nodes and keys, and offsets inside plain, single- and double-quoted
 * string scalars mapped back to the file.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node, type Scalar } from 'yaml';
import { LineIndex, type Span } from '../../../src/diagnostics/span.js';
import type { JsonValue } from '../../../src/ir/json.js';
import type { SourceDoc, YamlPath } from '../../../src/io/source.js';

type Located = { node: Node | null; key: Node | null; found: boolean };

function locate(doc: Document, path: YamlPath): Located {
  let node = doc.contents as Node | null;
  let key: Node | null = null;
  for (const p of path) {
    if (node && typeof p === 'string' && isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === p);
      if (!pair) return { node, key, found: false };
      key = pair.key as Node;
      node = (pair.value as Node | null) ?? key;
    } else if (node && typeof p === 'number' && isSeq(node)) {
      const item = node.items[p] as Node | undefined;
      if (!item) return { node, key, found: false };
      key = null;
      node = item;
    } else {
      return { node, key, found: false };
    }
  }
  return { node, key, found: true };
}

/** Source offset of each character of a string scalar's value, plus one past the end. */
function valueOffsets(text: string, scalar: Scalar): number[] {
  const [start, end] = scalar.range!;
  const value = String(scalar.value);
  const out: number[] = [];
  if (scalar.type === 'QUOTE_DOUBLE') {
    let i = start + 1;
    while (out.length < value.length && i < end) {
      out.push(i);
      if (text[i] === '\\') {
        const c = text[i + 1];
        i += c === 'x' ? 4 : c === 'u' ? 6 : c === 'U' ? 10 : 2;
      } else {
        i += 1;
      }
    }
  } else if (scalar.type === 'QUOTE_SINGLE') {
    let i = start + 1;
    while (out.length < value.length && i < end) {
      out.push(i);
      i += text[i] === "'" && text[i + 1] === "'" ? 2 : 1;
    }
  } else if (scalar.type === 'PLAIN') {
    for (let i = 0; i < value.length; i++) out.push(start + i);
  } else {
    // Block scalars: good enough for single-line content in tests.
    const firstLine = value.split('\n')[0] ?? '';
    const at = text.indexOf(firstLine, text.indexOf('\n', start) + 1);
    for (let i = 0; i < value.length; i++) out.push(at + i);
  }
  while (out.length < value.length) out.push(end - 1);
  out.push(scalar.type === 'PLAIN' ? start + value.length : Math.max(start, end - 1));
  return out;
}

export function sourceDocs(text: string, file = 'test.yaml'): SourceDoc[] {
  const index = new LineIndex(text);
  const spanOfNode = (node: Node | null): Span => {
    const range = node?.range;
    return range ? index.span(file, range[0], range[1]) : index.span(file, 0, text.length);
  };
  return parseAllDocuments(text).map((doc, i): SourceDoc => {
    if (!('contents' in doc)) throw new Error('YAML syntax error in test input');
    const value = doc.toJS({ maxAliasCount: 100 }) as JsonValue;
    return {
      file,
      index: i,
      value,
      spanOf: (path) => spanOfNode(locate(doc, path).node ?? (doc.contents as Node | null)),
      keySpanOf: (path) => {
        const loc = locate(doc, path);
        return spanOfNode(loc.found && loc.key ? loc.key : loc.node);
      },
      spanInString: (path, start, end = start + 1) => {
        const loc = locate(doc, path);
        if (!loc.found || !isScalar(loc.node) || typeof loc.node.value !== 'string') return spanOfNode(loc.node);
        const offsets = valueOffsets(text, loc.node);
        const a = offsets[Math.min(start, offsets.length - 1)]!;
        const b = end > start ? offsets[Math.min(end - 1, offsets.length - 1)]! + 1 : a + 1;
        return index.span(file, a, b);
      },
    };
  });
}

export function sourceDoc(text: string, file = 'test.yaml'): SourceDoc {
  const docs = sourceDocs(text, file);
  if (docs.length !== 1) throw new Error(`expected one document, got ${docs.length}`);
  return docs[0]!;
}

export function sourceDocsFromFile(file: string): SourceDoc[] {
  return sourceDocs(readFileSync(file, 'utf8'), file);
}
