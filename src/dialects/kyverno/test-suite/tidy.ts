/**
 * `kyverno test`'s comparison of a patched resource (cmd/cli/kubectl-kyverno/test: tidy both sides, then
 * jsonpatch.CreateMergePatch must be "{}"): after tidying no nulls are left, so an empty merge patch is exactly
 * deep equality.
 */
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { firstDifference, jsonNormalize, type Difference } from '../../../k8s/object-diff.js';

export function cliDifference(expected: JsonValue | undefined, actual: JsonValue | undefined): Difference | undefined {
  return firstDifference(tidy(jsonNormalize(expected)), tidy(jsonNormalize(actual)));
}

/**
 * `kyverno test`'s tidy: recursively drops null values and maps and lists that are (or become) empty.
 * Returns undefined when nothing is left.
 */
export function tidy(v: JsonValue | undefined): JsonValue | undefined {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const item of v) {
      const t = tidy(item);
      if (t !== undefined) out.push(t);
    }
    return out.length === 0 ? undefined : out;
  }
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    let any = false;
    for (const k of Object.keys(v)) {
      const t = tidy(v[k]);
      if (t === undefined) continue;
      defineOwn(out, k, t);
      any = true;
    }
    return any ? out : undefined;
  }
  return v;
}
