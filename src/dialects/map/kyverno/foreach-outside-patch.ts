/**
 * A foreach JSON patch whose steps write outside the iterated element (annotate-base-images:
 * `/metadata/annotations/kyverno.io~1baseimages{{elementIndex}}`). Kyverno applies each iteration's patch to
 * what the iterations before it left (handlers/mutation/common.go mutateElements), with json-patch v5 and
 * EnsurePathExistsOnAdd: the first `add` under a missing map or list creates it, later ones find it. Taken
 * where every step is an `add` into a map (a fixed key, or one holding substituted text) or onto the end of a
 * list (`-`), below fixed map keys: the containers on the way are made once, before the loop, where some
 * iteration runs (each run adds under them, so Kyverno creates them then too), and each iteration's adds are
 * then plain v4 adds, which replace a key that is there as v5 does. What each iteration computes reads the
 * object as the rule found it, as Kyverno's context does (its `request.object` is not the patched resource).
 * Refused: removes and replaces (they would test places earlier iterations change), paths through list
 * elements, a container asked for as both a map and a list, a step writing a container another step writes
 * under, and a nested foreach (its loop runs once per outer element, each after the outer ones before).
 */
import { notYet, type Refusal } from '../../generate-report.js';
import { concat, cond, fieldPlace, has, NONE, one, paren, patch, ROOT, type Cel, type Place, type Pointer } from './cel-patch.js';
import { isIndexText, type LoopStep } from './json-patch.js';
import { refused } from './rule.js';

type R<T> = T | Refusal;

/** The containers the steps add under: each a map or a list, keyed by the fixed tokens leading to it. */
interface Container {
  kind: 'map' | 'list';
  readonly children: Map<string, Container>;
}

/** One iteration's adds, and the containers to make before the loop, from the steps of the patch. */
export function outsideElementAdds(steps: readonly LoopStep[]): R<{ each: Cel; containers: Cel }> {
  const root: Container = { kind: 'map', children: new Map() };
  // Fixed places the steps write whole: no other step may add under one.
  const written: string[][] = [];
  const parents: string[][] = [];
  const adds: Cel[] = [];
  for (const step of steps) {
    if (step.op !== 'add') return notYet(`a foreach JSON patch that ${step.op}s outside the iterated element`);
    const segs = step.segs;
    const last = segs[segs.length - 1];
    if (last === undefined) return notYet('a foreach JSON patch step at the root');
    const above: string[] = [];
    let parent: Place = ROOT;
    for (const s of segs.slice(0, -1)) {
      if (!('text' in s) || isIndexText(s.text) || /^-\d*$/.test(s.text)) return notYet('a foreach JSON patch through a list element outside the iterated element');
      above.push(s.text);
      parent = fieldPlace(parent, s.text);
    }
    let ptr: Pointer;
    let kind: Container['kind'] = 'map';
    if ('pointer' in last) ptr = [...parent.ptr, '/', { cel: paren(last.pointer) }];
    else if ('index' in last) return notYet('a foreach JSON patch adding at an element index outside the iterated element');
    else if (last.text === '-') {
      kind = 'list';
      ptr = [...parent.ptr, '/-'];
    } else if (isIndexText(last.text) || /^-\d+$/.test(last.text)) return notYet(`the list position ${last.text} in a foreach JSON patch outside the iterated element`);
    else {
      ptr = fieldPlace(parent, last.text).ptr;
      written.push([...above, last.text]);
    }
    const made = need(root, above, kind);
    if (refused(made)) return made;
    parents.push(above);
    adds.push(one(patch('add', ptr, step.value!)));
  }
  for (const w of written) {
    if (parents.some((p) => p.length >= w.length && w.every((t, k) => p[k] === t))) return notYet(`a foreach JSON patch that writes /${w.join('/')} and adds under it`);
  }
  return { each: concat(adds), containers: ensure(ROOT, root) };
}

/** Records that the container at `path` below `root` must be a `kind`, the ones above it maps. */
function need(root: Container, path: readonly string[], kind: Container['kind']): R<Container> {
  let at = root;
  for (const [k, t] of path.entries()) {
    const want = k === path.length - 1 ? kind : 'map';
    let child = at.children.get(t);
    if (child === undefined) at.children.set(t, (child = { kind: want, children: new Map() }));
    else if (child.kind !== want || (want === 'list' && k < path.length - 1)) return notYet(`a foreach JSON patch that adds to /${path.slice(0, k + 1).join('/')} both as a map and as a list`);
    at = child;
  }
  if (path.length === 0 && kind === 'list') return notYet('a foreach JSON patch appending to the root');
  return at;
}

/** The patches making every container of `node`'s tree that the object lacks below `at`. */
function ensure(at: Place, node: Container): Cel {
  const parts: Cel[] = [];
  for (const [t, child] of node.children) {
    const here = fieldPlace(at, t);
    parts.push(cond(has(at, t), ensure(here, child), one(patch('add', here.ptr, skeleton(child)))));
  }
  return parts.length === 0 ? NONE : concat(parts);
}

/** The container `node` as a new, empty value holding its descendants. */
function skeleton(node: Container): Cel {
  if (node.kind === 'list') return '[]';
  const members = [...node.children].map(([t, child]) => `${JSON.stringify(t)}: ${skeleton(child)}`);
  return `{${members.join(', ')}}`;
}

/** The loop: containers made once where some element passes, then every passing element's adds in order. */
export function outsideElementLoop(list: Cel, e: string, i: string, filter: Cel, adds: { each: Cel; containers: Cel }, descending: boolean): Cel {
  const L = paren(list);
  const comprehension = `${L}.transformList(${i}, ${e}, ${filter}, ${adds.each})`;
  const loop = descending ? `${comprehension}.reverse().flatten()` : `${comprehension}.flatten()`;
  const someRuns = `size(${L}.transformList(${i}, ${e}, ${filter}, 0)) > 0`;
  return concat([cond(someRuns, adds.containers), loop]);
}
