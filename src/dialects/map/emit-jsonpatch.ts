/**
 * Path ops as one JSONPatch mutation expression (map.md §6.3): the walk down the path is a chain of `has()`
 * branches, a missing parent is created whole by one `add` of the nested value, and list selections become
 * `transformList` comprehensions over the matching elements. Every branch yields a list of JSONPatch values.
 */
import type { Op, SetMembersOp } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import { celLiteral, celString, conditional, hasField, isSelectable, renderPointer, select, type Pointer } from './emit-cel.js';
import { emitValue } from './emit-value.js';
import { imageValue } from './emit-image.js';

/** A JSON pointer under construction: static text and CEL string expressions (list indices). */

interface Place {
  cel: string;
  ptr: Pointer;
  depth: number;
}

function escapeStatic(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function child(ptr: Pointer, key: string | { cel: string }): Pointer {
  return [...ptr, typeof key === 'string' ? `/${escapeStatic(key)}` : '/', ...(typeof key === 'string' ? [] : [key])];
}

function pointerOfKey(ptr: Pointer, key: string): Pointer {
  if (escapeStatic(key) === key) return child(ptr, key);
  return [...ptr, '/', { cel: `jsonpatch.escapeKey(${celString(key)})` }];
}

function patch(op: 'add' | 'replace' | 'remove', ptr: Pointer, value?: string): string {
  const v = value === undefined ? '' : `, value: ${value}`;
  return `JSONPatch{op: ${celString(op)}, path: ${renderPointer(ptr)}${v}}`;
}

const VAR_NAMES = ['i', 'j', 'k', 'm', 'n'];

/** The value to `add` where the rest of the path is missing: nested maps (and keyed list items) around it. */
function build(rest: readonly Segment[], value: ValueAt): string | undefined {
  if (rest.length === 0) return value(undefined);
  const [s, ...tail] = rest;
  if ('test' in s! && s!.test === 'exist') return undefined;
  if (s!.kind === 'field') {
    const inner = build(tail, value);
    return inner === undefined ? undefined : `{${celString(s!.name)}: ${inner}}`;
  }
  if (s!.kind === 'keyed' && s!.create && s!.test !== 'exist') {
    const key = celLiteral(s!.value);
    if (key === undefined) return undefined;
    if (tail.length === 0) return undefined; // the item would be the value itself, without its key: Gatekeeper validates that instead
    const inner = build(tail, value);
    if (inner === undefined || !inner.startsWith('{')) return undefined;
    return `[{${celString(s!.key)}: ${key}, ${inner.slice(1)}]`;
  }
  return undefined;
}

type Step = string | { why: string };

/** The written value as CEL, given the CEL of the current value (undefined where the place is missing). */
type ValueAt = (current: string | undefined) => string;

/** The patches that write `value` (CEL) at `segs` below `at`, where `at` exists. */
function setBelow(at: Place, segs: readonly Segment[], value: ValueAt): Step {
  const [s, ...rest] = segs;
  if (!s) return { why: 'a write of the whole object' };
  if (s.kind === 'field') {
    const here: Place = { cel: select(at.cel, s.name), ptr: pointerOfKey(at.ptr, s.name), depth: at.depth };
    const has = hasField(at.cel, s.name);
    if (rest.length === 0) {
      const fresh = `[${patch('add', here.ptr, value(undefined))}]`;
      const over = `[${patch('add', here.ptr, value(here.cel))}]`;
      if (s.test === 'notExist') return conditional(has, '[]', fresh);
      if (s.test === 'exist') return conditional(has, over, '[]');
      return over === fresh ? over : conditional(has, over, fresh);
    }
    const present = s.test === 'notExist' ? '[]' : setBelow(here, rest, value);
    if (typeof present !== 'string') return present;
    const built = s.test === 'exist' ? undefined : build(rest, value);
    const missing = built === undefined ? '[]' : `[${patch('add', here.ptr, built)}]`;
    return conditional(has, present, missing);
  }
  if (s.kind === 'keyed' || s.kind === 'keyedGlob' || s.kind === 'each') {
    const test = s.kind === 'each' ? undefined : s.test;
    // A glob that must not exist never holds (Gatekeeper path tests on `[key: *]`).
    if (s.kind === 'keyedGlob' && test === 'notExist') return '[]';
    const i = VAR_NAMES[at.depth] ?? `i${at.depth}`;
    const e = `${i === 'i' ? 'c' : `c${at.depth}`}`;
    const item: Place = { cel: e, ptr: [...at.ptr, '/', { cel: `string(${i})` }], depth: at.depth + 1 };
    // A glob visits every element, whether or not it has the key (Gatekeeper's mutateInternal: `[name: *]` on
    // ports reaches a port without a name too); an element that is not a map fails the walk below it, as
    // Gatekeeper's does.
    let filter = 'true';
    if (s.kind === 'keyed') {
      const keySel = isSelectable(s.key) ? `${e}.${s.key}` : `${e}[${celString(s.key)}]`;
      const lit = celLiteral(s.value);
      if (lit === undefined) return { why: 'a null list key' };
      filter = `${hasField(e, s.key)} && ${keySel} == ${lit}`;
    }
    const inner = rest.length === 0 ? (s.kind === 'keyed' ? `[${patch('replace', item.ptr, value(item.cel))}]` : { why: 'a write of every list element' }) : setBelow(item, rest, value);
    if (typeof inner !== 'string') return inner;
    const each = test === 'notExist' ? '[]' : `${at.cel}.transformList(${i}, ${e}, ${filter}, ${inner}).flatten()`;
    if (s.kind !== 'keyed') return each;
    const built = !s.create || test === 'exist' ? undefined : rest.length === 0 ? `[${value(undefined)}]` : build(segs, value);
    // Nothing is created where a path test must hold below the new item (it would not exist yet).
    const missing = built === undefined ? '[]' : `[${patch('add', [...at.ptr, '/-'], built.slice(1, -1))}]`;
    return conditional(`${at.cel}.exists(${e}, ${filter})`, each, missing);
  }
  if (s.kind === 'index') {
    if (s.index < 0) return { why: 'a negative list index' };
    const here: Place = { cel: `${at.cel}[${s.index}]`, ptr: [...at.ptr, `/${s.index}`], depth: at.depth };
    const inner = rest.length === 0 ? `[${patch('replace', here.ptr, value(here.cel))}]` : setBelow(here, rest, value);
    if (typeof inner !== 'string') return inner;
    return conditional(`size(${at.cel}) > ${s.index}`, inner, '[]');
  }
  if (s.kind === 'append' && rest.length === 0) return `[${patch('add', [...at.ptr, '/-'], value(undefined))}]`;
  return { why: `a write through a ${s.kind} segment` };
}

/** The patch that removes the place at `segs` when it exists: one test of the whole chain, then `remove`. */
function removeBelow(at: Place, segs: readonly Segment[]): Step {
  if (segs.length === 0) return { why: 'removing the whole object' };
  const tests: string[] = [];
  let here = at;
  for (const s of segs) {
    if (s.kind !== 'field') return { why: `a removal through a ${s.kind} segment` };
    tests.push(hasField(here.cel, s.name));
    here = { cel: select(here.cel, s.name), ptr: pointerOfKey(here.ptr, s.name), depth: here.depth };
  }
  return conditional(tests.join(' && '), `[${patch('remove', here.ptr)}]`, '[]');
}

const ROOT: Place = { cel: 'object', ptr: [], depth: 0 };

/** One op as a JSONPatch expression (a CEL list), or why MAP cannot state it exactly. */
export function jsonPatchOf(op: Op): Step {
  if ((op.kind === 'set' || op.kind === 'remove' || op.kind === 'setMembers') && op.path.root !== 'object') return { why: `a write under ${op.path.root}` };
  switch (op.kind) {
    case 'set': {
      const v = emitValue(op.value);
      if ('why' in v) return v;
      return setBelow(ROOT, op.path.segments, () => v.cel);
    }
    case 'image':
      if (op.path.root !== 'object') return { why: `a write under ${op.path.root}` };
      return setBelow(ROOT, op.path.segments, (current) => imageValue(op, current));
    case 'remove':
      return removeBelow(ROOT, op.path.segments);
    case 'setMembers':
      return setMembersOf(op);
    default:
      return { why: `an op of kind ${op.kind} as JSONPatch` };
  }
}

/**
 * Gatekeeper ModifySet as JSONPatch (see interpreter/ops/set-members.ts for the upstream quirks kept):
 * merge writes the values verbatim where the list is missing and appends the absent ones where it exists;
 * prune rewrites an existing list, and the walk to it creates the missing parent maps even when nothing is
 * pruned. Below a list selection only a glob directly above the list is exact (a glob creates nothing).
 */
function setMembersOf(op: SetMembersOp): Step {
  const vs = op.values.map(emitValue);
  const bad = vs.find((x) => 'why' in x);
  if (bad) return bad as { why: string };
  const cels = (vs as { cel: string }[]).map((x) => x.cel);
  const list = `[${cels.join(', ')}]`;
  // Values already appended in the same merge count as present: append each distinct value once.
  const distinct = `[${cels.filter((c, i) => cels.indexOf(c) === i).join(', ')}]`;
  const segs = op.path.segments;
  const last = segs[segs.length - 1];
  if (!last || last.kind !== 'field' || last.test) return { why: 'a set-membership change of something other than a named field' };
  const parent = segs.slice(0, -1);
  if (!parent.every((s) => s.kind === 'field' && !s.test)) {
    if (op.mode === 'merge') return setBelow(ROOT, segs, (cur) => (cur === undefined ? list : `${cur} + ${distinct}.filter(x, !(x in ${cur}))`));
    const above = parent[parent.length - 1]!;
    const creates = parent.some((s) => (s.kind === 'keyed' && s.create) || ('test' in s && s.test !== undefined));
    if ((above.kind !== 'keyedGlob' && above.kind !== 'each') || creates) return { why: 'a set-membership prune below a list selection whose walk would create parents' };
    return setBelow(ROOT, [...parent, { ...last, test: 'exist' }], (cur) => `${cur}.filter(x, !(x in ${list}))`);
  }
  let at = ROOT;
  for (const s of parent) if (s.kind === 'field') at = { cel: select(at.cel, s.name), ptr: pointerOfKey(at.ptr, s.name), depth: 0 };
  const target = select(at.cel, last.name);
  const ptr = pointerOfKey(at.ptr, last.name);
  const present = [...chainTests(parent), hasField(at.cel, last.name)].join(' && ');
  if (op.mode === 'prune') {
    const write = `[${patch('replace', ptr, `${target}.filter(x, !(x in ${list}))`)}]`;
    const prune = conditional(`${present} && ${target}.exists(x, x in ${list})`, write, '[]');
    if (parent.length === 0) return prune;
    // The parents Gatekeeper's walk creates on the way stay, pruned or not.
    const parents = setBelow(ROOT, [...parent.slice(0, -1), { ...(parent[parent.length - 1] as Segment & { kind: 'field' }), test: 'notExist' }], () => '{}');
    if (typeof parents !== 'string') return parents;
    const operand = (e: string) => (/^\[[^?]*\]$/.test(e) ? e : `(${e})`);
    return `${operand(parents)} + ${operand(prune)}`;
  }
  const merge = setBelow(ROOT, segs, () => list);
  if (typeof merge !== 'string') return merge;
  const appendMissing = `${distinct}.filter(x, !(x in ${target})).map(x, ${patch('add', [...ptr, '/-'], 'x')})`;
  return conditional(present, appendMissing, merge);
}

function chainTests(segs: readonly Segment[]): string[] {
  const tests: string[] = [];
  let at = 'object';
  for (const s of segs) {
    if (s.kind !== 'field') break;
    tests.push(hasField(at, s.name));
    at = select(at, s.name);
  }
  return tests;
}
