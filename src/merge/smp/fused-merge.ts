/**
 * Consecutive set-only patterns merged as one (issue 17). A ClusterPolicy's rules are often one line each
 * (`+(team): platform`, an annotation, a label): run one by one, every rule walks from the root to its map,
 * decides there whether to copy it, and records what it wrote. Here a run of such patterns (smp-rule-runs.ts)
 * descends once: at each map the patterns' entries are applied in their order, each reading what the ones
 * before it wrote, and a child map named by several patterns is merged for all of them where the first one
 * names it. The result, key order included, is the sequential one:
 *
 * - set-only patterns (no condition anchor, no list, no `null`, no `$` directive, distinct keys per map, no
 *   `apiVersion`/`kind` at the root, which would change the schema of the patterns after) write maps where
 *   they have maps and scalars where they have scalars; when no two of them disagree on which a place is,
 *   each pattern's check on the original document is its check on what the ones before it left, so the
 *   checks run first, all of them, and any failure hands the whole run back to the merges one by one;
 * - a key the resource lacks is appended where its first pattern appends it (after the existing keys, in
 *   Go string order among that pattern's own new keys); a child map's value does not depend on when it is
 *   written, as nothing else reads it, so merging it for every pattern at its first one changes nothing;
 * - `+(k)` decides on what is there when its pattern comes: absent for the first pattern naming `k` only.
 *
 * test/merge/smp/fused-merge.test.ts compares fused and sequential merges over random patterns and documents.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import type { JsonScalar } from '../../ir/json.js';
import { checkSource, insertedAsIs, isMapSource, MERGE_HELP, ownSource, setSource, WRITE_PROLOGUE, writeEpilogue, type CompiledMerge, type Entry, type Gen, type GeneratedMerge, type PatternNode } from './compiled-merge.js';
import { scalarText } from './go-text.js';
import { fieldSchema, type SchemaRef } from './schema.js';

/** One pattern's map at some place, and whether the pattern names it with `+()`. */
interface Item {
  node: PatternNode;
  add: boolean;
}

function setOnly(node: PatternNode): boolean {
  if (node.globals.length > 0 || node.conditions.length > 0) return false;
  const keys = new Set<string>();
  for (const e of node.entries) {
    if (keys.has(e.key)) return false;
    keys.add(e.key);
    if (e.list !== undefined) return false;
    if (e.node !== undefined) {
      if (insertedAsIs(e.node) === undefined || !setOnly(e.node)) return false;
    } else if (e.value === null || typeof e.value === 'object') return false;
  }
  return true;
}

/** Whether no place is a map in one pattern and a scalar in another. */
function kindsAgree(roots: readonly PatternNode[]): boolean {
  const kinds = new Map<string, boolean>();
  const visit = (node: PatternNode, at: string): boolean => {
    for (const e of node.entries) {
      const place = `${at}\u0000${e.key}`;
      const isMap = e.node !== undefined;
      const seen = kinds.get(place);
      if (seen !== undefined && seen !== isMap) return false;
      kinds.set(place, isMap);
      if (e.node !== undefined && !visit(e.node, place)) return false;
    }
    return true;
  };
  return roots.every((r) => visit(r, ''));
}

/** The patterns merged as one, or undefined when they do not qualify (see the header). */
export function fuseMerges(patterns: readonly CompiledMerge[]): CompiledMerge | undefined {
  const roots = patterns.flatMap((p) => p.roots);
  if (roots.length < 2 || !roots.every(setOnly) || !kindsAgree(roots)) return undefined;
  if (roots.some((r) => r.entries.some((e) => e.key === 'apiVersion' || e.key === 'kind'))) return undefined;
  return { roots, generate: (schema) => generate(roots, schema), bySchema: new Map(), last: undefined };
}

function generate(roots: readonly PatternNode[], schema: SchemaRef): GeneratedMerge | undefined {
  // Under an unknown kind a map naming apiVersion and kind selects its own schema: a pattern may give a map
  // the second of them, which the checks on the original document would not see.
  if (schema === null) return undefined;
  const k = new Constants();
  const g: Gen = { k, fns: [], h: k.ref(MERGE_HELP), next: 0 };
  const checks: string[] = [];
  for (const root of roots) {
    const check = checkSource(root, 'r', schema, g);
    if (check === undefined) return undefined;
    checks.push(`{\n${check}\n}`);
  }
  const write = fusedFunction(roots, schema, g);
  return instantiate<GeneratedMerge>(`${g.fns.join('\n')}\nreturn function merge(r, cx) {\n${checks.join('\n')}\nreturn ${write}(r, cx);\n};`, k);
}

