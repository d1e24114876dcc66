/**
 * MAP's atomic guard (apiserver patch/smd.go validatePatch / findAtomics): an ApplyConfiguration may not
 * contain a map value at an atomic map/struct position nor a list value at an atomic list position, even to
 * set a brand-new value, because the merge would replace the whole atomic value.
 */
import { hasOwn, type JsonValue } from '../../ir/json.js';
import { setsNoAtomic } from './fast-checks.js';
import type { Schema, TypeRef } from './schema.js';

/**
 * Paths (SMD path strings: `.spec.selector`, `.spec.initContainers[0].args`) of every atomic container the
 * patch sets, in document order. Upstream recurses into declared struct fields only (never into a map's
 * element type) and into every list item, addressing items by their index in the patch; an atomic
 * container is reported and still descended into, so nested atomics are reported too. Null values are not
 * containers and are never reported.
 */
export function atomicGuard(schema: Schema, typeRef: TypeRef, patch: JsonValue): string[] {
  if (setsNoAtomic(schema.node(typeRef), patch)) return [];
  return atomicPaths(schema, typeRef, patch);
}

/** The reference walk of atomicGuard, which renders the paths (fast-checks.ts only answers yes or no). */
export function atomicPaths(schema: Schema, typeRef: TypeRef, patch: JsonValue): string[] {
  const found: string[] = [];
  findAtomics(schema, typeRef, patch, [], found);
  return found;
}

/** The guard's error text without the "invalid ApplyConfiguration: " prefix. */
export function atomicGuardMessage(paths: readonly string[]): string {
  return `may not mutate atomic arrays, maps or structs: ${paths.join(', ')}`;
}

/** `path` is a stack of field names and list indices, rendered only for what is found. */
function findAtomics(schema: Schema, tr: TypeRef, v: JsonValue, path: (string | number)[], found: string[]): void {
  if (v === null || typeof v !== 'object') return;
  const atom = schema.resolve(tr);
  if (atom === undefined) return;
  // Unlike the merge, the guard does not pick one form of a multi-form atom: it tests the raw atom.
  if (!Array.isArray(v)) {
    const t = atom.map;
    if (t === undefined) return;
    if (t.elementRelationship === 'atomic') found.push(render(path));
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const field = t.fieldIndex.get(key);
      if (field === undefined) continue;
      path.push(key);
      findAtomics(schema, field.type, v[key]!, path, found);
      path.pop();
    }
    return;
  }
  const t = atom.list;
  if (t === undefined) return;
  if (t.elementRelationship === 'atomic') found.push(render(path));
  for (let i = 0; i < v.length; i++) {
    path.push(i);
    findAtomics(schema, t.elementType, v[i]!, path, found);
    path.pop();
  }
}

function render(path: readonly (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : `.${p}`;
  return s;
}
