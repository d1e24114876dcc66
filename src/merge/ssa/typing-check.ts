/**
 * fast-checks.ts typesCleanly with duplicates allowed (how MAP types the live object before every
 * ApplyConfiguration, upstream's whole-object typing), generated per type node (issue 17). The generic walk
 * asks the node for every key's child node, the memo for every container and counts every value; here a
 * node's function has its fields written in, dispatched on the key's length then compared with constants,
 * and the checks of its descendants written inline as far as typing-plan.ts allows (calls and field look-ups
 * were most of a Pod's typing). It makes the same checks in the same order, so the answer is the walk's.
 * Functions are made on first call, node by node: a Pod reaches a few hundred schema types, a typical one a
 * few dozen, and a node written into its parent's function needs none of its own.
 * test/merge/ssa/typing-check.test.ts compares both over every shape the writer treats apart (random values,
 * seeded), test/merge/ssa/fast-checks.test.ts over the corpus, the benchmark's Pods and broken variants.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import { hasOwn, type JsonValue } from '../../ir/json.js';
import { scalarFits } from './atoms.js';
import type { ListType, Schema } from './schema.js';
import type { TypeNode } from './type-nodes.js';
import { INLINE_FIELD_BUDGET, isLeaf, planTyping, type Placement } from './typing-plan.js';

export type TypingCheck = (v: JsonValue) => boolean;

/** What the checks need from fast-checks.ts (passed in: it imports this module). */
export interface TypingWalk {
  keyable(schema: Schema, t: ListType, x: JsonValue): boolean;
  /** The generic walk, for a child whose check cannot be made. */
  valid(schema: Schema, node: TypeNode, v: JsonValue): boolean;
}

/** Up to this many declared fields a map compares the key with each name directly, without a length switch. */
const PLAIN_COMPARE_MAX_FIELDS = 3;

/**
 * The generated check of `node` (kept on the node, which lives as long as its schema), or undefined where
 * code cannot be generated (a content security policy): the caller then walks generically.
 */
export function typingCheck(schema: Schema, node: TypeNode, walk: TypingWalk): TypingCheck | undefined {
  let check = node.generatedTypingCheck;
  if (check === undefined) node.generatedTypingCheck = check = generate(schema, node, walk) ?? null;
  return check ?? undefined;
}

