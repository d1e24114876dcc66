/**
 * Whether Kyverno's strategic merge replaces a list wholesale. kyaml merges a list by key only where the
 * resource's schema (its embedded Kubernetes 1.21.2 OpenAPI, looked up by exact apiVersion and kind) gives
 * the field a `merge` patch strategy; every other list, and every list of a kind kyaml does not know, is
 * replaced by the patch's (kyverno.md §1.8 (b); src/merge/smp/schema.ts). A replaced list is a plain set.
 */
import type { GvkPattern, MatchSpec } from '../../ir/match.js';
import type { Segment } from '../../ir/path.js';
import { schemaForResourceType, type SmpSchema } from '../../merge/smp/schema.js';
import table from '../../merge/smp/merge-keys.json' with { type: 'json' };

const KIND_KEYS: readonly string[] = Object.keys((table as unknown as { kinds: Record<string, string> }).kinds);

/** The `apiVersion/kind` keys of kyaml's table a pattern can match. */
function candidates(k: GvkPattern): string[] {
  return KIND_KEYS.filter((key) => {
    const slash = key.lastIndexOf('/');
    if (key.slice(slash + 1) !== k.kind) return false;
    const apiVersion = key.slice(0, slash);
    const groupEnd = apiVersion.indexOf('/');
    const group = groupEnd < 0 ? '' : apiVersion.slice(0, groupEnd);
    const version = groupEnd < 0 ? apiVersion : apiVersion.slice(groupEnd + 1);
    return (k.group === undefined || k.group === '*' || k.group === group) && (k.version === undefined || k.version === '*' || k.version === version);
  });
}

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
    for (const key of candidates(k)) {
      const slash = key.lastIndexOf('/');
      if (isMergeList(schemaForResourceType(key.slice(0, slash), key.slice(slash + 1)), segs)) return false;
    }
  }
  return true;
}
