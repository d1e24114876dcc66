/** The `apiVersion/kind` entries of kyaml's embedded schema table (Kubernetes 1.21.2, kyverno.md §1.8 (b)). */
import type { GvkPattern } from '../../ir/match.js';
import table from './merge-keys.json' with { type: 'json' };

const TABLE_KINDS: readonly string[] = Object.keys((table as unknown as { kinds: Record<string, string> }).kinds);

/** The `apiVersion/kind` keys of the table a kind pattern can match. */
export function tableKindsMatching(k: GvkPattern): string[] {
  return TABLE_KINDS.filter((key) => {
    const slash = key.lastIndexOf('/');
    if (key.slice(slash + 1) !== k.kind) return false;
    const apiVersion = key.slice(0, slash);
    const groupEnd = apiVersion.indexOf('/');
    const group = groupEnd < 0 ? '' : apiVersion.slice(0, groupEnd);
    const version = groupEnd < 0 ? apiVersion : apiVersion.slice(groupEnd + 1);
    return (k.group === undefined || k.group === '*' || k.group === group) && (k.version === undefined || k.version === '*' || k.version === version);
  });
}
