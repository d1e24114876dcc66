/**
 * Consecutive set-only patterns merged as one (issue 17). A ClusterPolicy's rules are often one line each
 * (`+(team): platform`, an annotation, a label, `(tier): frontend` then a field): run one by one, every rule
 * walks from the root to its map, decides there whether to copy it, and records what it wrote. Here a run of
 * such patterns (smp-rule-runs.ts) descends once: at each map the patterns' entries are applied in their
 * order, each reading what the ones before it wrote, and a child map named by several patterns is merged for
 * all of them where the first one names it. The result, key order included, is the sequential one:
 *
 * - set-only patterns (no `null`, no `$` directive, no conditional list element, distinct keys per map, no
 *   `apiVersion`/`kind` at the root, which would change the schema of the patterns after; scalar condition and
 *   global anchors allowed; a list only where the schema replaces it, as a scalar, also in a map the resource
 *   lacks, inserted as it is) write maps where they have maps, lists where they have lists and scalars where
 *   they have scalars. When no two of them disagree on which a place is, and no pattern's condition reads a place an earlier one writes, each
 *   pattern's check on the original document is its check on what the ones before it left. So the checks run
 *   first, all of them: a shape the fast walk does not take hands the whole run back to the merges one by
 *   one, a failed condition skips its pattern (one bit of `cx.skip`), as the merge of an empty patch would;
 * - a key the resource lacks is appended where its first pattern appends it (after the existing keys, in
 *   Go string order among that pattern's own new keys); a child map's value does not depend on when it is
 *   written, as nothing else reads it, so merging it for every pattern at its first one changes nothing;
 * - `+(k)` decides on what is there when its pattern comes: absent for the first pattern naming `k` only.
 *
 * test/merge/smp/fused-merge.test.ts compares fused and sequential merges over random patterns and documents.
 */
import { Constants, instantiate, literal } from '../../compile/source.js';
import type { JsonScalar, JsonValue } from '../../ir/json.js';
import { absentCheck, holdsSource, insertedAsIs, isMapSource, MERGE_HELP, ownSource, setSource, skippedWhenAbsent, WRITE_PROLOGUE, writeEpilogue, type CompiledMerge, type Entry, type Gen, type GeneratedMerge, type PatternNode } from './compiled-merge.js';
import { scalarText } from './go-text.js';
import { fieldSchema, type SchemaRef } from './schema.js';

/** At most this many patterns are fused (one bit of `cx.skip` each). */
const MAX_PATTERNS = 30;

/** One pattern's map at some place, whether the pattern names it with `+()`, and which pattern it is. */
interface Item {
  node: PatternNode;
  add: boolean;
  pattern: number;
}

function setOnly(node: PatternNode): boolean {
  const keys = new Set<string>();
  for (const e of node.entries) {
    if (keys.has(e.key)) return false;
    keys.add(e.key);
    if (e.list !== undefined) return false;
    if (e.node !== undefined) {
      // A map holding a list is inserted as it is only under a schema that replaces the list: the checks decide.
      if ((insertedAsIs(e.node, null) === undefined && !skippedWhenAbsent(e.node)) || !setOnly(e.node)) return false;
    } else if (e.value === null || (typeof e.value === 'object' && !Array.isArray(e.value))) return false;
  }
  return true;
}

/**
 * Whether no place is of one kind (map, list, scalar) in one pattern and of another in another (a pattern
 * would meet what an earlier one wrote, not what the checks saw), and no condition reads a place an earlier
 * pattern names (it would see what that pattern wrote, not the original document).
 */
function independent(roots: readonly PatternNode[]): boolean {
  const kinds = new Map<string, 'map' | 'list' | 'scalar'>();
  const named = new Set<string>();
  const visit = (node: PatternNode, at: string, conditions: string[]): boolean => {
    for (const c of [...node.globals, ...node.conditions]) conditions.push(`${at}\u0000${c.key}`);
    for (const e of node.entries) {
      const place = `${at}\u0000${e.key}`;
      const kind = e.node !== undefined ? 'map' : Array.isArray(e.value) ? 'list' : 'scalar';
      const seen = kinds.get(place);
      if (seen !== undefined && seen !== kind) return false;
      kinds.set(place, kind);
      if (e.node !== undefined && !visit(e.node, place, conditions)) return false;
    }
    return true;
  };
  for (const root of roots) {
    const conditions: string[] = [];
    if (!visit(root, '', conditions)) return false;
    if (conditions.some((c) => named.has(c))) return false;
    for (const place of kinds.keys()) named.add(place);
  }
  return true;
}

