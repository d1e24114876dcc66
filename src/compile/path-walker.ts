/**
 * A path write specialised into straight-line JavaScript: `walk(cur, segs, 0, leaf, opts)` of the closure
 * interpreter (src/interpreter/walk.ts) for one fixed list of segments, one generated function per segment
 * with the segment's name, key, test and position written in as constants. The walk's semantics are kept
 * statement for statement (Gatekeeper's core walk, pkg/mutation/mutators/core/mutation_function.go); the
 * differential test (test/compile/) runs both over the golden set and the corpora.
 */
import type { JsonScalar } from '../ir/json.js';
import type { Segment } from '../ir/path.js';
import { INHERITED } from '../interpreter/walk.js';
import type { PathWalker } from '../interpreter/write.js';
import { Constants, instantiate, literal } from './source.js';

export type { PathWalker };

/**
 * The test that the list element held by `el` is a map whose own `key` holds `value` (a JSON scalar). Where
 * no Object.prototype property has the key's name (walk.ts INHERITED), a plain read is an own read, a JSON
 * value never being undefined, and costs far less than a hasOwnProperty call per element (issue 17).
 */
export function keyedElementTest(el: string, key: string, value: JsonScalar): string {
  const read = `${el}[${literal(key)}] === ${literal(value)}`;
  return INHERITED.has(key) ? `h.isJsonObject(${el}) && h.hasOwn(${el}, ${literal(key)}) && ${read}` : `h.isJsonObject(${el}) && ${read}`;
}

/**
 * A statement declaring `created`, the owned element `{key: value}` of a keyed segment: an object literal,
 * which V8 builds from one shape, except for the key `__proto__`, which a literal would take for the prototype.
 */
export function createdElement(key: string, value: JsonScalar): string {
  if (key === '__proto__') return `const created = h.own(opts, {}); h.defineOwn(created, ${literal(key)}, ${literal(value)});`;
  return `const created = h.own(opts, { ${literal(key)}: ${literal(value)} });`;
}

/** The statements that hand one element to the rest of the path (ListWrite.step). */
function step(i: number, last: boolean, seg: string, idx: string, el: string, exists: string): string {
  const call = last ? `opts.leafCalls++; r = leaf(${el}, ${exists}, ${seg});` : `r = f${i + 1}(${el}, leaf, opts);`;
  const store =
    exists === 'true'
      ? `if (r !== ${el}) (out ??= h.writableList(list, opts))[${idx}] = r;`
      : `(out ??= h.writableList(list, opts)).push(r);`;
  const remove = exists === 'true' ? `{ removed = true; (out ??= h.writableList(list, opts))[${idx}] = h.REMOVE; }` : '{}';
  return `{ let r; ${call}
    if (r !== h.UNCHANGED && r !== h.TOUCHED) { if (r === h.REMOVE) ${remove} else ${store} } }`;
}

function fieldFn(i: number, seg: Extract<Segment, { kind: 'field' }>, last: boolean, segRef: string): string {
  const name = literal(seg.name);
  const read = INHERITED.has(seg.name) ? `(h.hasOwn(cur, ${name}) ? cur[${name}] : undefined)` : `cur[${name}]`;
  const test = seg.test === 'notExist' ? 'if (exists) return h.UNCHANGED;' : seg.test === 'exist' ? 'if (!exists) return h.UNCHANGED;' : '';
  const descend = last
    ? `opts.leafCalls++;
    next = leaf(child, exists, ${segRef});
    if (next === h.UNCHANGED) return h.UNCHANGED;
    if (next === h.TOUCHED) return cur ?? h.own(opts, {});`
    : `if (!exists && !opts.create) return h.UNCHANGED;
    next = f${i + 1}(child, leaf, opts);
    if (next === h.UNCHANGED) return h.UNCHANGED;`;
  return `function f${i}(cur, leaf, opts) {
  if (cur !== undefined && (typeof cur !== 'object' || cur === null || Array.isArray(cur))) h.mismatch('object', cur, opts);
  const child = cur === undefined ? undefined : ${read};
  const exists = child !== undefined;
  ${test}
  let next;
  ${descend}
  if (next === h.REMOVE) return exists ? h.withoutKey(cur, ${name}, opts) : h.UNCHANGED;
  if (exists && child === next) return h.UNCHANGED;
  const copy = h.writableMap(cur, opts);
  ${seg.name === '__proto__' ? `h.defineOwn(copy, ${name}, next);` : `copy[${name}] = next;`}
  return copy;
}`;
}