/** Whether the non-object `v` (a variable name) fits scalar kind `kind`. */
export function scalarTest(kind: string | undefined, k: Constants, v: string): string {
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
 * The whole check of a leaf (typing-plan.ts isLeaf) over `x`: null types unless the atom is formless (or
 * missing), an object or a list never does, and no scalar test holds for one.
 */
function leafTest(n: TypeNode, k: Constants, x: string): string {
  if (n.atom === undefined || n.formless) return 'false';
  return `(${x} === null || ${scalarTest(n.scalar, k, x)})`;
}

/**
 * keyable's common yes, written inline over the item `x`: a map that has every key field (a Pod's containers
 * and ports, each keyed item once per walk). Anything else asks keyable, which decides.
 */
function keyedTest(t: ListType, x: string): string {
  if (t.keys.length === 0) return 'false';
  return `(${x} !== null && typeof ${x} === 'object' && !Array.isArray(${x})${t.keys.map((key) => ` && own(${x}, ${literal(key)})`).join('')})`;
}

/** A variable counting the key fields of an associative list's item that the item's map loop meets. */
interface KeyCounter {
  counter: string;
  names: ReadonlySet<string>;
}

/** Writes the check of one function (CleanTyping.validValue, guard off, duplicates allowed) as statements. */
class CheckWriter {
  readonly k = new Constants();
  /** The nodes called instead of written, and their checks once made (`c[i]`, made by `m(i)` on first call). */
  readonly called: TypeNode[] = [];
  readonly slots: (TypingCheck | undefined)[] = [];
  private names = 0;

  constructor(private readonly schema: Schema, private readonly walk: TypingWalk) {}

  private fresh(prefix: string): string {
    return `${prefix}${++this.names}`;
  }

  /**
   * Statements that return false unless `x` types at `p`, else fall through. With `keys`, the map loop of
   * `x` itself (not below) adds one to the variable `keys.counter` for each own key it meets in `keys.names`.
   */
  write(p: Placement, x: string, out: string[], keys?: KeyCounter): void {
    const n = p.node;
    if (isLeaf(n)) out.push(`if (!${leafTest(n, this.k, x)}) return false;`);
    else if (!p.inline) {
      let i = this.called.indexOf(n);
      if (i < 0) {
        i = this.called.push(n) - 1;
        this.slots.push(undefined);
      }
      out.push(`if (!(c[${i}] || m(${i}))(${x})) return false;`);
    } else {
      const scalar = scalarTest(n.scalar, this.k, x);
      out.push(`if (${x} !== null) {`, scalar === 'false' ? `if (typeof ${x} !== 'object') return false;` : `if (typeof ${x} !== 'object') { if (!(${scalar})) return false; }`, `else if (Array.isArray(${x})) {`);
      if (n.list === undefined) out.push('return false;');
      else this.writeList(n.list, p.item!, x, out);
      out.push('} else {');
      if (n.map === undefined) out.push('return false;');
      else this.writeMap(p, x, out, keys);
      out.push('}', '}');
    }
  }

  /** CleanTyping.validList with duplicates allowed: each item keyable (associative lists) and typing. */
  private writeList(t: ListType, item: Placement, x: string, out: string[]): void {
    const i = this.fresh('i');
    const y = this.fresh('x');
    out.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${y} = ${x}[${i}];`);
    if (t.elementRelationship !== 'associative') this.write(item, y, out);
    else {
      const keyable = `${this.k.ref(this.walk.keyable)}(${this.k.ref(this.schema)}, ${this.k.ref(t)}, ${y})`;
      const names = new Set(t.keys);
      if (names.size > 0 && item.inline && [...names].every((name) => item.fields.some(([field]) => field === name))) {
        // The item's own loop counts the key fields it meets: all met, the item is a map that has them, which
        // is keyable's common yes, with no look-up. The item is typed first: both must hold, neither has effects.
        const counter = this.fresh('keys');
        out.push(`let ${counter} = 0;`);
        this.write(item, y, out, { counter, names });
        out.push(`if (${counter} !== ${names.size} && !${keyable}) return false;`);
      } else {
        out.push(`if (!(${keyedTest(t, y)} || ${keyable})) return false;`);
        this.write(item, y, out);
      }
    }
    out.push('}');
  }

  /**
   * CleanTyping.validMap: every own key a declared field (or the element type, unless closed) whose value
   * types. A declared field's branch ends in `continue`; what falls out of the dispatch is an other key.
   */
  private writeMap(p: Placement, x: string, out: string[], keys: KeyCounter | undefined): void {
    const key = this.fresh('key');
    const y = this.fresh('x');
    out.push(`for (const ${key} in ${x}) {`, `if (!own(${x}, ${key})) continue;`, `const ${y} = ${x}[${key}];`);
    const branch = ([name, field]: [string, Placement]): void => {
      out.push(`if (${key} === ${literal(name)}) {`);
      if (keys?.names.has(name)) out.push(`${keys.counter}++;`);
      this.write(field, y, out);
      out.push('continue;', '}');
    };
    if (p.fields.length <= PLAIN_COMPARE_MAX_FIELDS) p.fields.forEach(branch);
    else {
      // Keys are internalized strings: a length read and a few pointer comparisons, where a switch of all
      // names compares up to all of them and an object or Map look-up hashes.
      const byLength = new Map<number, [string, Placement][]>();
      for (const f of p.fields) byLength.set(f[0].length, [...(byLength.get(f[0].length) ?? []), f]);
      out.push(`switch (${key}.length) {`);
      for (const [length, fields] of [...byLength].sort((a, b) => a[0] - b[0])) {
        out.push(`case ${length}:`);
        fields.forEach(branch);
        out.push('break;');
      }
      out.push('}');
    }
    if (p.element === undefined) out.push('return false;');
    else this.write(p.element, y, out);
    out.push('}');
  }
}

/**
 * Above this much source a function is written again with half the budget: V8 does not optimize a function
 * of more than 60 KB of bytecode (--max-optimized-bytecode-size), about 100,000 characters of this source,
 * and one left to the interpreter typed a Pod several times slower than the walk (measured).
 */
const MAX_SOURCE_CHARS = 40_000;

function generate(schema: Schema, root: TypeNode, walk: TypingWalk): TypingCheck | undefined {
  let budget = INLINE_FIELD_BUDGET;
  let w: CheckWriter;
  let lines: string[];
  do {
    w = new CheckWriter(schema, walk);
    lines = [];
    w.write(planTyping(root, budget), 'v', lines);
    budget >>= 1;
  } while (budget > 0 && lines.reduce((n, line) => n + line.length + 1, 0) > MAX_SOURCE_CHARS);
  const { called, slots } = w;
  const make = (i: number): TypingCheck => {
    const node = called[i]!;
    return (slots[i] = typingCheck(schema, node, walk) ?? ((x: JsonValue) => walk.valid(schema, node, x)));
  };
  const head = `const c = ${w.k.ref(slots)}, m = ${w.k.ref(make)}, own = ${w.k.ref(hasOwn)};`;
  return instantiate<TypingCheck>(`${head}\nreturn function check(v) {\n${lines.join('\n')}\nreturn true;\n};`, w.k);
}
