/**
 * kaptest's expectObject check (pfnet/kaptest internal/tester/tester.go newMutationParams, result.go
 * mapEvalResult.Pass): expectObject takes the object's name unless `disableNameOverwrite`, then both are
 * converted to typed objects and compared with equality.Semantic.DeepEqual, which treats nil and empty maps and
 * lists alike. Here: nulls and creationTimestamp dropped, and for built-in kinds empty maps and lists too
 * (conformance/compare.ts `map-typed`); custom kinds compare untyped. On a mismatch, a unified diff as YAML.
 */
import { compareObjects, describeDifference, normalizeMapObject } from '../../../conformance/compare.js';
import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { unifiedDiff } from '../../../io/diff.js';
import { toYaml } from '../../../io/yaml-dump.js';
import { lookupKind, parseApiVersion } from '../../../k8s/resources.js';

export type ExpectCheck = { ok: true } | { ok: false; reason: string; diff: string };

/** expectObject as kaptest compares it: renamed to the object's name unless disableNameOverwrite. */
export function expectedObject(expect: JsonObject, object: JsonObject, disableNameOverwrite: boolean): JsonObject {
  if (disableNameOverwrite) return expect;
  const name = isJsonObject(object.metadata) ? object.metadata.name : undefined;
  const out = copyObject(expect);
  const md = isJsonObject(expect.metadata) ? copyObject(expect.metadata) : {};
  if (typeof name === 'string') md.name = name;
  else delete md.name;
  out.metadata = md;
  return out;
}

function isBuiltin(o: JsonObject): boolean {
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return false;
  return lookupKind(parseApiVersion(o.apiVersion).group, o.kind) !== undefined;
}

export function checkExpectObject(expected: JsonObject, actual: JsonValue | null | undefined, expectedName: string): ExpectCheck {
  const typed = isBuiltin(expected);
  const d = compareObjects(typed ? 'map-typed' : 'map-untyped', expected, actual ?? undefined);
  if (!d) return { ok: true };
  const diff = unifiedDiff(
    toYaml(normalizeMapObject(expected, typed) ?? {}, { sortKeys: true }),
    toYaml(normalizeMapObject(actual ?? undefined, typed) ?? {}, { sortKeys: true }),
    `expected (${expectedName})`,
    'actual',
  );
  return { ok: false, reason: `mutated object differs from expectObject ${expectedName}: ${describeDifference(d)}`, diff };
}
