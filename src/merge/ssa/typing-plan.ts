/**
 * Which of a node's descendants typing-check.ts writes into the node's own function and which it calls (issue
 * 17): a call per container cost about a fifth of typing a Pod, but writing a whole schema subtree into one
 * function does not stop (a PodSpec reaches a few hundred types, schemas recurse). Children are taken level
 * by level, shallowest first, while a budget of written fields lasts; a node already on the path from the
 * root, or one past the depth limit, is called instead (its own function, made on first call).
 */
import type { TypeNode } from './type-nodes.js';

/** How the check of one position (a field, a map element, a list item) is written. */
export interface Placement {
  readonly node: TypeNode;
  /** Written into the function; false: called through the node's own check. Leaves are always written. */
  inline: boolean;
  /** For an inlined map: its declared fields, in schema order. */
  fields: [name: string, placement: Placement][];
  /** For an inlined map that is not closed: its element type. */
  element: Placement | undefined;
  /** For an inlined list: its item. */
  item: Placement | undefined;
}

/** Declared fields written into one function, at most (measured on the MAP benchmark's Pods, see the test). */
export const INLINE_FIELD_BUDGET = 160;
/** Containers below the function's root written into it, at most this deep. */
export const INLINE_MAX_DEPTH = 6;

/** A node with neither a map nor a list form: its check is an expression, always written inline. */
export function isLeaf(n: TypeNode): boolean {
  return n.atom === undefined || (n.map === undefined && n.list === undefined);
}

function placement(node: TypeNode, inline: boolean): Placement {
  return { node, inline, fields: [], element: undefined, item: undefined };
}

/** The plan of `root`'s function: `root` itself inlined, its descendants as the budget allows. */
export function planTyping(root: TypeNode, budget = INLINE_FIELD_BUDGET, maxDepth = INLINE_MAX_DEPTH): Placement {
  const top = placement(root, true);
  let left = budget - (root.map?.fieldIndex.size ?? 0);
  const queue: { at: Placement; depth: number; path: readonly TypeNode[] }[] = [{ at: top, depth: 0, path: [root] }];
  // Shallowest first: a deep subtree never takes the budget of a shallower sibling's fields.
  for (let q = 0; q < queue.length; q++) {
    const { at, depth, path } = queue[q]!;
    const place = (child: TypeNode): Placement => {
      if (isLeaf(child)) return placement(child, true);
      const cost = child.map === undefined ? 1 : child.map.fieldIndex.size + 1;
      const inline = depth < maxDepth && cost <= left && !path.includes(child);
      const p = placement(child, inline);
      if (inline) {
        left -= cost;
        queue.push({ at: p, depth: depth + 1, path: [...path, child] });
      }
      return p;
    };
    const n = at.node;
    if (n.list !== undefined) at.item = place(n.item);
    if (n.map !== undefined) {
      for (const name of n.map.fieldIndex.keys()) at.fields.push([name, place(n.declaredNode(name)!)]);
      if (!n.closed) at.element = place(n.elementNode);
    }
  }
  return top;
}
