/**
 * Named-type bookkeeping for converted schemas: which names a type refers to, and the closure of types one
 * schema must borrow from another (ObjectMeta and its dependencies from the built-in table, for a CRD).
 */
import type { Atom, Schema, TypeRef } from '../schema.js';

/** Adds to `out` every type name `atom` refers to directly (through inline atoms too, not through names). */
export function referencedNames(atom: Atom, out: Set<string>): void {
  const ref = (tr: TypeRef): void => {
    if (tr.namedType !== undefined) out.add(tr.namedType);
    if (tr.inlined !== undefined) referencedNames(tr.inlined, out);
  };
  if (atom.list !== undefined) ref(atom.list.elementType);
  if (atom.map !== undefined) {
    ref(atom.map.elementType);
    for (const f of atom.map.fields) ref(f.type);
  }
}

/**
 * The types `from` defines that are reachable from `roots`, skipping names `defined` already has (those, and
 * what they refer to, are the caller's). Names neither side defines are returned in `missing`.
 */
export function borrowTypes(
  from: Schema | undefined,
  roots: Iterable<string>,
  defined: ReadonlySet<string>,
): { borrowed: Map<string, Atom>; missing: string[] } {
  const borrowed = new Map<string, Atom>();
  const missing: string[] = [];
  const pending = [...roots];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name) || defined.has(name)) continue;
    seen.add(name);
    const atom = from?.resolve({ namedType: name });
    if (atom === undefined) {
      missing.push(name);
      continue;
    }
    borrowed.set(name, atom);
    const next = new Set<string>();
    referencedNames(atom, next);
    pending.push(...next);
  }
  return { borrowed, missing: missing.sort() };
}
