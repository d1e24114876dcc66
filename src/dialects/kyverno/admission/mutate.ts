/**
 * pkg/policy/mutate/validate.go Mutate.Validate, run by validate.go validateActions for a mutate rule: one of
 * foreach / patchStrategicMerge / patchesJson6902, a foreach entry with exactly one patch or one nested foreach
 * (validateForEach — its `tag` accumulates across entries, as upstream's does), no celPreconditions.
 * The service-account permission checks on targets need a cluster and are not reproduced.
 * The caller prints `path: spec.rules[i].mutate.<path>.: <error>`.
 */
import type { JsonObject, JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { atKey, type Where } from './issue.js';
import { arr, get, isSet, obj, patchStrategicMerge, str } from './model.js';

export interface MutateError {
  path: string;
  message: string;
  at: Where;
}

const ONLY_ONE_PATCH = 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed';

function validateForEach(tag: string, foreach: JsonValue[], at: YamlPath): MutateError | undefined {
  for (let i = 0; i < foreach.length; i++) {
    const fe = obj(foreach[i]);
    const feAt = [...at, i];
    tag = tag + `foreach[${i}]`;
    const nested = arr(get(fe, 'foreach'));
    if (nested !== undefined && nested.length > 0) {
      for (const k of ['context', 'preconditions']) {
        if (isSet(fe, k)) return { path: tag, message: 'a nested foreach cannot contain other declarations', at: atKey([...feAt, k]) };
      }
      if (str(get(fe, 'patchesJson6902')) !== '' || patchStrategicMerge(fe) !== undefined) {
        const k = str(get(fe, 'patchesJson6902')) !== '' ? 'patchesJson6902' : 'patchStrategicMerge';
        return { path: tag, message: 'a nested foreach cannot contain other declarations', at: atKey([...feAt, k]) };
      }
      // Upstream returns the nested list's result: later siblings are not checked.
      return validateForEach(tag, nested, [...feAt, 'foreach']);
    }
    const hasJson = str(get(fe, 'patchesJson6902')) !== '';
    const hasSmp = patchStrategicMerge(fe) !== undefined;
    if (hasJson === hasSmp) {
      return { path: tag, message: ONLY_ONE_PATCH, at: atKey(hasJson ? [...feAt, 'patchesJson6902'] : feAt) };
    }
  }
  return undefined;
}

/** Mutate.Validate for the rule at `at` (only called when the rule has a mutate block). */
export function validateMutate(rule: JsonObject, at: YamlPath): MutateError | undefined {
  const m = obj(get(rule, 'mutate'));
  const mAt = [...at, 'mutate'];
  const foreach = arr(get(m, 'foreach')) ?? [];
  const hasSmp = patchStrategicMerge(m) !== undefined;
  const hasJson = str(get(m, 'patchesJson6902')) !== '';
  if (foreach.length > 0) {
    if (hasSmp || hasJson) {
      return {
        path: 'foreach',
        message: 'only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed',
        at: atKey([...mAt, hasSmp ? 'patchStrategicMerge' : 'patchesJson6902']),
      };
    }
    return validateForEach('', foreach, [...mAt, 'foreach']);
  }
  if (hasJson && hasSmp) return { path: 'foreach', message: ONLY_ONE_PATCH, at: atKey([...mAt, 'patchesJson6902']) };
  if (isSet(rule, 'celPreconditions')) {
    return { path: '', message: 'celPrecondition can only be used with validate.cel', at: atKey([...at, 'celPreconditions']) };
  }
  return undefined;
}
