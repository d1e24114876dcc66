/**
 * Whether Kyverno's strategic merge replaces a list wholesale. kyaml merges a list by key only where the
 * resource's schema (its embedded Kubernetes 1.21.2 OpenAPI, looked up by exact apiVersion and kind) gives
 * the field a `merge` patch strategy; every other list, and every list of a kind kyaml does not know, is
 * replaced by the patch's (kyverno.md §1.8 (b); src/merge/smp/schema.ts). A replaced list is a plain set.
 */
import { tableKindsMatching } from '../../merge/smp/table-kinds.js';
import type { MatchSpec } from '../../ir/match.js';
import type { Segment } from '../../ir/path.js';
import { schemaForResourceType, type SmpSchema } from '../../merge/smp/schema.js';


function isMergeList(schema: SmpSchema | null, segs: readonly Segment[]): boolean {
  let s = schema;
  for (const seg of segs) {
    if (!s || seg.kind !== 'field') return false;
    s = s.fields?.get(seg.name) ?? s.values ?? null;
  }
  return s?.merge !== undefined;
}

/**
 * True when the list at `segs` is replaced for every kind the match admits: no kind kyaml knows under these
 * patterns merges it. A match without kinds, or with a `*` kind, admits kinds whose lists merge.
 */
export function smpReplacesList(match: MatchSpec, segs: readonly Segment[]): boolean {
  const kinds = [...(match.any ?? []), ...(match.all ?? [])].flatMap((c) => c.kinds ?? []);
  if (kinds.length === 0 || kinds.some((k) => k.kind === '*' || /[*?]/.test(k.kind))) return false;
  for (const k of kinds) {
    for (const key of tableKindsMatching(k)) {
      const slash = key.lastIndexOf('/');
      if (isMergeList(schemaForResourceType(key.slice(0, slash), key.slice(slash + 1)), segs)) return false;
    }
  }
  return true;
}
