/**
 * A Kyverno `foreach` entry as one JSONPatch expression: a comprehension over the list, in Kyverno's order
 * (Descending by default for a strategic merge, Ascending otherwise; `elementIndex` is the original index),
 * skipping null elements and elements whose preconditions fail (pkg/engine/handlers/mutation, kyverno.md
 * §1.12). Kyverno queries the list once and applies each element's patch to the result of the previous one;
 * the comprehension computes every element's patch from the object before the loop, which is the same where
 * each element's patch touches only that element. These shapes are translated:
 * - a JSON patch whose every path is below `/<list>/{{elementIndex}}` (the element's own place; removing
 *   the element itself only in Descending order, where the removals leave the lower indices in place);
 * - a strategic merge of the iterated list holding one element selected by the iterated element's key
 *   (`(name): "{{ element.name }}"` or `name: "{{ element.name }}"`), on a list kyaml merges by that key
 *   (an element without it fails the CEL as it fails Kyverno's rule): each patched element is merged into
 *   and, by kyaml's Prepend, moved to the front, so the patched elements end up first (in original order
 *   for a Descending loop, reversed for an Ascending one) and the others follow in their order; constants
 *   beside the list are merged once, where an element passes;
 * - a strategic merge of constants (merged once) or of map leaves outside the list (foreach-leaves.ts),
 *   also over several lists joined by a multi-select, whose elements no patch path can name;
 * - over joined lists, a strategic merge into one list of the object by the condition
 *   `(name): "{{element.name}}"` (foreach-joined-merge.ts).
 * The loop's context entries are written where they are read (Kyverno defers loading them).
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { ForEachOp, Op } from '../../../ir/nodes.js';
import { parseAnchor } from '../../../../grammars/kyverno-anchor.js';
import { notYet, type Refusal } from '../../generate-report.js';
import { itemType, T, type Ty } from '../../../lowering/jmes-cel/index.js';
import { and, concat, cond, fieldPlace, has, indexPlace, NONE, paren, patch, ROOT, staticIndexPlace, translationLimit, type Cel, type Place } from './cel-patch.js';
import { NAMED_LISTS } from '../../../lowering/raise-kyverno-smp.js';
import { elementStackPatch, kyvernoJsonPatches, patchPaths, readLoopSteps } from './json-patch.js';
import { containersThenLoop } from './foreach-containers.js';
import { outsideElementAdds } from './foreach-outside-patch.js';
import type { RuleScope } from './scope.js';
import { bindLets, bodyPatches, guardToCel, leadingLets, letValue, opPatches, refused, smpEnv, type RuleCompiler } from './rule.js';
import { elementLive, isPlainValue, smpElementPatches, smpPatches } from './smp.js';
import { leavesLoop } from './foreach-leaves.js';
import { joinedListMergeLoop } from './foreach-joined-merge.js';
import { listStrategies, objectKindTest } from './list-strategy.js';
import { writeThroughElement, writeThroughPatches, writeThroughReplaced, type WriteThroughElement } from './write-through.js';

type R<T> = T | Refusal;

const LIST = /^request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+)(?:\[\])?(?:\s*\|\|\s*`\[\]`)?$/;
/** A list of one literal (`['dummy']`): the loop body runs once, which is how policies defer their context. */
const ONE_LITERAL = /^\[\s*('(?:[^'\\]|\\.)*'|`[^`]*`)\s*\]$/;

/** The body of one element: null elements skipped, then context, preconditions, the patch. */
interface Body {
  guards: Op[];
  patch: Op[];
}

function elementBody(op: ForEachOp): R<{ lets: (Op & { kind: 'let' })[]; pre: Op[]; work: Op[] }> {
  const [skipNull, ...more] = op.body;
  if (more.length > 0 || skipNull?.kind !== 'when' || skipNull.else?.length) return notYet('this foreach body');
  const g = skipNull.guard;
  if (g.kind !== 'neq' || g.path.root !== 'vars' || g.value.kind !== 'literal' || g.value.json !== null) return notYet('this foreach body');
  const { lets, rest } = leadingLets(skipNull.then);
  let work = rest;
  const pre: Op[] = [];
  if (work.length === 1 && work[0]!.kind === 'when' && !work[0]!.else?.length) {
    pre.push(work[0]!);
    work = work[0]!.then;
  }
  return { lets, pre, work };
}

