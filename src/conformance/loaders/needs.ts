import type { JsonObject } from '../../ir/json.js';
import { strings } from './common.js';

/**
 * Why a case cannot run offline, from its manifest, or undefined when it can. `offline_ok` (Kyverno CLI and
 * unit) and `usable_offline` (chainsaw) decide when present: a case that lists needs but is offline-usable
 * (targets supplied as files) runs. Without those flags, any listed need skips the case.
 */
export function needsClusterReason(manifest: JsonObject): string | undefined {
  const needs = strings(manifest.needs_cluster_or_external);
  const flag = manifest.offline_ok ?? manifest.usable_offline;
  if (flag === false) return needs.length > 0 ? `needs ${needs.join('; ')}` : `needs a cluster (manifest: ${manifest.offline_ok === false ? 'offline_ok' : 'usable_offline'}: false)`;
  if (flag === undefined && needs.length > 0) return `needs ${needs.join('; ')}`;
  return undefined;
}
