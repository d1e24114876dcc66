/**
 * A path read specialised into straight-line JavaScript: the closure interpreter's `first` (src/interpreter/
 * read.ts readFirst), the first value the segments reach from a document, for one fixed list of segments.
 */
import type { JsonValue } from '../ir/json.js';
import type { Segment } from '../ir/path.js';
import { INHERITED } from '../interpreter/walk.js';
import { keyedElementTest } from './path-walker.js';
import { Constants, instantiate, literal } from './source.js';

export type PathReader = (doc: JsonValue | undefined) => JsonValue | undefined;

function readerFn(i: number, seg: Segment | undefined): string {
  if (seg === undefined) return `function g${i}(cur) { return cur; }`;
  switch (seg.kind) {
    case 'field': {
      const name = literal(seg.name);
      const read = INHERITED.has(seg.name) ? `h.hasOwn(cur, ${name}) ? cur[${name}] : undefined` : `cur[${name}]`;
      return `function g${i}(cur) {
  if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
  const v = ${read};
  return v === undefined ? undefined : g${i + 1}(v);
}`;
    }
    case 'index':
      return `function g${i}(cur) {
  if (!Array.isArray(cur)) return undefined;
  const idx = ${seg.index < 0 ? `cur.length + (${seg.index})` : String(seg.index)};
  return idx < 0 || idx >= cur.length ? undefined : g${i + 1}(cur[idx]);
}`;
    case 'append':
      return `function g${i}() { return undefined; }`;
    case 'keyed':
    case 'keyedGlob':
    case 'each': {
      const skip =
        seg.kind === 'keyed'
          ? `if (!(${keyedElementTest('el', seg.key, seg.value)})) continue;`
          : seg.kind === 'keyedGlob'
            ? 'if (!h.isJsonObject(el)) continue;'
            : '';
      return `function g${i}(cur) {
  if (!Array.isArray(cur)) return undefined;
  for (let idx = 0; idx < cur.length; idx++) {
    const el = cur[idx];
    ${skip}
    const found = g${i + 1}(el);
    if (found !== undefined) return found;
  }
  return undefined;
}`;
    }
  }
}

/** Generates the reader of `segs`, or undefined where code cannot be generated. */
export function generatePathReader(segs: readonly Segment[]): PathReader | undefined {
  const fns: string[] = [];
  for (let i = 0; i <= segs.length; i++) fns.push(readerFn(i, segs[i]));
  return instantiate<PathReader>(`${fns.join('\n')}\nreturn function read(doc) { return doc === undefined ? undefined : g0(doc); };`, new Constants());
}
