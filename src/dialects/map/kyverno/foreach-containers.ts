/**
 * The maps and lists a foreach's writes go into, outside the iterated element. Kyverno creates a missing one at
 * the first write under it (a strategic merge creates the maps on the way; json-patch v5's EnsurePathExistsOnAdd
 * the maps and lists), and the iterations after find it. The translation makes every missing one once, before
 * the loop, where some element passes: each iteration then writes into containers that exist.
 */
import { celString, concat, cond, has, NONE, one, paren, patch, type Cel, type Place } from './cel-patch.js';

/** A container on the way to the loop's writes; `kind` list only for one that is appended to. */
export interface ContainerTree {
  readonly place: Place;
  readonly kind?: 'map' | 'list';
  readonly children: ReadonlyMap<string, ContainerTree>;
}

/** The patches making every container of `node`'s tree that the object lacks. */
export function ensureContainers(node: ContainerTree): Cel {
  const parts: Cel[] = [];
  for (const [key, child] of node.children) parts.push(cond(has(node.place, key), ensureContainers(child), one(patch('add', child.place.ptr, skeleton(child)))));
  return parts.length === 0 ? NONE : concat(parts);
}

/** The container `node` as a new value: empty, but for the maps and lists below it that lead to writes. */
function skeleton(node: ContainerTree): Cel {
  if (node.kind === 'list') return '[]';
  return `{${[...node.children].map(([key, child]) => `${celString(key)}: ${skeleton(child)}`).join(', ')}}`;
}

/**
 * The loop over `list` (element `e`, index `i`): the containers made where some element passes `passes`, then
 * the writes `each` of every passing element, in the loop's order.
 */
export function containersThenLoop(list: Cel, e: string, i: string, passes: Cel, containers: Cel, each: Cel, order: 'asc' | 'desc'): Cel {
  const L = paren(list);
  const comprehension = `${L}.transformList(${i}, ${e}, ${passes}, ${each})`;
  const loop = order === 'desc' ? `${comprehension}.reverse().flatten()` : `${comprehension}.flatten()`;
  return concat([cond(`${L}.exists(${i}, ${e}, ${passes})`, containers), loop]);
}