/**
 * The foreach list as CEL and the object path it names: `request.object.<fields>`, or in a nested foreach
 * `element.<fields>` (also `element<N>` for the enclosing loop's element), a list inside the enclosing
 * loop's element, whose path holds that loop's `{{elementIndex<N>}}`.
 */
interface LoopList {
  kind: 'place';
  cel: Cel;
  type: Ty;
  /** The path as the patch paths spell it: fields, indices, and `{{elementIndex<N>}}` for enclosing loops. */
  path: string[];
  place: Place;
}

/**
 * Lists of the object joined by a JMESPath multi-select and flattened (`request.object.spec.[initContainers,
 * containers][]`): no single place, so no patch path names an element; JMESPath drops the missing lists and
 * null elements, and elementIndex counts the joined list.
 */
interface JoinedList {
  kind: 'joined';
  cel: Cel;
  type: Ty;
}

/**
 * A list that is no place of the object (a context entry, a filtered or computed list): no patch path can
 * name its elements, so only a JSON patch writing outside them (appends beside the loop) is translated.
 */
interface ValueList {
  kind: 'value';
  cel: Cel;
  type: Ty;
}

const JOINED_LIST = /^request\.object(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.\[\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)+\s*\]\[\]$/;

/** The loop around a nested foreach: its list and the CEL of its element and index. */
interface Enclosing {
  list: LoopList;
  element: Cel;
  index: Cel;
  /** The nesting depth of the inner loop (1 inside one foreach): Kyverno names the outer element `element<depth-1>`. */
  depth: number;
}