/** The write of `nodes` (in order) into an existing map under `schema`; returns the function's name. */
function fusedFunction(nodes: readonly PatternNode[], schema: SchemaRef, g: Gen): string {
  const name = `f${g.next++}`;
  const h = g.h;
  const set = (key: string, value: string): string => setSource(key, value, h);
  const lines: string[] = [...WRITE_PROLOGUE];
  const merged = new Set<string>(); // child maps already merged for every pattern
  nodes.forEach((node, n) => {
    const block: string[] = [];
    const appends: (string | undefined)[] = [];
    node.entries.forEach((e, i) => {
      const a = `a${i}`;
      const read = `const v = ${ownSource('(out === undefined ? d : out)', e.key, g)};`;
      if (e.node === undefined) {
        block.push(`let ${a};`, `{ ${read}\n${leafSource(e, a, g, set)} }`);
        appends[i] = `if (${a} !== undefined) { ${set(e.key, a)} }`;
        return;
      }
      if (merged.has(e.key)) return;
      merged.add(e.key);
      const group: Item[] = [{ node: e.node, add: e.add }];
      for (const later of nodes.slice(n + 1)) {
        const same = later.entries.find((x) => x.key === e.key);
        if (same?.node !== undefined) group.push({ node: same.node, add: same.add });
      }
      const child = groupFunction(group, fieldSchema(schema, e.key), g);
      block.push(`let ${a};`, `{ ${read}\nconst nv = ${child}(v, cx);\nif (v === undefined) ${a} = nv;\nelse if (nv !== v) { ${set(e.key, 'nv')} } }`);
      appends[i] = `if (${a} !== undefined) { ${set(e.key, a)} }`;
    });
    // This pattern's new keys after the existing ones, in Go string order (compiled-merge.ts writeFunction).
    for (const i of node.appendOrder) if (appends[i] !== undefined) block.push(appends[i]!);
    lines.push(`{\n${block.join('\n')}\n}`);
  });
  g.fns.push(`function ${name}(d, cx) {\n${[...lines, ...writeEpilogue(schema, g)].join('\n')}\n}`);
  return name;
}

/** A scalar entry read into `v` (compiled-merge.ts writeFunction's scalar case): a new key goes to `a`. */
function leafSource(e: Entry, a: string, g: Gen, set: (key: string, value: string) => string): string {
  const value = e.value as JsonScalar;
  const pv = Object.is(value, -0) ? g.k.ref(value) : literal(value);
  // FieldSetter keeps a double-quoted resource string's style: a number or boolean becomes its text.
  const kept = typeof value === 'string' ? pv : `typeof v === 'string' ? ${literal(scalarText(value))} : ${pv}`;
  const write = `if (v === undefined) ${a} = ${pv};\nelse { const nv = ${kept}; if (nv !== v) { ${set(e.key, 'nv')} } }`;
  return e.add ? `if (v === undefined) { ${write} }` : write;
}

/**
 * The new value of a child map that `group` (in pattern order) names, from its value `v` (undefined, null or
 * a map: the checks rule out anything else). Where there is no map, the first pattern that applies inserts
 * its map as it is (`+()` applies only where the key is absent, a plain key also over `null`), and the
 * patterns after it write into that; where there is one, `+()` patterns leave it alone.
 */
function groupFunction(group: readonly Item[], schema: SchemaRef, g: Gen): string {
  const name = `g${g.next++}`;
  const writes = (items: readonly Item[]): string | undefined => {
    const nodes = items.filter((i) => !i.add).map((i) => i.node);
    return nodes.length === 0 ? undefined : fusedFunction(nodes, schema, g);
  };
  const apply = (fn: string | undefined, v: string): string => (fn === undefined ? v : `${fn}(${v}, cx)`);
  const inserted = (item: Item): string => g.k.ref(insertedAsIs(item.node)!);
  const lines = [`if (${isMapSource('v')}) return ${apply(writes(group), 'v')};`, `if (v === undefined) return ${apply(writes(group.slice(1)), inserted(group[0]!))};`];
  const first = group.findIndex((i) => !i.add);
  lines.push(first < 0 ? 'return v;' : `return ${apply(writes(group.slice(first + 1)), inserted(group[first]!))};`);
  g.fns.push(`function ${name}(v, cx) {\n${lines.join('\n')}\n}`);
  return name;
}