/** The places a set-only pattern writes, as paths from the root (see writtenPlaces). */
export interface WrittenPlaces {
  /** Maps, created where absent (a map already there keeps its identity as a place and its other keys). */
  readonly maps: string[][];
  /** Values set. */
  readonly leaves: string[][];
}

/**
 * Every place a set-only pattern may write: its maps and its leaves. A value read at a path that neither
 * holds nor lies below one of these leaves, and holds no such map, is the same before and after the pattern
 * wherever the maps it lies below exist already.
 */
export function writtenPlaces(node: PatternNode, into: WrittenPlaces = { maps: [], leaves: [] }, at: readonly string[] = []): WrittenPlaces {
  for (const e of node.entries) {
    const place = [...at, e.key];
    if (e.node !== undefined) {
      into.maps.push(place);
      writtenPlaces(e.node, into, place);
    } else into.leaves.push(place);
  }
  return into;
}

/** The patterns merged as one, or undefined when they do not qualify (see the header). */
export function fuseMerges(patterns: readonly CompiledMerge[]): CompiledMerge | undefined {
  const roots = patterns.flatMap((p) => p.roots);
  if (roots.length < 2 || roots.length > MAX_PATTERNS || !roots.every(setOnly) || !independent(roots)) return undefined;
  if (roots.some((r) => r.entries.some((e) => e.key === 'apiVersion' || e.key === 'kind'))) return undefined;
  return { roots, generate: (schema) => generate(roots, schema), bySchema: new Map(), last: undefined };
}

function generate(roots: readonly PatternNode[], schema: SchemaRef): GeneratedMerge | undefined {
  // Under an unknown kind a map naming apiVersion and kind selects its own schema: a pattern may give a map
  // the second of them, which the checks on the original document would not see.
  if (schema === null) return undefined;
  const k = new Constants();
  const g: Gen = { k, fns: [], h: k.ref(MERGE_HELP), next: 0 };
  const items = roots.map((node, pattern) => ({ node, add: false, pattern }));
  const check = fusedCheckSource(items, 'r', schema, g);
  if (check === undefined) return undefined;
  const checks = [check];
  const write = fusedFunction(
    roots.map((node, pattern) => ({ node, add: false, pattern })),
    schema,
    g,
  );
  const all = (1 << roots.length) - 1;
  // The caller may preset skip bits (src/compile/smp-rule-runs.ts: the patterns of rules whose guards failed).
  const body = `let skip = cx.skip;\n${checks.join('\n')}\nif (skip === ${all}) return r;\ncx.skip = skip;\nreturn ${write}(r, cx);`;
  return instantiate<GeneratedMerge>(`${g.fns.join('\n')}\nreturn function merge(r, cx) {\n${body}\n};`, k);
}

/**
 * The checks of `items` (patterns' maps at the resource map `d`) in one walk: checkSource's checks of every
 * pattern, each map of the resource visited once for all the patterns naming it. A failed condition sets its
 * pattern's bit of `skip`; a shape the fast walk does not take returns GENERAL. Where checkSource stops at a
 * pattern's first failed condition, this goes on with the pattern's other checks, so it may return GENERAL
 * where the pattern alone would have been skipped: the merges then run one by one, which is always exact.
 */
