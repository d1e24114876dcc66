/**
 * A preconditions block of the commonest shape generated as one function (issue 17): every condition's key a
 * constant or one hole reading a field of the object (`{{ request.object.metadata.labels.tier }}`, also with
 * `|| '<default>'` or as `length(...)`) or the operation (`{{ request.operation }}`, also with a default),
 * every value a constant, every operator known. Its answer is the planned evaluation's (preconditions.ts
 * compileConditionPlan) wherever every field is found and not null (or falls back to its default): the keys'
 * values are then the queries' values (a whole hole is its query's value), and the conditions are the same
 * tests (compileOperator) in the same order. A field that is missing or null, a map or list on the way that is
 * not a map (without a default), a length of anything but a list or a map, gives undefined: the planned
 * evaluation decides, with its errors. Generated code gives each block its own call sites, where the planned
 * evaluation shares one closure per step among all blocks of all policies.
 * test/dialects/kyverno/field-conditions.test.ts compares both over random blocks, objects and operations.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import type { SimpleRead } from '../../jmespath/compile.js';
import { isFalse } from '../../jmespath/values.js';
import { canonicalOperator, compileOperator } from './operators.js';
import { treeHasVariables } from './variables.js';

/** The generated block: true or false, or undefined where the planned evaluation must decide. */
export type FieldConditions = (object: JsonValue | null, operation: string | undefined) => boolean | undefined;

/** A simple read (jmespath compile.ts SimpleRead) of the object, its path given below it, or of the request's operation (path []). */
export type RequestRead = SimpleRead & { readonly of: 'object' | 'operation' };

/**
 * What a `key` string reads when it is one hole whose query is a simple read of a chain of fields starting
 * `request.object`, or of `request.operation`; undefined for any other string.
 */
export type ObjectFieldOf = (text: string) => RequestRead | undefined;

/** One condition's key: a constant, or a simple read of the object or the operation. */
type Key = { constant: JsonValue } | { read: RequestRead };

interface Condition {
  key: Key;
  test: (key: unknown) => boolean;
}

/** The block generated, or undefined when it is not of that shape (or code cannot be generated). */
export function fieldConditions(block: JsonValue, fieldOf: ObjectFieldOf): FieldConditions | undefined {
  let all: Condition[] | undefined;
  let any: Condition[] | undefined;
  if (Array.isArray(block)) all = conditionsOf(block, fieldOf);
  else if (isJsonObject(block)) {
    for (const k of Object.keys(block)) {
      const list = block[k]!;
      if ((k !== 'any' && k !== 'all') || !Array.isArray(list)) return undefined;
      const planned = conditionsOf(list, fieldOf);
      if (planned === undefined) return undefined;
      if (k === 'any') any = planned;
      else all = planned;
    }
  } else return undefined;
  if ((Array.isArray(block) && all === undefined) || (any === undefined && all === undefined)) return undefined;
  return generate(any, all);
}

function conditionsOf(list: readonly JsonValue[], fieldOf: ObjectFieldOf): Condition[] | undefined {
  const out: Condition[] = [];
  for (const c of list) {
    if (!isJsonObject(c)) return undefined;
    for (const k of Object.keys(c)) if (k !== 'key' && k !== 'operator' && k !== 'value' && k !== 'message') return undefined;
    const operator = typeof c.operator === 'string' ? canonicalOperator(c.operator) : undefined;
    if (operator === undefined || treeHasVariables(c.operator!) || (c.message !== undefined && treeHasVariables(c.message))) return undefined;
    const value = hasOwn(c, 'value') ? c.value! : null;
    if (treeHasVariables(value)) return undefined;
    const raw = hasOwn(c, 'key') ? c.key! : null;
    let key: Key;
    if (!treeHasVariables(raw)) key = { constant: raw };
    else {
      const read = typeof raw === 'string' ? fieldOf(raw) : undefined;
      if (read === undefined) return undefined;
      key = { read };
    }
    out.push({ key, test: compileOperator(operator, value) });
  }
  return out;
}

function generate(any: readonly Condition[] | undefined, all: readonly Condition[] | undefined): FieldConditions | undefined {
  const k = new Constants();
  const lines: string[] = [];
  let next = 0;
  // Every field is read first, as the planned evaluation substitutes every key before testing any.
  const operand = (c: Condition): string => {
    if ('constant' in c.key) return k.ref(c.key.constant);
    const read = c.key.read;
    const s = `s${next++}`;
    // Under `||` a missing field or a non-map on the way is false-like (the fallback): `x` is left undefined.
    const missing = read.kind === 'or' ? 'break read;' : 'return undefined;';
    lines.push(read.of === 'operation' ? 'x = op;' : 'x = o;', 'read: {');
    for (const name of read.path) {
      lines.push(`if (x === null || typeof x !== "object" || Array.isArray(x)) { x = undefined; ${missing} }`);
      // A name Object.prototype has is read only as an own field (JMESPath's field-path.ts carefulReader).
      lines.push(name in Object.prototype ? `x = ${k.ref(hasOwn)}(x, ${literal(name)}) ? x[${literal(name)}] : undefined;` : `x = x[${literal(name)}];`);
    }
    lines.push('}');
    if (read.kind === 'or') lines.push(`if (x === undefined || ${k.ref(isFalse)}(x)) x = ${k.ref(read.fallback)};`);
    else {
      lines.push('if (x === undefined || x === null) return undefined;');
      // length() of a list or a map; a string's runes and a type error are left to the planned evaluation.
      if (read.kind === 'length') lines.push('if (Array.isArray(x)) x = x.length;', 'else if (typeof x === "object") x = Object.keys(x).length;', 'else return undefined;');
    }
    lines.push(`const ${s} = x;`);
    return s;
  };
  const tests = (cs: readonly Condition[] | undefined): string[] | undefined => cs?.map((c) => `${k.ref(c.test)}(${operand(c)})`);
  const anyTests = tests(any);
  const allTests = tests(all);
  // An explicit empty `any` is false; an empty `all` is true.
  const anyHolds = anyTests === undefined ? 'true' : anyTests.length === 0 ? 'false' : anyTests.join(' || ');
  const allHolds = allTests === undefined || allTests.length === 0 ? 'true' : allTests.join(' && ');
  return instantiate<FieldConditions>(`return function conditions(o, op) {\nlet x;\n${lines.join('\n')}\nreturn (${anyHolds}) && (${allHolds});\n};`, k);
}
