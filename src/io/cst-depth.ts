import type { CST } from 'yaml';

/**
 * Finds the first collection nested deeper than `maxDepth` in a CST document, without recursion.
 * The `yaml` package's composer recurses once per nesting level (compose-node.js `composeNode` ->
 * `composeCollection`) and overflows the stack at a depth of a few hundred, so a document is checked on its
 * CST (built iteratively by the parser) before it is composed. Returns the offset of the offending collection.
 */
export function findTooDeep(doc: CST.Document, maxDepth: number): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = [];
  if (doc.value) stack.push({ token: doc.value, depth: 0 });
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    const here = depth + 1;
    if (here > maxDepth) return token.offset;
    for (const item of token.items) {
      if (item.key) stack.push({ token: item.key, depth: here });
      if (item.value) stack.push({ token: item.value, depth: here });
    }
  }
  return undefined;
}
