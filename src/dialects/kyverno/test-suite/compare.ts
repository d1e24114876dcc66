/**
 * The patched-resource check of `kyverno test` (commands/test compare.go getAndCompareResource): find the
 * document of the patched file that is the actual resource (apiVersion, kind, namespace, name), tidy both
 * sides (drop nulls, empty maps and lists) and require equality; on a mismatch, a unified diff of both as YAML.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';
import { unifiedDiff } from '../../../io/diff.js';
import { toYaml } from '../../../io/yaml-dump.js';
import { describeDifference, jsonNormalize } from '../../../k8s/object-diff.js';
import { withDefaultNamespace } from './request.js';
import { kindOf, metadataOf } from './select.js';
import { cliDifference, tidy } from './tidy.js';

export type PatchedCheck = { ok: true } | { ok: false; reason: string; diff?: string };

/** resource.GetResourceFromPath: the document with the actual resource's apiVersion, kind, namespace and name. */
export function findPatched(docs: readonly SourceDoc[], actual: JsonObject): JsonObject | undefined {
  const md = metadataOf(actual);
  for (const d of docs) {
    if (!isJsonObject(d.value)) continue;
    const candidate = withDefaultNamespace(d.value);
    const cmd = metadataOf(candidate);
    if (kindOf(candidate) !== kindOf(actual) || (cmd.name ?? '') !== (md.name ?? '') || (cmd.namespace ?? '') !== (md.namespace ?? '')) continue;
    if (typeof candidate.apiVersion === 'string' && typeof actual.apiVersion === 'string' && candidate.apiVersion !== actual.apiVersion) continue;
    return candidate;
  }
  return undefined;
}

export function checkPatched(expected: JsonObject, actual: JsonValue, expectedName: string): PatchedCheck {
  const d = cliDifference(expected, actual);
  if (!d) return { ok: true };
  const diff = unifiedDiff(
    toYaml(tidy(jsonNormalize(expected)) ?? {}, { sortKeys: true }),
    toYaml(tidy(jsonNormalize(actual)) ?? {}, { sortKeys: true }),
    `expected (${expectedName})`,
    'actual',
  );
  return { ok: false, reason: `patched resource differs from ${expectedName}: ${describeDifference(d)}`, diff };
}
