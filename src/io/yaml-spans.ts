/**
 * Source spans for one loaded document, computed only when asked. Loading keeps no AST (100,000 Pods would hold
 * gigabytes of `yaml` nodes); the first span request re-parses just this document's slice of the text and builds
 * the key index of each map on first visit. Dialect parsers ask for spans when they report a diagnostic or record
 * an origin, which is a small fraction of documents and nodes.
 */
import { Composer, isAlias, isMap, isScalar, isSeq, Parser, type Alias, type Node, type Pair, type Scalar, type YAMLMap } from 'yaml';
import type { LineIndex, Span } from '../diagnostics/span.js';
import { jsonKeyOf, resolveScalar, YAML_TAG_PREFIX } from './go-yaml-resolve.js';
import { decodeScalarWithOffsets, type ScalarOffsets, type ScalarStyle } from './scalar-offsets.js';
import type { YamlPath } from './source.js';
import { aliasTargets } from './yaml-convert.js';
import { COMPOSE_OPTIONS } from './yaml-parse.js';

type AnyNode = Node | null | undefined;

interface Located {
  node: AnyNode;
  /** The map entry holding `node`, when the last step was a map key. */
  pair?: Pair;
  /** Whether the whole path exists (otherwise `node` is its deepest existing ancestor). */
  complete: boolean;
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.source === '<<' && (key.tag === `${YAML_TAG_PREFIX}merge` || (key.tag === undefined && key.type === 'PLAIN'));
}

export class DocumentSpans {
  private root: AnyNode;
  private parsed = false;
  private targets: Map<Alias, Node | undefined> | undefined;
  private readonly mapIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
  private readonly offsets = new WeakMap<Scalar, ScalarOffsets | null>();
  private readonly sliceStart: number;

  /**
   * @param start, end the document's range in `text`. The slice starts at the beginning of the document's first
   *   line, so indentation (and so structure) is the same as in the whole file.
   */
  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
    private readonly lineIndex: () => LineIndex,
  ) {
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    this.sliceStart = /^[ \t]*$/.test(text.slice(lineStart, start)) ? lineStart : start;
  }

  spanOf(path: YamlPath): Span {
    const { node } = this.locate(path);
    return this.spanOfNode(node);
  }

  keySpanOf(path: YamlPath): Span {
    const found = this.locate(path);
    if (found.complete && found.pair?.key) return this.spanOfNode(found.pair.key as Node);
    return this.spanOfNode(found.node);
  }

  spanInString(path: YamlPath, start: number, end?: number): Span {
    const found = this.locate(path);
    if (!found.complete) return this.spanOfNode(found.node);
    const scalar = this.deref(found.node);
    if (!isScalar(scalar) || !scalar.range) return this.spanOfNode(found.node);
    const map = this.scalarOffsets(scalar);
    if (!map || map.decoded.length === 0) return this.spanOfNode(scalar);
    const len = map.decoded.length;
    const s = Math.max(0, Math.min(start, len));
    const e = Math.max(s, Math.min(end ?? s + 1, len));
    const base = this.sliceStart + scalar.range[0];
    const from = s < len ? map.start[s]! : map.end[len - 1]!;
    const to = e > s ? map.end[e - 1]! : from + 1;
    return this.lineIndex().span(this.file, base + from, base + to);
  }

  private ensureParsed(): void {
    if (this.parsed) return;
    this.parsed = true;
    const slice = this.text.slice(this.sliceStart, this.end);
    const composer = new Composer(COMPOSE_OPTIONS);
    const docs = [...composer.compose(new Parser().parse(slice))];
    this.root = docs.find((d) => d.contents && !(isScalar(d.contents) && d.contents.source === '' && !d.contents.tag))?.contents ?? docs[0]?.contents;
  }

  private deref(node: AnyNode): AnyNode {
    for (let hops = 0; isAlias(node) && hops < 1000; hops++) {
      this.targets ??= aliasTargets(this.root ?? null);
      node = this.targets.get(node);
    }
    return node;
  }

  /** Walks `path`, stopping at the deepest node that exists. */
  private locate(path: YamlPath): Located {
    this.ensureParsed();
    let current: Located = { node: this.root, complete: false };
    for (const segment of path) {
      const container = this.deref(current.node);
      let next: Located | undefined;
      if (isMap(container)) {
        const pair = this.indexOf(container).get(String(segment));
        if (pair) next = { node: pair.value as AnyNode, pair, complete: false };
      } else if (isSeq(container)) {
        const i = typeof segment === 'number' ? segment : /^[0-9]+$/.test(segment) ? Number(segment) : -1;
        if (i >= 0 && i < container.items.length) next = { node: container.items[i] as AnyNode, complete: false };
      }
      if (!next) return current;
      current = next;
    }
    return { ...current, complete: true };
  }

  /** Key -> entry of a map, as yaml-convert.ts builds the object: merges applied in place, last key wins. */
  private indexOf(map: YAMLMap, visiting = new Set<YAMLMap>()): Map<string, Pair> {
    const cached = this.mapIndex.get(map);
    if (cached) return cached;
    const index = new Map<string, Pair>();
    visiting.add(map);
    const mergeFrom = (node: AnyNode): void => {
      const target = this.deref(node);
      if (isMap(target) && !visiting.has(target)) for (const [k, p] of this.indexOf(target, visiting)) index.set(k, p);
    };
    for (const pair of map.items as Pair[]) {
      if (isMergeKey(pair.key)) {
        const value = this.deref(pair.value as AnyNode);
        if (isSeq(value)) for (let i = value.items.length - 1; i >= 0; i--) mergeFrom(value.items[i] as AnyNode);
        else mergeFrom(value);
        continue;
      }
      const key = this.deref(pair.key as AnyNode);
      if (!isScalar(key)) continue;
      const r = resolveScalar(typeof key.source === 'string' ? key.source : String(key.value ?? ''), key.type === 'PLAIN', key.tag);
      if ('error' in r) continue;
      const k = jsonKeyOf(r);
      if (typeof k === 'string') index.set(k, pair);
    }
    visiting.delete(map);
    this.mapIndex.set(map, index);
    return index;
  }

  private scalarOffsets(scalar: Scalar): ScalarOffsets | undefined {
    let map = this.offsets.get(scalar);
    if (map === undefined) {
      const [a, b] = scalar.range!;
      const src = this.text.slice(this.sliceStart + a, this.sliceStart + b);
      const expected = typeof scalar.source === 'string' ? scalar.source : String(scalar.value ?? '');
      map = decodeScalarWithOffsets(src, (scalar.type ?? 'PLAIN') as ScalarStyle, expected) ?? null;
      this.offsets.set(scalar, map);
    }
    return map ?? undefined;
  }

  private spanOfNode(node: AnyNode): Span {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (!range) return this.lineIndex().span(this.file, this.start, Math.max(this.start + 1, this.end));
    return this.lineIndex().span(this.file, this.sliceStart + range[0], this.sliceStart + Math.max(range[0] + 1, range[1]));
  }
}
