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
import { concat, fieldPlace, one, paren, patch, ROOT, type Cel, type Pointer } from './cel-patch.js';
import { ensureContainers, type ContainerTree } from './foreach-containers.js';
import { isIndexText, type LoopStep } from './json-patch.js';
import { refused } from './rule.js';

type R<T> = T | Refusal;

/** A container the steps add under: a map or a list, below the fixed tokens leading to it. */
interface Container extends ContainerTree {
  readonly kind: 'map' | 'list';
  readonly children: Map<string, Container>;
}

/** One iteration's adds, and the containers to make before the loop, from the steps of the patch. */
export function outsideElementAdds(steps: readonly LoopStep[]): R<{ each: Cel; containers: Cel }> {
  const root: Container = { place: ROOT, kind: 'map', children: new Map() };
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
    for (const s of segs.slice(0, -1)) {
      if (!('text' in s) || isIndexText(s.text) || /^-\d*$/.test(s.text)) return notYet('a foreach JSON patch through a list element outside the iterated element');
      above.push(s.text);
    }
    if ('index' in last) return notYet('a foreach JSON patch adding at an element index outside the iterated element');
    if ('text' in last && last.text !== '-' && (isIndexText(last.text) || /^-\d+$/.test(last.text))) return notYet(`the list position ${last.text} in a foreach JSON patch outside the iterated element`);
    const appends = 'text' in last && last.text === '-';
    const parent = need(root, above, appends ? 'list' : 'map');
    if (refused(parent)) return parent;
    let ptr: Pointer;
    if ('pointer' in last) ptr = [...parent.place.ptr, '/', { cel: paren(last.pointer) }];
    else if (appends) ptr = [...parent.place.ptr, '/-'];
    else {
      ptr = fieldPlace(parent.place, last.text).ptr;
      written.push([...above, last.text]);
    }
    parents.push(above);
    adds.push(one(patch('add', ptr, step.value!)));
  }
  for (const w of written) {
    if (parents.some((p) => p.length >= w.length && w.every((t, k) => p[k] === t))) return notYet(`a foreach JSON patch that writes /${w.join('/')} and adds under it`);
  }
  return { each: concat(adds), containers: ensureContainers(root) };
}

/** Records that the container at `path` below `root` must be a `kind`, the ones above it maps. */
function need(root: Container, path: readonly string[], kind: Container['kind']): R<Container> {
  if (path.length === 0 && kind === 'list') return notYet('a foreach JSON patch appending to the root');
  let at = root;
  for (const [k, t] of path.entries()) {
    const want = k === path.length - 1 ? kind : 'map';
    let child = at.children.get(t);
    if (child === undefined) at.children.set(t, (child = { place: fieldPlace(at.place, t), kind: want, children: new Map() }));
    else if (child.kind !== want) return notYet(`a foreach JSON patch that adds to /${path.slice(0, k + 1).join('/')} both as a map and as a list`);
    at = child;
  }
  return at;
}
