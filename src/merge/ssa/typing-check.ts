/**
 * fast-checks.ts typesCleanly with duplicates allowed (how MAP types the live object before every
 * ApplyConfiguration, upstream's whole-object typing), generated per type node (issue 17): the generic walk
 * asks the node for every key's child node, the memo for every container and counts every value; here each
 * node gets a function with its field names written into a `switch` and its scalar kind inlined, making the
 * same checks in the same order, so the answer is the walk's. Functions are made on first call, node by
 * node: a Pod reaches a few hundred schema types, a typical one a few dozen.
 * test/merge/ssa/typing-check.test.ts compares both over the corpus, the benchmark's Pods and broken variants.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import { hasOwn, type JsonValue } from '../../ir/json.js';
import { scalarFits } from './atoms.js';
import type { ListType, Schema } from './schema.js';
import type { TypeNode } from './type-nodes.js';

export type TypingCheck = (v: JsonValue) => boolean;

/** What the checks need from fast-checks.ts (passed in: it imports this module). */
export interface TypingWalk {
  keyable(schema: Schema, t: ListType, x: JsonValue): boolean;
  /** The generic walk, for a child whose check cannot be made. */
  valid(schema: Schema, node: TypeNode, v: JsonValue): boolean;
}

/** Above this many declared fields a map looks its key up in an object instead of a `switch` of comparisons. */
const SWITCH_MAX_FIELDS = 16;

/**
 * The generated check of `node` (kept on the node, which lives as long as its schema), or undefined where
 * code cannot be generated (a content security policy): the caller then walks generically.
 */
export function typingCheck(schema: Schema, node: TypeNode, walk: TypingWalk): TypingCheck | undefined {
  let check = node.generatedTypingCheck;
  if (check === undefined) node.generatedTypingCheck = check = generate(schema, node, walk) ?? null;
  return check ?? undefined;
}

/** A stand-in for a child's check that makes it on first call and puts it in `slots[i]`. */
function lazyChild(schema: Schema, child: TypeNode, slots: TypingCheck[], i: number, walk: TypingWalk): TypingCheck {
  return (v) => {
    const made = typingCheck(schema, child, walk) ?? ((x: JsonValue) => walk.valid(schema, child, x));
    slots[i] = made;
    return made(v);
  };
}

/** Whether the non-object `v` (a variable name) fits scalar kind `kind`. */
function scalarTest(kind: string | undefined, k: Constants, v = 'v'): string {
  switch (kind) {
    case undefined:
      return 'false';
    case 'numeric':
      return `typeof ${v} === 'number'`;
    case 'string':
      return `typeof ${v} === 'string'`;
    case 'boolean':
      return `typeof ${v} === 'boolean'`;
    case 'untyped':
      return `(typeof ${v} === 'number' || typeof ${v} === 'string' || typeof ${v} === 'boolean')`;
    default:
      return `${k.ref(scalarFits)}(${literal(kind)}, ${v})`;
  }
}

/**
 * The whole check of a node with neither a map nor a list form, as an expression over `x`, written into the
 * parent's code instead of a call: most values a check meets are such leaves (a Pod's strings and numbers),
 * so most of the calls a check made were to leaves (issue 17: about a tenth of the walk). As generate: null
 * types unless the atom is formless, an object or a list never does, and no scalar test holds for one.
 */
function leafTest(n: TypeNode, k: Constants, x: string): string | undefined {
  if (n.atom === undefined) return 'false';
  if (n.map !== undefined || n.list !== undefined) return undefined;
  // A formless atom has no scalar kind either: nothing types.
  if (n.formless) return 'false';
  return `(${x} === null || ${scalarTest(n.scalar, k, x)})`;
}

/**
 * keyable's common yes, written inline over the item `x`: a map that has every key field (a Pod's containers
 * and ports, each keyed item once per walk). Anything else asks keyable, which decides.
 */
function keyedTest(t: ListType, k: Constants): string {
  if (t.keys.length === 0) return 'false';
  const own = k.ref(hasOwn);
  return `(x !== null && typeof x === 'object' && !Array.isArray(x)${t.keys.map((key) => ` && ${own}(x, ${literal(key)})`).join('')})`;
}

/** CleanTyping.validValue (guard off, duplicates allowed) for `n`, its children called through `c[i]`. */
function generate(schema: Schema, n: TypeNode, walk: TypingWalk): TypingCheck | undefined {
  const k = new Constants();
  const slots: TypingCheck[] = [];
  const child = (node: TypeNode): number => {
    const i = slots.length;
    slots.push(lazyChild(schema, node, slots, i, walk));
    return i;
  };
  // The test that `x` types at `node`: inlined for a leaf, else a call of the node's own check.
  const test = (node: TypeNode, x: string): string => leafTest(node, k, x) ?? `c[${child(node)}](${x})`;
  const lines: string[] = [];
  if (n.atom === undefined) lines.push('return false;');
  else {
    lines.push(`if (v === null) return ${!n.formless};`, `if (typeof v !== 'object') return ${scalarTest(n.scalar, k)};`);
    const t = n.list;
    if (t === undefined) lines.push('if (Array.isArray(v)) return false;');
    else {
      const item = test(n.item, 'x');
      const associative = t.elementRelationship === 'associative';
      lines.push(
        'if (Array.isArray(v)) {',
        'for (let i = 0; i < v.length; i++) {',
        'const x = v[i];',
        associative ? `if (!(${keyedTest(t, k)} || ${k.ref(walk.keyable)}(${k.ref(schema)}, ${k.ref(t)}, x)) || !${item}) return false;` : `if (!${item}) return false;`,
        '}',
        'return true;',
        '}',
      );
    }
    if (n.map === undefined) lines.push('return false;');
    else lines.push(...mapLines(n, test, child, k));
  }
  const c = k.ref(slots);
  return instantiate<TypingCheck>(`const c = ${c};\nreturn function check(v) {\n${lines.join('\n')}\n};`, k);
}

/** CleanTyping.validMap: every own key a declared field (or the element type, unless closed) whose value types. */
function mapLines(n: TypeNode, test: (node: TypeNode, x: string) => string, child: (node: TypeNode) => number, k: Constants): string[] {
  const names = [...n.map!.fieldIndex.keys()];
  const other = n.closed ? 'return false;' : `if (!${test(n.elementNode, 'x')}) return false;`;
  const lines = [`const own = ${k.ref(hasOwn)};`, 'for (const key in v) {', 'if (!own(v, key)) continue;', 'const x = v[key];'];
  if (names.length <= SWITCH_MAX_FIELDS) {
    lines.push('switch (key) {');
    for (const name of names) lines.push(`case ${literal(name)}: if (!${test(n.declaredNode(name)!, 'x')}) return false; break;`);
    lines.push(`default: ${other}`, '}');
  } else {
    // An object without prototype, so that no key reads anything but a field (as type-nodes.ts FieldNodes).
    const fields = Object.create(null) as Record<string, number>;
    for (const name of names) fields[name] = child(n.declaredNode(name)!);
    lines.push(`const f = ${k.ref(fields)}[key];`, `if (f === undefined) { ${other} } else if (!c[f](x)) return false;`);
  }
  lines.push('}', 'return true;');
  return lines;
}