function fusedCheckSource(items: readonly Item[], d: string, schema: SchemaRef, g: Gen): string | undefined {
  const general = `return ${g.h}.GENERAL;`;
  const lines: string[] = [];
  for (const item of items) {
    const bit = 1 << item.pattern;
    for (const c of [...item.node.globals, ...item.node.conditions]) lines.push(`if (!${holdsSource(d, c, g)}) skip |= ${bit};`);
  }
  const keys: string[] = [];
  const byKey = new Map<string, { item: Item; entry: Entry }[]>();
  for (const item of items) {
    for (const entry of item.node.entries) {
      let named = byKey.get(entry.key);
      if (named === undefined) byKey.set(entry.key, (named = [])), keys.push(entry.key);
      named.push({ item, entry });
    }
  }
  for (const key of keys) {
    const named = byKey.get(key)!;
    const v = `v${g.next++}`;
    const inner: string[] = [];
    // checkSource checks a `+()` entry only where the resource lacks the key: a leaf then has nothing to check.
    for (const { entry } of named) {
      if (entry.node !== undefined) continue;
      if (Array.isArray(entry.value)) {
        if (fieldSchema(schema, key)?.merge !== undefined) return undefined; // an associative list: fastList
        if (!entry.add) inner.push(`if (${v} !== undefined && ${v} !== null && !Array.isArray(${v})) ${general}`);
      } else if (entry.value !== null && !entry.add) inner.push(`if (${v} !== null && typeof ${v} === 'object') ${general}`);
    }
    const maps = named.filter((n) => n.entry.node !== undefined);
    if (maps.length > 0) {
      // Where the resource has a map, the patterns naming the key with `+()` have nothing to check below it.
      const below = maps.filter((n) => !n.entry.add).map((n) => ({ node: n.entry.node!, add: false, pattern: n.item.pattern }));
      const dv = `d${g.next++}`;
      const sub = below.length === 0 ? '' : fusedCheckSource(below, dv, fieldSchema(schema, key), g);
      if (sub === undefined) return undefined;
      const absent: string[] = [];
      for (const { entry, item } of maps) {
        const outcome = absentCheck(entry.node!, fieldSchema(schema, key));
        // A `+()` map is checked only where the key is missing.
        const when = entry.add ? `if (${v} === undefined) ` : '';
        if (outcome === 'general') absent.push(`${when}${general}`);
        else if (outcome === 'skip') absent.push(`${when}skip |= ${1 << item.pattern};`);
        else if (outcome === 'insert' && !entry.add) absent.push(`if (${v} !== undefined && ${v} !== null) ${general}`);
      }
      // Under an unknown schema a map naming its apiVersion and kind selects its own (checkSource).
      const ownSchema = schema === null ? `if (${v}.apiVersion !== undefined && ${v}.apiVersion !== null && ${v}.kind !== undefined && ${v}.kind !== null) ${general}\n` : '';
      inner.push(`if (${isMapSource(v)}) {\n${ownSchema}const ${dv} = ${v};\n${sub}\n}${absent.length === 0 ? '' : ` else {\n${absent.join('\n')}\n}`}`);
    }
    if (inner.length > 0) lines.push(`{ const ${v} = ${ownSource(d, key, g)};\n${inner.join('\n')}\n}`);
  }
  return lines.join('\n');
}

/** `code` run unless the item's pattern was skipped. */
function unlessSkipped(item: Item, code: string): string {
  return `if ((cx.skip & ${1 << item.pattern}) === 0) {\n${code}\n}`;
}

