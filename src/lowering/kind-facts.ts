/**
 * Paths present in every object a policy can mutate, beyond `object` and `object.metadata` (cel-guard.ts):
 * the apiserver hands MAP typed objects converted to unstructured form, where a struct-typed field is present
 * even when zero (map.md §4.1: `status: {}`), so `object.spec` is present when every matched kind's schema
 * declares `spec` as a struct.
 */
import type { KindSchema } from '../engines/ssa.js';
import { ALWAYS, keyOf, type Facts } from './cel-guard.js';

export function kindFacts(kinds: readonly KindSchema[] | undefined): Facts {
  if (!kinds || kinds.length === 0) return ALWAYS;
  const specIsStruct = kinds.every((k) => {
    const spec = k.schema.resolve(k.typeRef)?.map?.fieldIndex.get('spec');
    const atom = spec ? k.schema.resolve(spec.type) : undefined;
    return atom?.map !== undefined && atom.map.fields.length > 0 && atom.list === undefined && atom.scalar === undefined;
  });
  return specIsStruct ? new Set([...ALWAYS, keyOf('object', ['spec'])]) : ALWAYS;
}
