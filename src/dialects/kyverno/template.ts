/**
 * `substituteTree` (variables.ts) compiled once per JSON tree: the strings holding `{{` and their JSON
 * pointers are found at compile time, so an evaluation visits only the branches that lead to them and shares
 * every other subtree. The result is the one substituteTree gives, failures included: leaves are substituted
 * in the same depth-first order (so the first failure is the same), a string that is exactly one hole is
 * queried directly (substituteString's first pass returns its value unscanned), through its query compiled
 * once when the caller gives a QueryPreparer (engines/jmes.ts), any other string goes through
 * substituteString. A tree with `{{` in a map key is left to substituteTree.
 *
 * A tree with a single variable leaf (a foreach patch keyed by `{{ element.name }}`) remembers its last few
 * results by the leaf's scalar value: the same pattern object then comes back for the same value, and
 * whatever is compiled per pattern object downstream (merge/smp/index.ts planOf) is compiled once.
 */
import { defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import {
  holeQuery,
  pointerToken,
  queryHole,
  queryPreparedHole,
  substituteString,
  substituteTree,
  treeHasVariables,
  wholeHoleBody,
  type PreparedQuery,
  type QueryPreparer,
  type Substituted,
  type SubstitutionEnv,
} from './variables.js';

export type CompiledTree = (env: SubstitutionEnv) => Substituted<JsonValue>;

/**
 * A string leaf holding `{{`: `whole` is the hole's body when the string is exactly one hole, `prepared` its
 * query compiled once (when the caller gave a QueryPreparer and the query compiles).
 */
interface Leaf {
  text: string;
  pointer: string;
  whole: string | undefined;
  prepared: PreparedQuery | undefined;
}

/** A map or list with variables below: `children[i]` is undefined where the child has none. */
interface Branch {
  value: JsonObject | JsonValue[];
  keys: string[] | undefined;
  children: (Node | undefined)[];
}

type Node = Leaf | Branch;

class Failure {
  constructor(readonly message: string) {}
}

/** Results remembered per compiled tree (a small bound: distinct values are usually few, and a miss is cheap). */
const CACHE_LIMIT = 64;

/** `at` is the pointer of `tree` in the document substituted (for messages), `prepare` compiles hole queries once. */
export function compileTree(tree: JsonValue, prepare?: QueryPreparer, at = ''): CompiledTree {
  if (!treeHasVariables(tree)) {
    const same: Substituted<JsonValue> = { ok: true, value: tree };
    return () => same;
  }
  const leaves: Leaf[] = [];
  const root = compileNode(tree, at, leaves, prepare);
  if (root === null || root === undefined) return (env) => substituteTree(tree, env, at);
  if (leaves.length !== 1) {
    return (env) => {
      const values: JsonValue[] = [];
      for (const leaf of leaves) {
        const v = substituteLeaf(leaf, env);
        if (v instanceof Failure) return { ok: false, message: v.message };
        values.push(v);
      }
      return { ok: true, value: build(root!, values, { next: 0 }) };
    };
  }
  const leaf = leaves[0]!;
  const cache = new Map<string | number | boolean | null, Substituted<JsonValue>>();
  return (env) => {
    const v = substituteLeaf(leaf, env);
    if (v instanceof Failure) return { ok: false, message: v.message };
    if (v !== null && (typeof v === 'object' || v === undefined)) return { ok: true, value: build(root, [v], { next: 0 }) };
    let hit = cache.get(v);
    if (hit === undefined) {
      if (cache.size >= CACHE_LIMIT) cache.clear();
      hit = { ok: true, value: build(root, [v], { next: 0 }) };
      cache.set(v, hit);
    }
    return hit;
  };
}

/** The node for `v` (undefined: nothing to substitute), or null when a key holds `{{`. */
function compileNode(v: JsonValue, pointer: string, leaves: Leaf[], prepare: QueryPreparer | undefined): Node | undefined | null {
  if (typeof v === 'string') {
    if (!v.includes('{{')) return undefined;
    const leaf = compileLeaf(v, pointer, prepare);
    leaves.push(leaf);
    return leaf;
  }
  if (Array.isArray(v)) {
    const children: (Node | undefined)[] = [];
    let any = false;
    for (let i = 0; i < v.length; i++) {
      const c = compileNode(v[i]!, `${pointer}/${i}`, leaves, prepare);
      if (c === null) return null;
      if (c !== undefined) any = true;
      children.push(c);
    }
    return any ? { value: v, keys: undefined, children } : undefined;
  }
  if (isJsonObject(v)) {
    const keys = Object.keys(v);
    const children: (Node | undefined)[] = [];
    let any = false;
    for (const k of keys) {
      if (k.includes('{{')) return null;
      const c = compileNode(v[k]!, `${pointer}/${pointerToken(k)}`, leaves, prepare);
      if (c === null) return null;
      if (c !== undefined) any = true;
      children.push(c);
    }
    return any ? { value: v, keys, children } : undefined;
  }
  return undefined;
}

function compileLeaf(text: string, pointer: string, prepare: QueryPreparer | undefined): Leaf {
  const whole = wholeHoleBody(text);
  return { text, pointer, whole, prepared: whole !== undefined && prepare !== undefined ? prepare(holeQuery(whole)) : undefined };
}

function substituteLeafOutcome(leaf: Leaf, env: SubstitutionEnv): Substituted {
  if (leaf.prepared !== undefined) return queryPreparedHole(env, leaf.prepared, leaf.pointer);
  return leaf.whole !== undefined ? queryHole(env, leaf.whole, leaf.pointer) : substituteString(leaf.text, env, leaf.pointer);
}

function substituteLeaf(leaf: Leaf, env: SubstitutionEnv): JsonValue | Failure {
  const r = substituteLeafOutcome(leaf, env);
  return r.ok ? (r.value as JsonValue) : new Failure(r.message);
}

/**
 * One string substituted as substituteString does (`path` its pointer, for messages), compiled once: a string
 * that is exactly one hole is queried directly, through its prepared query when there is one.
 */
export function compileString(text: string, path: string, prepare?: QueryPreparer): (env: SubstitutionEnv) => Substituted {
  if (!text.includes('{{')) {
    const same: Substituted = { ok: true, value: text };
    return () => same;
  }
  const leaf = compileLeaf(text, path, prepare);
  return (env) => substituteLeafOutcome(leaf, env);
}

/** The substituted tree from the leaves' values (in compile order); unchanged parts are shared, as substituteTree does. */
function build(node: Node, values: JsonValue[], at: { next: number }): JsonValue {
  if ('text' in node) return values[at.next++]!;
  const children = node.children;
  if (node.keys === undefined) {
    const list = node.value as JsonValue[];
    let out: JsonValue[] | undefined;
    for (let i = 0; i < children.length; i++) {
      const c = children[i];
      if (c === undefined) continue;
      const v = build(c, values, at);
      if (v !== list[i]) (out ??= list.slice())[i] = v;
    }
    return out ?? list;
  }
  const map = node.value as JsonObject;
  const keys = node.keys;
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const c = children[i];
    const v = c === undefined ? map[k]! : build(c, values, at);
    if (out === undefined) {
      if (v === map[k]) continue;
      // Rebuilt in key order, as substituteTree does.
      out = {};
      for (let j = 0; j < i; j++) defineOwn(out, keys[j]!, map[keys[j]!]!);
    }
    defineOwn(out, k, v);
  }
  return out ?? map;
}