const TARGET_LIST = /^target((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+)(?:\[\])?(?:\s*\|\|\s*`\[\]`)?$/;
const NESTED_LIST = /^(element\d*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+)(?:\[\])?(?:\s*\|\|\s*`\[\]`)?$/;

function listOf(rc: RuleCompiler, op: ForEachOp, scope: RuleScope, enclosing?: Enclosing): R<LoopList | JoinedList | ValueList> {
  if (!('kind' in op.list) || op.list.kind !== 'jmes') return notYet('a foreach over something other than a JMESPath list');
  const text = op.list.expr.text.trim();
  if (!enclosing && rc.env.mutateExisting !== true && JOINED_LIST.test(text)) {
    const q = rc.queryTyped(text, scope);
    return refused(q) ? q : { kind: 'joined', cel: evaluatedList(q.cel, q.type), type: q.type };
  }
  // A mutate-existing rule patches its target (the CEL policy's `object`): its lists are the target's. The
  // trigger's (`request.object`) would be iterated while the patches land on the target.
  const existing = rc.env.mutateExisting === true;
  if (existing && !enclosing && LIST.test(text)) return notYet(`the foreach list ${text} of a mutate-existing rule (the trigger's list, while the patches land on the target)`);
  const m = enclosing ? NESTED_LIST.exec(text) : existing ? TARGET_LIST.exec(text) : LIST.exec(text);
  const outer = enclosing ? `element${enclosing.depth - 1}` : undefined;
  if (!m && !enclosing && !existing && !/^request\.object\b/.test(text)) {
    // Kyverno queries the list from the rule's context (engineutils.EvaluateList), as the CEL does.
    const q = rc.queryTyped(text, scope);
    return refused(q) ? q : { kind: 'value', cel: evaluatedList(q.cel, q.type), type: q.type };
  }
  if (!m || (enclosing && m[1] !== 'element' && m[1] !== outer)) {
    const lists = enclosing ? `the object or of the enclosing loop's element (element.<field>, ${outer}.<field>)` : existing ? 'the target (target.<field>)' : 'the object';
    return notYet(`the foreach list ${text} (only lists of ${lists} are translated)`);
  }
  const q = rc.queryTyped(text, scope);
  if (refused(q)) return q;
  const fields = [...m[enclosing ? 2 : 1]!.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((x) => x[1] ?? x[2]!);
  const cel = evaluatedList(q.cel, q.type);
  if (!enclosing) return { kind: 'place', cel, type: q.type, path: fields, place: placeOf(fields) };
  const path = [...enclosing.list.path, `{{elementIndex${enclosing.depth - 1}}}`, ...fields];
  return { kind: 'place', cel, type: q.type, path, place: placeOf(fields, indexPlace(enclosing.list.place, enclosing.index, enclosing.element)) };
}

/**
 * The elements Kyverno iterates for a foreach list whose query gives `cel` (engineutils.EvaluateList: a list
 * as it is, anything else as a list of that one value) less the nil ones it skips (mutateElements): a missing
 * list (null) is no element, where a comprehension over null would fail.
 */
function evaluatedList(cel: Cel, type: Ty): Cel {
  if (type.k === 'list') return cel;
  const q = paren(cel);
  if (type.k === 'nullable' && type.of.k === 'list') return `(${q} == null ? [] : ${q})`;
  return `(${q} == null ? [] : type(${q}) == list ? ${q} : [${q}])`;
}

/** The place of an object path (numeric segments are list indices). */
function placeOf(path: readonly string[], from: Place = ROOT): Place {
  let at = from;
  for (const f of path) at = /^\d+$/.test(f) ? staticIndexPlace(at, Number(f)) : fieldPlace(at, f);
  return at;
}

export function forEachPatches(rc: RuleCompiler, op: ForEachOp, scope: RuleScope, enclosing?: Enclosing): R<Cel> {
  if (op.bind !== 'element' || op.indexBind !== 'elementIndex') return notYet('a foreach with other bindings');
  const body = elementBody(op);
  if (refused(body)) return body;
  if ('kind' in op.list && op.list.kind === 'jmes' && ONE_LITERAL.test(op.list.expr.text.trim())) {
    if (enclosing) return notYet('a nested foreach over a literal list');
    return onceWith(rc, op.list.expr.text.trim(), body, scope);
  }
  const list = listOf(rc, op, scope, enclosing);
  if (refused(list)) return list;
  const e = rc.fresh.next('e');
  const i = rc.fresh.next('i');
  let inner = scope.with('element', e, itemType(list.type)).with('elementIndex', i, T.smallInt);
  // Context loaded per element: the element0 / elementIndex0 aliases name the loop's own variables. Kyverno
  // defers loading the other entries until a query names them (context/deferred.go, on by default), so an
  // entry's value is written where it is read, and an entry that fails fails only where a query mentions it
  // (lowering/jmes-cel/deferred.ts).
  for (const l of body.lets) {
    if (l.value.kind === 'ref' && l.value.path.root === 'vars' && l.value.path.segments.length === 1 && l.value.path.segments[0]!.kind === 'field') {
      const target = l.value.path.segments[0]!.name;
      inner = inner.with(l.name, target === 'element' ? e : target === 'elementIndex' ? i : '');
      continue;
    }
    const saved = rc.scope;
    rc.scope = inner;
    const value = letValue(rc, l);
    rc.scope = saved;
    if (refused(value)) return value;
    inner = inner.withEntry(l.name, paren(value.cel), value.type);
  }
  const guards: Cel[] = [`${e} != null`];
  for (const w of body.pre) {
    if (w.kind !== 'when') continue;
    const saved = rc.scope;
    rc.scope = inner;
    const g = guardToCel(rc, w.guard);
    rc.scope = saved;
    if (refused(g)) return g;
    guards.push(g);
  }
  const work = body.work;
  const depth = enclosing ? enclosing.depth : 0;
  const merge = work.length === 1 && work[0]!.kind === 'merge' ? (work[0] as Op & { kind: 'merge' }) : undefined;
  if (!enclosing && merge !== undefined && isConstantMerge(merge)) {
    // The same patch whatever the element: merged once or many times, the result is the same.
    const once = opPatches(rc, merge, scope);
    if (refused(once)) return once;
    return cond(`${paren(list.cel)}.exists(${e}, ${and(guards)!})`, once);
  }
  const patchOps = jsonPatchBody(work);
  if (list.kind === 'joined') {
    if (patchOps !== undefined) return joinedJsonPatchLoop(rc, op, list, e, i, inner, guards, patchOps.text, patchOps.json);
    if (merge === undefined || merge.strategy !== 'smp' || merge.path.segments.length > 0 || (merge.value.kind !== 'literal' && merge.value.kind !== 'templated')) {
      return notYet(`a foreach over the joined lists ${(op.list as { expr: { text: string } }).expr.text.trim()} whose body is not a strategic merge beside them or a JSON patch (no patch path names their elements)`);
    }
    const written = joinedListMergeLoop(rc, op.order, list.cel, e, i, inner, guards, merge.value.json);
    return written ?? leavesLoop(rc, 'joined', op.order, list.cel, e, i, inner, guards, merge.value.json);
  }
  if (list.kind === 'value') {
    const text = (op.list as { expr: { text: string } }).expr.text.trim();
    if (patchOps === undefined) return notYet(`a foreach over ${text}, a list that is no place of the object, whose body is not a JSON patch`);
    const paths = bodyPaths(patchOps.text, patchOps.json);
    if (refused(paths)) return paths;
    if (paths.some((p) => /\{\{-?\s*elementIndex/.test(p))) return notYet(`a foreach JSON patch over ${text}, a list that is no place of the object, whose path names an element by its index`);
    return outsideElementLoop(rc, op, list.cel, e, i, inner, guards, patchOps.text, patchOps.json, paths);
  }
  if (patchOps !== undefined) return jsonPatchLoop(rc, op, list, e, i, inner, guards, patchOps.text, patchOps.json, depth);
  if (enclosing) return notYet('a nested foreach whose body is not a JSON patch or a foreach');
  if (merge !== undefined) return mergeLoop(rc, op, list, e, i, inner, guards, merge);
  if (work.length === 1 && work[0]!.kind === 'forEach') return nestedLoop(rc, op, list, e, i, inner, guards, work[0] as ForEachOp);
  if (work.some((w) => w.kind === 'forEach')) return notYet('a nested foreach beside other patches');
  return notYet('this foreach body');
}

/**
 * A strategic merge that reads no variable and holds no anchor or directive: merging it again into its own
 * result changes nothing (maps and keyed elements merge into what they made, deletions find nothing, an
 * element merged again is already in front), so a loop of it is one merge when the loop runs at all.
 */
function isConstantMerge(merge: Op & { kind: 'merge' }): boolean {
  if (merge.strategy !== 'smp' || merge.path.segments.length > 0 || merge.value.kind !== 'literal') return false;
  return isPlainValue(merge.value.json);
}


/**
 * A foreach whose body is another foreach over a list inside the element: each outer element's patches
 * are the inner loop's, all at the inner list's elements (jsonPatchLoop checks them against the inner
 * list's path, which lies inside the outer element), so each outer iteration changes only its own element
 * and the outer loop is exact as a comprehension in any order. Kyverno queries the inner list from the
 * outer element as the outer loop found it, which is what the comprehension reads. One level of nesting.
 */
function nestedLoop(rc: RuleCompiler, op: ForEachOp, list: LoopList, e: string, i: string, scope: RuleScope, guards: readonly Cel[], innerOp: ForEachOp): R<Cel> {
  const inner = forEachPatches(rc, innerOp, scope, { list, element: e, index: i, depth: 1 });
  if (refused(inner)) return inner;
  const comprehension = `${paren(list.cel)}.transformList(${i}, ${e}, ${and(guards)!}, ${inner})`;
  return op.order === 'desc' ? `${comprehension}.reverse().flatten()` : `${comprehension}.flatten()`;
}

/** A loop over one literal: its body once, with the element bound to that literal and its index to 0. */
function onceWith(rc: RuleCompiler, list: string, body: { lets: (Op & { kind: 'let' })[]; pre: Op[]; work: Op[] }, scope: RuleScope): R<Cel> {
  const element = rc.queryTyped(`${list}[0]`, scope);
  if (refused(element)) return element;
  let inner = scope.with('element', element.cel, element.type).with('elementIndex', '0', T.smallInt);
  const saved = rc.scope;
  rc.scope = inner;
  try {
    const bound = bindLets(rc, body.lets);
    if (refused(bound)) return bound;
    inner = rc.scope;
    const guards: Cel[] = [];
    for (const w of body.pre) {
      if (w.kind !== 'when') continue;
      const g = guardToCel(rc, w.guard);
      if (refused(g)) return g;
      guards.push(g);
    }
    const patches = bodyPatches(rc, body.work, inner);
    if (refused(patches)) return patches;
    return guards.reduceRight((acc, g) => cond(g, acc), patches);
  } finally {
    rc.scope = saved;
  }
}

/**
 * Whether every step of the element's JSON patch is below `/<list>/{{elementIndex}}` (or is the element).
 * At nesting depth `depth`, `{{elementIndex<depth>}}` names the same index.
 */
function elementLocal(paths: readonly string[], path: readonly string[], only = false, depth = 0): 'element' | 'removes-element' | undefined {
  const prefix = `/${path.join('/')}/{{elementIndex}}`;
  if (paths.length === 0) return undefined;
  let removes = false;
  for (const raw of paths) {
    const p = raw
      .replace(/\{\{-?\s*/g, '{{')
      .replace(/\s*\}\}/g, '}}')
      .replaceAll(`{{elementIndex${depth}}}`, '{{elementIndex}}');
    if (!p.startsWith(prefix)) return undefined;
    const rest = p.slice(prefix.length);
    if (rest === '') removes = true;
    else if (!rest.startsWith('/') || only) return undefined;
  }
  return removes ? 'removes-element' : 'element';
}

/** A foreach body that is one JSON patch (its templated text bound first, or its steps written out). */
function jsonPatchBody(work: readonly Op[]): { text: (Op & { kind: 'let' }) | undefined; json: Op & { kind: 'jsonPatch' } } | undefined {
  if (work.length === 2 && work[0]!.kind === 'let' && work[1]!.kind === 'jsonPatch') return { text: work[0] as Op & { kind: 'let' }, json: work[1] as Op & { kind: 'jsonPatch' } };
  if (work.length === 1 && work[0]!.kind === 'jsonPatch') return { text: undefined, json: work[0] as Op & { kind: 'jsonPatch' } };
  return undefined;
}

/** The paths of a foreach JSON patch: of its templated text, or of its steps. */
function bodyPaths(text: (Op & { kind: 'let' }) | undefined, json: Op & { kind: 'jsonPatch' }): R<string[]> {
  return text && text.value.kind === 'templated' && typeof text.value.json === 'string' ? patchPaths(text.value.json) : json.steps.map((s) => s.path);
}

/**
 * A JSON patch over joined lists (`request.object.spec.[ephemeralContainers, initContainers, containers][]`)
 * whose paths name an element of one list by `{{elementIndex}}` (psp-migration add-capabilities writes
 * `/spec/containers/{{elementIndex}}/...`): Kyverno substitutes the index in the joined list, so the patch
 * lands on that index of the named list, whichever element the iteration is at. Translated as written, each
 * step's place tested on the named list (json-patch.ts indexMayMiss): where the index is past its end, Kyverno
 * pads the list with nulls and the CEL fails, with a note.
 */
function joinedJsonPatchLoop(rc: RuleCompiler, op: ForEachOp, list: JoinedList, e: string, i: string, scope: RuleScope, guards: readonly Cel[], text: (Op & { kind: 'let' }) | undefined, json: Op & { kind: 'jsonPatch' }): R<Cel> {
  const paths = bodyPaths(text, json);
  if (refused(paths)) return paths;
  const named = /^\/((?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_.-]+)\/\{\{-?\s*elementIndex\s*\}\}\//.exec(paths[0] ?? '');
  const fields = named?.[1]!.split('/');
  if (fields === undefined || fields.some((f) => /^\d+$/.test(f)) || elementLocal(paths, fields) !== 'element') {
    return notYet(`a foreach JSON patch over the joined lists ${(op.list as { expr: { text: string } }).expr.text.trim()} whose paths are not all below \`/<list>/{{elementIndex}}/\``);
  }
  const steps = kyvernoJsonPatches(rc, json, scope, text, { indexMayMiss: true });
  if (refused(steps)) return steps;
  const comprehension = `${paren(list.cel)}.transformList(${i}, ${e}, ${and(guards)!}, ${steps})`;
  return op.order === 'desc' ? `${comprehension}.reverse().flatten()` : `${comprehension}.flatten()`;
}

/** A foreach JSON patch whose steps write outside the elements of the list `listCel` (foreach-outside-patch.ts). */
function outsideElementLoop(rc: RuleCompiler, op: ForEachOp, listCel: Cel, e: string, i: string, scope: RuleScope, guards: readonly Cel[], text: (Op & { kind: 'let' }) | undefined, json: Op & { kind: 'jsonPatch' }, paths: readonly string[]): R<Cel> {
  const computed = paths.find((p) => !p.startsWith('/'));
  if (computed !== undefined) return notYet(`a foreach JSON patch with a path outside the iterated element that a variable computes (${JSON.stringify(computed)})`);
  const steps = readLoopSteps(rc, json, scope, text);
  if (refused(steps)) return steps;
  const adds = outsideElementAdds(steps);
  if (refused(adds)) return adds;
  return containersThenLoop(listCel, e, i, and(guards)!, adds.containers, adds.each, op.order);
}

function jsonPatchLoop(rc: RuleCompiler, op: ForEachOp, list: LoopList, e: string, i: string, scope: RuleScope, guards: readonly Cel[], text: (Op & { kind: 'let' }) | undefined, json: Op & { kind: 'jsonPatch' }, depth: number): R<Cel> {
  const paths = bodyPaths(text, json);
  if (refused(paths)) return paths;
  const local = elementLocal(paths, list.path, false, depth);
  if (!local) {
    // Each outer element runs the inner loop after the outer ones before it: the containers made once before
    // the loop would be made again per outer element, over what the earlier ones added.
    if (depth > 0) return notYet('a nested foreach JSON patch with a path outside the iterated element (`/<list>/{{elementIndex}}/...`)');
    return outsideElementLoop(rc, op, list.cel, e, i, scope, guards, text, json, paths);
  }
  let filter = and(guards)!;
  if (local === 'removes-element' && elementLocal(paths, list.path, true, depth)) {
    // Every step at the element itself: where they leave the list's length as it was, each iteration
    // rewrites its own element only (json-patch.ts elementStackPatch), in any order.
    const stack = elementStackPatch(rc, json, scope, text);
    if (refused(stack)) return stack;
    if (stack === 'unchanged') return NONE;
    if (stack !== undefined) {
      const at = indexPlace(list.place, i);
      return `${paren(list.cel)}.transformList(${i}, ${e}, ${filter}, [${patch('replace', at.ptr, stack.value)}]).flatten()`;
    }
  }
  if (local === 'removes-element' && op.order === 'asc') {
    // Removing in Ascending order with the loop's stale indices: after k removals, index i names what was
    // at i + k, and an index past the shortened list is ignored (AllowMissingPathOnRemove). Every element
    // being removed in turn (no condition; the API server's lists hold no null elements), the removal at
    // index i happens while i < size - i.
    if (guards.length > 1 || paths.length !== 1) return notYet('removing elements of the iterated list in Ascending order under a condition');
    filter = and([filter, `${i} < size(${paren(list.cel)}) - ${i}`])!;
  }
  const steps = kyvernoJsonPatches(rc, json, scope, text);
  if (refused(steps)) return steps;
  const comprehension = `${paren(list.cel)}.transformList(${i}, ${e}, ${filter}, ${steps})`;
  return op.order === 'desc' ? `${comprehension}.reverse().flatten()` : `${comprehension}.flatten()`;
}

function mergeLoop(rc: RuleCompiler, op: ForEachOp, list: LoopList, e: string, i: string, scope: RuleScope, guards: readonly Cel[], merge: Op & { kind: 'merge' }): R<Cel> {
  if (merge.strategy !== 'smp' || merge.path.segments.length > 0 || (merge.value.kind !== 'literal' && merge.value.kind !== 'templated')) return notYet('this foreach merge');
  // A patch that does not name the iterated list writes beside it only.
  if (!namesPath(merge.value.json, list.path)) return leavesLoop(rc, 'beside', op.order, list.cel, e, i, scope, guards, merge.value.json);
  const split = besideTheList(merge.value.json, list.path);
  if (refused(split)) return split;
  const node = split.list;
  if (!Array.isArray(node) || node.length !== 1 || !isJsonObject(node[0])) return notYet('a foreach strategic merge whose list holds other than one element');
  const element: JsonObject = node[0];
  const through = writeThroughElement(element);
  if (split.beside !== undefined) {
    if (through !== undefined) return notYet('a foreach strategic merge that writes beside the iterated list and through a condition anchor');
    const loop = mergeLoopOfList(rc, op, list, e, i, scope, guards, element);
    if (refused(loop)) return loop;
    // Merged again at every element, a constant patch changes nothing more (isConstantMerge): it is merged
    // once where an element passes. The list's edits and it touch different places, in any order.
    const beside = smpPatches(split.beside, smpEnv(rc, scope));
    if (refused(beside)) return beside;
    return concat([loop, cond(`${paren(list.cel)}.exists(${e}, ${and(guards)!})`, cond(beside.condition, beside.patches))]);
  }
  if (through !== undefined) return writeThroughLoop(rc, list, e, scope, guards, through);
  return mergeLoopOfList(rc, op, list, e, i, scope, guards, element);
}

/** Whether the patch has every key of `path`, map within map. */
function namesPath(patch: JsonValue, path: readonly string[]): boolean {
  let node = patch;
  for (const f of path) {
    if (!isJsonObject(node) || !hasOwn(node, f)) return false;
    node = node[f]!;
  }
  return true;
}

/**
 * The patch's value at the iterated list, and what the patch writes beside it (the other keys of the maps
 * above the list, as one patch): only constants are taken there, which merging again leaves as they are.
 */
function besideTheList(patch: JsonValue, path: readonly string[]): R<{ list: JsonValue; beside: JsonObject | undefined }> {
  if (!isJsonObject(patch)) return notYet('this foreach merge');
  const f = path[0];
  if (f === undefined) return { list: patch, beside: undefined };
  if (!hasOwn(patch, f)) return notYet('a foreach strategic merge that does not write the iterated list');
  const below = path.length === 1 ? { list: patch[f]!, beside: undefined } : besideTheList(patch[f]!, path.slice(1));
  if (refused(below)) return below;
  const beside: JsonObject = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === f) continue;
    if (!isPlainValue(v) || k.startsWith('$') || k.includes('{{') || parseAnchor(k) !== undefined) return notYet(`a foreach strategic merge that writes ${k} beside the iterated list with variables, anchors or directives`);
    beside[k] = v;
  }
  if (below.beside !== undefined) beside[f] = below.beside;
  return { list: below.list, beside: Object.keys(beside).length > 0 ? beside : undefined };
}

/** The loop of a strategic merge of the iterated list's one element, selected by the element's own key. */
function mergeLoopOfList(rc: RuleCompiler, op: ForEachOp, list: LoopList, e: string, i: string, scope: RuleScope, guards: readonly Cel[], element: JsonObject): R<Cel> {
  // The element is selected by the iterated element's own key.
  let selector: string | undefined;
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(element)) {
    const a = parseAnchor(k);
    const key = a?.modifier === 'condition' ? a.key : a ? undefined : k;
    if (key !== undefined && typeof v === 'string' && new RegExp(`^\\{\\{-?\\s*element\\.${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\}\\}$`).test(v) && selector === undefined) {
      if (a && Object.keys(element).includes(key)) return notYet(`both ${k} and ${key} in a foreach element`);
      selector = key;
      continue;
    }
    if (a?.modifier === 'addIfNotPresent') return notYet(`the +() anchor ${k} at the top of a foreach list element (Kyverno decides it by whichever element is first in the list at that moment)`);
    if (a) return notYet(`the anchor ${k} in a foreach list element`);
    rest[k] = v;
  }
  if (!selector) return notYet('a foreach list element not selected by the iterated element\'s own key ({{ element.<key> }})');
  // kyaml merges the copy into the element of the same merge key: the selecting key must be the list's.
  const strategies = listStrategies(rc.env.match, list.path);
  const where = list.path.join('.');
  if (strategies.mixed || strategies.known?.kind !== 'keyed' || strategies.known.key !== selector) return notYet(`a foreach strategic merge into the list at ${where}, which kyaml does not merge by ${selector} for every kind the rule matches`);
  const anchored = parseAnchor(Object.keys(element).find((k) => parseAnchor(k)?.key === selector || k === selector)!)?.modifier === 'condition';
  if (!anchored && JSON.stringify(rest).includes('+(')) return notYet('a +() anchor in a foreach list element selected by a plain key (Kyverno then patches every element)');
  const L = paren(list.cel);
  const listPlace = placeOf(list.path);
  // An anchored element whose copy holds nothing once its +() keys are decided is not merged, so not moved.
  const live = anchored ? elementLive(rest, e) : 'true';
  const P = `${L}.transformList(${i}, ${e}, ${and([...guards, live])}, ${i})`;
  const k = rc.fresh.next('k');
  const j = rc.fresh.next('j');
  // Each patched element was moved to the front when its turn came: Descending leaves them in their order,
  // Ascending reverses them. Element j reaches position k after the moves before it.
  const order = op.order === 'desc' ? P : `${P}.reverse()`;
  const from = op.order === 'desc' ? j : `${j} + ${k}`;
  const moves = `${order}.transformList(${k}, ${j}, ${op.order === 'desc' ? `${k} != ${j}` : 'true'}, ${patch('move', [...listPlace.ptr, '/', { cel: `string(${k})` }], undefined, [...listPlace.ptr, '/', { cel: `string(${from})` }])})`;
  const elementScope = scope.with('element', `${L}[${j}]`, itemType(list.type)).with('elementIndex', j, T.smallInt);
  const at = indexPlace(listPlace, k, `${L}[${j}]`);
  const patches = smpElementPatches(rest, at, [...list.path, '[]'], smpEnv(rc, elementScope));
  if (refused(patches)) return patches;
  // The loop's context entries were written over its variables (e, i): the edits, a loop over the moved
  // elements' indices, bind them again to the element it edits (L[j], at index j).
  const names = (x: Cel | undefined, v: string): boolean => x !== undefined && new RegExp(`\\b${v}\\b`).test(x);
  if (names(patches.condition, e) || names(patches.condition, i)) return notYet('a foreach context entry read by a condition of the element');
  let edit = patches.patches;
  if (names(edit, e) || names(edit, i)) edit = `[${L}[${j}]].map(${e}, [${j}].map(${i}, ${edit})[0])[0]`;
  const edits = edit === NONE ? NONE : `${order}.transformList(${k}, ${j}, true, ${edit}).flatten()`;
  let merged = cond(patches.condition, concat([moves, edits]));
  // An element the loop takes without the selecting key fails Kyverno's rule ({{ element.<key> }} is an
  // unknown key), and the CEL with it.
  if (!(selector === 'name' && NAMED_LISTS.has(list.path[list.path.length - 1]!))) {
    rc.notes.add(MISSING_SELECTOR_NOTE);
    merged = cond(`${L}.transformList(${i}, ${e}, ${and([`${e} != null`, ...guards, `!${has({ cel: e, ptr: [] }, selector)}`])}, ${i}).size() == 0`, merged, translationLimit(MISSING_SELECTOR_NOTE));
  }
  if (!strategies.others) return merged;
  rc.notes.add(MERGE_UNKNOWN_KIND_NOTE);
  return cond(objectKindTest(strategies.knownKinds), merged, translationLimit(MERGE_UNKNOWN_KIND_NOTE));
}

/** Why the CEL fails where an element of a foreach merge lacks the key that selects it. */
const MISSING_SELECTOR_NOTE = 'a foreach strategic merge that selects each element by its own key fails in Kyverno on an element without that key ({{ element.<key> }}); the CEL fails there too';

/** Why the CEL fails on an object of a kind kyaml has no schema for. */
const MERGE_UNKNOWN_KIND_NOTE =
  'a foreach strategic merge into a list by the element\'s key is translated for the built-in kinds, whose list kyaml merges by that key; on an object of another kind the rule matches (kyaml replaces its list), the CEL fails';

/**
 * A foreach whose element is a write-through condition (write-through.ts): every iteration merges the same
 * element (its name is overwritten), so the result depends only on how many iterations run.
 */
function writeThroughLoop(rc: RuleCompiler, list: LoopList, e: string, scope: RuleScope, guards: readonly Cel[], through: WriteThroughElement | Refusal): R<Cel> {
  if (refused(through)) return through;
  if (guards.length > 1) return notYet('preconditions in a foreach whose element writes through a condition anchor');
  const s = listStrategies(rc.env.match, list.path);
  const where = list.path.join('.');
  if (s.mixed) return notYet(`the list at ${where}, which kyaml merges differently for the kinds this rule matches`);
  if (s.known && s.known.kind !== 'replace' && !(s.known.kind === 'keyed' && s.known.key === 'name')) return notYet(`condition anchors in the list at ${where}, which kyaml does not merge by name`);
  const L = paren(list.cel);
  const iterations = `${L}.filter(${e}, ${e} != null).size()`;
  let nameSubstitutes: Cel | undefined;
  if (through.name?.includes('{{')) {
    const t = rc.template(through.name, scope.with('element', e, itemType(list.type)));
    if (refused(t)) return t;
    nameSubstitutes = `${L}.all(${e}, ${e} == null || [${t}].size() == 1)`;
  }
  const env = { fresh: (b: string) => rc.fresh.next(b), ...(nameSubstitutes ? { nameSubstitutes } : {}) };
  const at = placeOf(list.path);
  const keyed = s.known?.kind === 'keyed' ? writeThroughPatches(at, through, env, iterations) : undefined;
  if (refused(keyed)) return keyed;
  const replaced = !s.known || s.known.kind === 'replace' || s.others ? writeThroughReplaced(at, through, env, iterations) : undefined;
  if (refused(replaced)) return replaced;
  if (keyed !== undefined && replaced !== undefined) return cond(objectKindTest(s.knownKinds), keyed, replaced);
  return (keyed ?? replaced)!;
}

export type { Body };

