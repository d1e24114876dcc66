/**
 * Conditions as Kyverno preconditions. A generated condition is a JMESPath boolean in a whole-string hole
 * (`key: "{{ expr }}"`, so the key keeps its boolean type: vars.go) compared with `Equals true`, written only
 * with forms Kyverno's go-jmespath fork evaluates without a NotFound error (`||` defaults, comparisons,
 * function arguments), so a missing field is false and never a rule error.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import { hole, jmesField, jmesLiteral } from './emit-text.js';

/** A JMESPath boolean expression. */
export type Condition = string;

export function preconditionsBlock(conditions: readonly Condition[]): JsonObject | undefined {
  if (conditions.length === 0) return undefined;
  return { all: conditions.map((c) => ({ key: hole(c), operator: 'Equals', value: true })) };
}

/** `field` is present in the map at `parent` (a missing or null parent counts as an empty map). */
export function hasField(parent: string, field: string): Condition {
  return `contains(keys(${parent} || \`{}\`), ${jmesLiteral(field)})`;
}

export function lacksField(parent: string, field: string): Condition {
  return `!${hasField(parent, field)}`;
}

/** The map at `element` has `key` equal (type-sensitive, as JMESPath `==` compares) to `value`. */
export function keyEquals(element: string, key: string, value: JsonValue): Condition {
  return `${element}.${jmesField(key)} == ${jmesLiteral(value)}`;
}

/** No element of the list at `list` (missing = empty) has `key` equal to `value`. */
export function noElementWithKey(list: string, key: string, value: JsonValue): Condition {
  return `length((${list} || \`[]\`)[?${jmesField(key)} == ${jmesLiteral(value)}]) == \`0\``;
}

/** `value` is not a member of the list at `list` (deep equality). */
export function notMember(list: string, value: JsonValue): Condition {
  return `!contains(${list} || \`[]\`, ${jmesLiteral(value)})`;
}
