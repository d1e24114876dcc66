/**
 * MAP's atomic guard (apiserver patch/smd.go validatePatch / findAtomics): an ApplyConfiguration may not
 * contain a map value at an atomic map/struct position nor a list value at an atomic list position, even to
 * set a brand-new value, because the merge would replace the whole atomic value.
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { Schema, TypeRef } from './schema.js';

/**
 * Paths (SMD path strings: `.spec.selector`, `.spec.initContainers[0].args`) of every atomic container the
 * patch sets, in document order. Upstream recurses into declared struct fields only (never into a map's
 * element type) and into every list item, addressing items by their index in the patch; an atomic
 * container is reported and still descended into, so nested atomics are reported too. Null values are not
 * containers and are never reported.
 */
export function atomicGuard(schema: Schema, typeRef: TypeRef, patch: JsonValue): string[] {
  const found: string[] = [];
  findAtomics(schema, typeRef, patch, '', found);
  return found;
}

/** The guard's error text without the "invalid ApplyConfiguration: " prefix. */
export function atomicGuardMessage(paths: readonly string[]): string {
  return `may not mutate atomic arrays, maps or structs: ${paths.join(', ')}`;
}

function findAtomics(schema: Schema, tr: TypeRef, v: JsonValue, path: string, found: string[]): void {
  const atom = schema.resolve(tr);
  if (atom === undefined) return;
  // Unlike the merge, the guard does not pick one form of a multi-form atom: it tests the raw atom.
  if (isJsonObject(v) && atom.map !== undefined) {
    const t = atom.map;
    if (t.elementRelationship === 'atomic') found.push(path);
    for (const key of Object.keys(v)) {
      const field = t.fieldIndex.get(key);
      if (field !== undefined) findAtomics(schema, field.type, v[key]!, `${path}.${key}`, found);
    }
  }
  if (Array.isArray(v) && atom.list !== undefined) {
    const t = atom.list;
    if (t.elementRelationship === 'atomic') found.push(path);
    for (let i = 0; i < v.length; i++) findAtomics(schema, t.elementType, v[i]!, `${path}[${i}]`, found);
  }
}