function listFn(i: number, seg: Exclude<Segment, { kind: 'field' }>, last: boolean, segRef: string): string {
  let body: string;
  switch (seg.kind) {
    case 'keyed': {
      const onMatch = `matched = true; ${seg.test === 'notExist' ? 'return h.UNCHANGED;' : ''} ${step(i, last, segRef, 'idx', 'el', 'true')} ${last ? 'break;' : ''}`;
      const create = !seg.create || seg.test === 'exist'
        ? 'return h.UNCHANGED;'
        : last
          ? `if (!opts.create) return h.UNCHANGED; ${step(i, last, segRef, '-1', 'undefined', 'false')}`
          : `if (!opts.create) return h.UNCHANGED;
      ${createdElement(seg.key, seg.value)}
      const r = f${i + 1}(created, leaf, opts);
      if (r !== h.UNCHANGED) (out ??= h.writableList(list, opts)).push(r);`;
      body = `let matched = false;
  if (list) for (let idx = 0; idx < list.length; idx++) {
    const el = list[idx];
    if (${keyedElementTest('el', seg.key, seg.value)}) { ${onMatch} }
  }
  if (!matched) { ${create} }`;
      break;
    }
    case 'keyedGlob':
      body = `if (!list${seg.test === 'notExist' ? ' || true' : ''}) return h.UNCHANGED;
  for (let idx = 0; idx < list.length; idx++) {
    const el = list[idx];
    ${last ? '' : `if (!h.isJsonObject(el)) h.mismatch('object', el, opts);`}
    if (!h.isJsonObject(el)) continue;
    ${step(i, last, segRef, 'idx', 'el', 'true')}
  }`;
      break;
    case 'each':
      body = `if (!list) return h.UNCHANGED;
  for (let idx = 0; idx < list.length; idx++) { const el = list[idx]; ${step(i, last, segRef, 'idx', 'el', 'true')} }`;
      break;
    case 'index': {
      const test = seg.test === 'notExist' ? 'if (exists) return h.UNCHANGED;' : '';
      body = `if (!list) return h.UNCHANGED;
  const idx = ${seg.index < 0 ? `list.length + (${seg.index})` : String(seg.index)};
  const exists = idx >= 0 && idx < list.length;
  ${test}
  if (!exists) return h.UNCHANGED;
  const el = list[idx];
  ${step(i, last, segRef, 'idx', 'el', 'true')}`;
      break;
    }
    case 'append':
      body = `if (!opts.create) return h.UNCHANGED;
  ${step(i, last, segRef, '-1', 'undefined', 'false')}`;
      break;
  }
  return `function f${i}(cur, leaf, opts) {
  if (cur !== undefined && !Array.isArray(cur)) h.mismatch('List', cur, opts);
  const list = cur;
  let out;
  let removed = false;
  ${body}
  if (!out) return h.UNCHANGED;
  return removed ? h.withoutRemoved(out, opts) : out;
}`;
}

/** Generates the walker of `segs` (at least one segment), or undefined where code cannot be generated. */
export function generatePathWalker(segs: readonly Segment[]): PathWalker | undefined {
  if (segs.length === 0) return undefined;
  const k = new Constants();
  const fns = segs.map((seg, i) => {
    const last = i === segs.length - 1;
    const segRef = k.ref(seg);
    return seg.kind === 'field' ? fieldFn(i, seg, last, segRef) : listFn(i, seg, last, segRef);
  });
  return instantiate<PathWalker>(`${fns.join('\n')}\nreturn f0;`, k);
}

/** Walkers cached per segment list (IR nodes are immutable once compiled). */
const walkers = new WeakMap<readonly Segment[], PathWalker | null>();

export function pathWalker(segs: readonly Segment[]): PathWalker | undefined {
  let w = walkers.get(segs);
  if (w === undefined) walkers.set(segs, (w = generatePathWalker(segs) ?? null));
  return w ?? undefined;
}
