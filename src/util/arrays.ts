/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as an argument, and V8
 * overflows the stack past about 100,000 of them: a file of 185,000 documents, or as many diagnostics, must not
 * turn into "Maximum call stack size exceeded".
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