/** The write of `items` (in pattern order, none `+()`) into an existing map under `schema`; returns its name. */
function fusedFunction(items: readonly Item[], schema: SchemaRef, g: Gen): string {
  const name = `f${g.next++}`;
  const set = (key: string, value: string): string => setSource(key, value, g.h);
  const lines: string[] = [...WRITE_PROLOGUE];
  // Per child map: its merge for every pattern naming it, and the flag set once a pattern ran it. It runs
  // where the first pattern not skipped names it: the patterns naming it before were skipped, and the merge
  // leaves the skipped ones out.
  const children = new Map<string, { fn: string; done: string }>();
  items.forEach((item, n) => {
    const block: string[] = [];
    const appends: (string | undefined)[] = [];
    item.node.entries.forEach((e, i) => {
      const a = `a${i}`;
      const read = `const v = ${ownSource('(out === undefined ? d : out)', e.key, g)};`;
      if (e.node === undefined) {
        block.push(`let ${a};`, `{ ${read}\n${leafSource(e, a, g, set)} }`);
        appends[i] = `if (${a} !== undefined) { ${set(e.key, a)} }`;
        return;
      }
      let child = children.get(e.key);
      if (child === undefined) {
        const group: Item[] = [{ node: e.node, add: e.add, pattern: item.pattern }];
        for (const later of items.slice(n + 1)) {
          const same = later.node.entries.find((x) => x.key === e.key);
          if (same?.node !== undefined) group.push({ node: same.node, add: same.add, pattern: later.pattern });
        }
        child = { fn: groupFunction(group, fieldSchema(schema, e.key), g), done: `done${g.next++}` };
        children.set(e.key, child);
        lines.push(`let ${child.done} = false;`);
      }
      block.push(`let ${a};`, `if (!${child.done}) { ${child.done} = true; ${read}\nconst nv = ${child.fn}(v, cx);\nif (v === undefined) ${a} = nv;\nelse if (nv !== v) { ${set(e.key, 'nv')} } }`);
      appends[i] = `if (${a} !== undefined) { ${set(e.key, a)} }`;
    });
    // This pattern's new keys after the existing ones, in Go string order (compiled-merge.ts writeFunction).
    for (const i of item.node.appendOrder) if (appends[i] !== undefined) block.push(appends[i]!);
    lines.push(unlessSkipped(item, block.join('\n')));
  });
  g.fns.push(`function ${name}(d, cx) {\n${[...lines, ...writeEpilogue(schema, g)].join('\n')}\n}`);
  return name;
}

/** A scalar or list entry read into `v` (compiled-merge.ts writeFunction's scalar case): a new key goes to `a`. */
function leafSource(e: Entry, a: string, g: Gen, set: (key: string, value: string) => string): string {
  const value = e.value as JsonScalar | JsonValue[];
  const pv = Array.isArray(value) || Object.is(value, -0) ? g.k.ref(value) : literal(value);
  // FieldSetter keeps a double-quoted resource string's style: a number or boolean becomes its text. A list
  // (one the schema does not merge: the checks hand an associative one to the general path) replaces.
  const kept = Array.isArray(value)
    ? `Array.isArray(v) && ${g.h}.jsonEqual(v, ${pv}) ? v : ${pv}`
    : typeof value === 'string'
      ? pv
      : `typeof v === 'string' ? ${literal(scalarText(value))} : ${pv}`;
  const write = `if (v === undefined) ${a} = ${pv};\nelse { const nv = ${kept}; if (nv !== v) { ${set(e.key, 'nv')} } }`;
  return e.add ? `if (v === undefined) { ${write} }` : write;
}

/**
 * The new value of a child map that `group` (in pattern order) names, from its value `v` (undefined, null or
 * a map: the checks rule out anything else). Where there is no map, the first pattern not skipped that
 * applies inserts its map as it is (`+()` applies only where the key is absent, a plain key also over
 * `null`), and the patterns after it write into that; where there is one, `+()` patterns leave it alone. A
 * pattern whose conditions sit in this map is skipped wherever there is none (its check failed).
 */
function groupFunction(group: readonly Item[], schema: SchemaRef, g: Gen): string {
  const name = `g${g.next++}`;
  const writes = (items: readonly Item[]): string | undefined => {
    const plain = items.filter((i) => !i.add);
    return plain.length === 0 ? undefined : fusedFunction(plain, schema, g);
  };
  const apply = (fn: string | undefined, v: string): string => (fn === undefined ? v : `${fn}(${v}, cx)`);
  const lines = [`if (${isMapSource('v')}) return ${apply(writes(group), 'v')};`];
  group.forEach((item, i) => {
    const inserted = insertedAsIs(item.node, schema);
    if (inserted === undefined) return; // skippedWhenAbsent or a merge list in it: its check failed or went general here
    const applies = item.add ? `v === undefined && (cx.skip & ${1 << item.pattern}) === 0` : `(cx.skip & ${1 << item.pattern}) === 0`;
    lines.push(`if (${applies}) return ${apply(writes(group.slice(i + 1)), g.k.ref(inserted))};`);
  });
  lines.push('return v;');
  g.fns.push(`function ${name}(v, cx) {\n${lines.join('\n')}\n}`);
  return name;
}
