/**
 * Condition checks of validate.go validateResources: rule preconditions (validateConditions, then
 * validateRawJSONConditionOperator) and mutate.foreach preconditions (validateMutationForEach, operators only).
 * Each returns upstream's (path, error) pair: the caller prints `path: spec.rules[i].<path>: <error>`.
 *
 * Deprecated operators (In, NotIn) are accepted: upstream only warns about them, and only for validate and
 * verifyImages rules (checkForDeprecatedOperatorsInRule).
 */
import type { JsonObject, JsonValue } from '../../../ir/json.js';
import type { YamlPath } from '../../../io/source.js';
import { goQuotedSlice, goKindName, goTypeName } from './go-format.js';
import { atValue, type Where } from './issue.js';
import { arr, get, obj, str } from './model.js';
import { OPERATORS } from '../operators.js';

export interface PathError {
  path: string;
  message: string;
  at: Where;
}

/**
 * operator.GetAllConditionOperators ranges over a Go map, so upstream lists these in a random order; this is
 * the declaration order of kyvernov1.ConditionOperators.
 */
export const CONDITION_OPERATORS: readonly string[] = OPERATORS;

const OPERATION_VALUES = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const ONLY_OPERATIONS = 'Only the following values are allowed: [CREATE, UPDATE, DELETE, CONNECT]';

/** validateConditionValuesKeyRequestOperation. */
function requestOperationValues(c: JsonObject, at: YamlPath): PathError | undefined {
  const v = get(c, 'value');
  if (typeof v === 'string') {
    if (v.length >= 4 && v.startsWith('{{') && v.endsWith('}}')) return undefined;
    if (!OPERATION_VALUES.has(v)) {
      return { path: `value: ${v}`, message: `unknown value '${v}' found under the 'value' field. ${ONLY_OPERATIONS}`, at: atValue([...at, 'value']) };
    }
    return undefined;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (typeof item !== 'string') {
        return {
          path: `value[${i}]`,
          message: `'value[${i}]' found to be of the type ${goTypeName(item)}. The provided values are expected to be strings`,
          at: atValue([...at, 'value', i]),
        };
      }
      if (!OPERATION_VALUES.has(item)) {
        return { path: `value[${i}]`, message: `unknown value '${item}' found under the 'value' field. ${ONLY_OPERATIONS}`, at: atValue([...at, 'value', i]) };
      }
    }
    return undefined;
  }
  return {
    path: 'value',
    message: `'value' field found to be of the type ${goKindName(v)}. The provided value/values are expected to be either in the form of a string or list`,
    at: atValue([...at, 'value']),
  };
}

/** validateConditionValues. */
function conditionValues(c: JsonObject | undefined, at: YamlPath): PathError | undefined {
  const k = get(c, 'key');
  const v = get(c, 'value');
  if (k === undefined || k === null || v === undefined || v === null || str(get(c, 'operator')) === '') {
    return { path: '', message: 'entered value of `key`, `value` or `operator` is missing or misspelled', at: atValue(at) };
  }
  if (typeof k === 'string' && c !== undefined && k.replaceAll(' ', '') === '{{request.operation}}') return requestOperationValues(c, at);
  return undefined;
}

/** validateOperator. */
function operatorError(c: JsonObject | undefined, at: YamlPath): Omit<PathError, 'path'> | undefined {
  const op = str(get(c, 'operator'));
  if (CONDITION_OPERATORS.includes(op)) return undefined;
  return {
    message: `entered value of \`operator\` is invalid. valid values: ${goQuotedSlice(CONDITION_OPERATORS)}`,
    at: get(c, 'operator') === undefined ? atValue(at) : atValue([...at, 'operator']),
  };
}

/** The ConditionsWrapper reading of `preconditions`: the deprecated list, or an any/all block. */
function isAnyAll(conditions: JsonValue | undefined): conditions is JsonObject {
  return obj(conditions) !== undefined;
}

/** validateConditions(target, schemaKey) then validateRawJSONConditionOperator(target, schemaKey). */
export function validateConditionBlock(conditions: JsonValue | undefined, schemaKey: string, at: YamlPath): PathError | undefined {
  if (isAnyAll(conditions)) {
    for (const block of ['any', 'all'] as const) {
      const list = arr(get(conditions, block));
      if (list === undefined) continue;
      for (let i = 0; i < list.length; i++) {
        const err = conditionValues(obj(list[i]), [...at, block, i]);
        if (err) return { ...err, path: `${schemaKey}.${block}[${i}].${err.path}` };
      }
    }
  } else {
    const list = arr(conditions) ?? [];
    for (let i = 0; i < list.length; i++) {
      const err = conditionValues(obj(list[i]), [...at, i]);
      if (err) return { ...err, path: `${schemaKey}[${i}].${err.path}` };
    }
  }
  return validateConditionOperators(conditions, schemaKey, at);
}

/** validateRawJSONConditionOperator / validateAnyAllConditionOperator. Upstream prints `any[i]` for `all` too. */
export function validateConditionOperators(conditions: JsonValue | undefined, schemaKey: string, at: YamlPath): PathError | undefined {
  if (isAnyAll(conditions)) {
    for (const block of ['any', 'all'] as const) {
      const list = arr(get(conditions, block));
      if (list === undefined) continue;
      for (let i = 0; i < list.length; i++) {
        const err = operatorError(obj(list[i]), [...at, block, i]);
        if (err) return { ...err, path: `${schemaKey}.any[${i}].` };
      }
    }
    return undefined;
  }
  const list = arr(conditions) ?? [];
  for (let i = 0; i < list.length; i++) {
    const err = operatorError(obj(list[i]), [...at, i]);
    if (err) return { ...err, path: `${schemaKey}[${i}].` };
  }
  return undefined;
}

/** validateMutationForEach: foreach preconditions' operators, recursing into nested foreach lists. */
export function validateMutationForEach(foreach: JsonValue[], schemaKey: string, at: YamlPath): PathError | undefined {
  for (let i = 0; i < foreach.length; i++) {
    const fe = obj(foreach[i]);
    const pre = get(fe, 'preconditions');
    if (pre !== undefined && pre !== null && obj(pre) !== undefined) {
      const err = validateConditionOperators(pre, 'conditions', [...at, i, 'preconditions']);
      if (err) return { ...err, path: `${schemaKey}.${err.path}` };
    }
    const nested = arr(get(fe, 'foreach'));
    if (nested !== undefined && nested.length > 0) {
      const err = validateMutationForEach(nested, schemaKey, [...at, i, 'foreach']);
      if (err) return { ...err, path: `${schemaKey}.${err.path}` };
    }
  }
  return undefined;
}
