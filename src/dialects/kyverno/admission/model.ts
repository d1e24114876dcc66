/**
 * Reading a policy document the way Kyverno's Go types see it after json.Unmarshal: a missing key and JSON null
 * are Go's zero value (nil), while an empty list or map is a non-nil value (so `kinds: []` is "set" for
 * datautils.DeepEqual against an empty struct, but has length 0). Never throws: anything of the wrong type reads
 * as absent.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';

export type Path = YamlPath;

export function obj(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

export function arr(v: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/** A Go string field: "" when absent or not a string. */
export function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

export function get(o: JsonObject | undefined, key: string): JsonValue | undefined {
  return o !== undefined && hasOwn(o, key) ? o[key] : undefined;
}

/** A Go pointer, slice or map field is non-nil: the key is there and not null. */
export function isSet(o: JsonObject | undefined, key: string): boolean {
  const v = get(o, key);
  return v !== undefined && v !== null;
}

/** len(slice) of a Go slice field. */
export function len(o: JsonObject | undefined, key: string): number {
  return arr(get(o, key))?.length ?? 0;
}

export function strings(v: JsonValue | undefined): string[] {
  return (arr(v) ?? []).filter((x): x is string => typeof x === 'string');
}

/** A Go struct value is its zero value (datautils.DeepEqual(x, T{})): no field carries a non-zero value. */
export function isZeroStruct(o: JsonObject | undefined): boolean {
  if (o === undefined) return true;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === null || v === undefined || v === '' || v === 0 || v === false) continue;
    if (isJsonObject(v) && isZeroStructValue(k, v)) continue;
    return false;
  }
  return true;
}

// Nested objects in Kyverno types are either pointers/maps (non-nil when present) or embedded structs; the
// structs that embed by value and can be empty are few, and DeepEqual treats an empty map as non-nil, so an
// object counts as set unless it is empty and names a by-value struct.
const BY_VALUE_STRUCTS = new Set(['resources', 'match']);
function isZeroStructValue(key: string, v: JsonObject): boolean {
  return BY_VALUE_STRUCTS.has(key) && isZeroStruct(v);
}

/** kyvernov1.ResourceDescription equals ResourceDescription{} (validateMatchedResourceDescription, validateResources). */
export function isZeroResourceDescription(rd: JsonValue | undefined): boolean {
  const o = obj(rd);
  if (o === undefined) return true;
  for (const k of ['kinds', 'names', 'namespaces', 'operations', 'annotations', 'selector', 'namespaceSelector']) {
    if (isSet(o, k)) return false;
  }
  return str(get(o, 'name')) === '';
}

/** kyvernov1.UserInfo equals UserInfo{}: roles, clusterRoles and subjects all nil. */
export function isZeroUserInfo(o: JsonObject | undefined): boolean {
  return !isSet(o, 'roles') && !isSet(o, 'clusterRoles') && !isSet(o, 'subjects');
}

/** kyvernov1.MatchResources equals MatchResources{}. */
export function isZeroMatchResources(o: JsonObject | undefined): boolean {
  if (o === undefined) return true;
  return !isSet(o, 'any') && !isSet(o, 'all') && isZeroUserInfo(o) && isZeroResourceDescription(get(o, 'resources'));
}

export interface RuleRef {
  index: number;
  rule: JsonObject;
  path: Path;
  name: string;
}

export function rulesOf(spec: JsonObject | undefined): RuleRef[] {
  const out: RuleRef[] = [];
  (arr(get(spec, 'rules')) ?? []).forEach((r, index) => {
    const rule = obj(r);
    if (rule !== undefined) out.push({ index, rule, path: ['spec', 'rules', index], name: str(get(rule, 'name')) });
  });
  return out;
}

/** Rule.HasMutate: mutate is non-nil and not Mutation{}. */
export function hasMutate(rule: JsonObject): boolean {
  const m = obj(get(rule, 'mutate'));
  if (m === undefined) return false;
  return (
    isSet(m, 'mutateExistingOnPolicyUpdate') ||
    isSet(m, 'targets') ||
    isSet(m, 'patchStrategicMerge') ||
    str(get(m, 'patchesJson6902')) !== '' ||
    isSet(m, 'foreach')
  );
}

/** Rule.HasMutateExisting: mutate.targets is non-nil. */
export function hasMutateExisting(rule: JsonObject): boolean {
  return isSet(obj(get(rule, 'mutate')), 'targets');
}

export function hasValidate(rule: JsonObject): boolean {
  return !isZeroStruct(obj(get(rule, 'validate')));
}

export function hasGenerate(rule: JsonObject): boolean {
  return !isZeroStruct(obj(get(rule, 'generate')));
}

export function hasVerifyImages(rule: JsonObject): boolean {
  return (arr(get(rule, 'verifyImages')) ?? []).some((v) => !isZeroStruct(obj(v)));
}

/** Spec.BackgroundProcessingEnabled / AdmissionProcessingEnabled: nil means true. */
export function flagDefaultTrue(spec: JsonObject | undefined, key: string): boolean {
  return get(spec, key) !== false;
}

/** Mutation.GetPatchStrategicMerge (nil when absent or null). */
export function patchStrategicMerge(o: JsonObject | undefined): JsonValue | undefined {
  const v = get(o, 'patchStrategicMerge');
  return v === null ? undefined : v;
}

/** Every map key and string leaf of a JSON tree, in document order, with its YAML path. */
export function* walkStrings(
  v: JsonValue | undefined,
  path: Path,
): Generator<{ kind: 'key' | 'value'; text: string; path: Path; parent: Path }> {
  if (typeof v === 'string') {
    yield { kind: 'value', text: v, path, parent: path };
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield* walkStrings(v[i], [...path, i]);
  } else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      yield { kind: 'key', text: k, path: [...path, k], parent: path };
      yield* walkStrings(v[k], [...path, k]);
    }
  }
}
