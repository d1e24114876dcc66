/**
 * validate.go ruleOnlyDealsWithResourceMetaData (a rule without kinds, or with the `*` kind, may only touch
 * metadata) and isLabelAndAnnotationsString (labels and annotations written by a patch must be strings).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { jsonOnlyPaths } from './jsonpatch.js';
import { arr, get, hasMutate, hasValidate, obj, patchStrategicMerge, str } from './model.js';

/** ruleOnlyDealsWithResourceMetaData. */
export function ruleOnlyDealsWithResourceMetaData(rule: JsonObject): boolean {
  const mutate = obj(get(rule, 'mutate'));
  if (mutate !== undefined) {
    const psm = obj(patchStrategicMerge(mutate));
    if (psm !== undefined && Object.keys(psm).some((k) => k !== 'metadata')) return false;
    const patch = str(get(mutate, 'patchesJson6902'));
    // Upstream decodes the text as JSON: a YAML patch does not decode and is not looked at.
    if (patch !== '' && jsonOnlyPaths(patch).some((p) => !p.startsWith('/metadata'))) return false;
  }
  const validate = obj(get(rule, 'validate'));
  if (validate !== undefined) {
    const pattern = obj(get(validate, 'pattern'));
    if (pattern !== undefined && Object.keys(pattern).some((k) => k !== 'metadata')) return false;
    const anyPattern = get(validate, 'anyPattern');
    if (anyPattern !== undefined && anyPattern !== null) {
      if (!Array.isArray(anyPattern)) return false;
      for (const p of anyPattern) {
        const o = obj(p);
        if (o !== undefined && Object.keys(o).some((k) => k !== 'metadata')) return false;
      }
    }
  }
  return true;
}

/** isMapStringString. */
function allStrings(m: JsonObject): boolean {
  return Object.values(m).every((v) => typeof v === 'string');
}

/** checkLabelAnnotation over a metadata map. */
function labelsAndAnnotationsAreStrings(meta: JsonObject | undefined): boolean {
  if (meta === undefined) return true;
  for (const k of ['labels', 'annotations']) {
    const m = obj(get(meta, k));
    if (m !== undefined && !allStrings(m)) return false;
  }
  return true;
}

/**
 * checkMetadata. Upstream ranges over the pattern's keys in Go's random map order and returns on the first of
 * `metadata` or `spec` it meets, so a pattern with both may be checked either way; this rejects when either
 * check fails.
 */
function checkMetadata(pattern: JsonObject): boolean {
  let ok = true;
  if (Object.prototype.hasOwnProperty.call(pattern, 'metadata') && isJsonObject(pattern.metadata as JsonValue)) {
    ok &&= labelsAndAnnotationsAreStrings(obj(pattern.metadata));
  }
  if (Object.prototype.hasOwnProperty.call(pattern, 'spec')) {
    ok &&= labelsAndAnnotationsAreStrings(obj(get(obj(get(obj(get(pattern, 'spec')), 'template')), 'metadata')));
  }
  return ok;
}

/** isLabelAndAnnotationsString. */
export function isLabelAndAnnotationsString(rule: JsonObject): boolean {
  if (hasValidate(rule)) {
    const v = obj(get(rule, 'validate'));
    const foreach = arr(get(v, 'foreach'));
    if (foreach !== undefined) {
      for (const fe of foreach) {
        const p = obj(get(obj(fe), 'pattern'));
        if (p !== undefined) return checkMetadata(p);
      }
    } else {
      const p = obj(get(v, 'pattern'));
      if (p !== undefined) return checkMetadata(p);
      const anyPattern = get(v, 'anyPattern');
      if (anyPattern !== undefined && anyPattern !== null) {
        if (!Array.isArray(anyPattern)) return false;
        for (const ap of anyPattern) {
          const o = obj(ap);
          if (o !== undefined && !checkMetadata(o)) return false;
        }
      }
    }
  }
  if (hasMutate(rule)) {
    const m = obj(get(rule, 'mutate'));
    const foreach = arr(get(m, 'foreach'));
    if (foreach !== undefined) {
      for (const fe of foreach) {
        const p = obj(patchStrategicMerge(obj(fe)));
        if (p !== undefined) return checkMetadata(p);
      }
    } else {
      const p = obj(patchStrategicMerge(m));
      if (p !== undefined) return checkMetadata(p);
    }
  }
  return true;
}

/** Where in a patch (at `at`) the first non-string label or annotation value is, for the diagnostic's span. */
export function nonStringLabelPath(pattern: JsonValue | undefined, at: (string | number)[]): (string | number)[] | undefined {
  const p = obj(pattern);
  if (p === undefined) return undefined;
  const metas: [JsonObject | undefined, (string | number)[]][] = [
    [obj(get(p, 'metadata')), [...at, 'metadata']],
    [obj(get(obj(get(obj(get(p, 'spec')), 'template')), 'metadata')), [...at, 'spec', 'template', 'metadata']],
  ];
  for (const [meta, metaAt] of metas) {
    for (const k of ['labels', 'annotations']) {
      const m = obj(get(meta, k));
      if (m === undefined) continue;
      const bad = Object.keys(m).find((key) => typeof m[key] !== 'string');
      if (bad !== undefined) return [...metaAt, k, bad];
    }
  }
  return undefined;
}
