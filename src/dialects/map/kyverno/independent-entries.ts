/**
 * Whether the foreach entries of one Kyverno rule can be one JSONPatch mutation, computed from the object as
 * the rule finds it. Kyverno tests the rule's preconditions once, then runs the entries in turn, each on the
 * resource the one before left (handlers/mutation/common.go mutateForEach). As separate mutations the
 * entries are exact, but the rule's preconditions and variables would be evaluated again before each; as one
 * mutation they are evaluated once, as Kyverno does, and each entry's patches are computed from the object
 * before any entry: the same patches wherever no entry reads a place an earlier entry writes.
 *
 * Reads and writes are taken from the generated CEL (cel-patch.ts writes every place the same way): a read is
 * each `object` select chain (cut at its first step that is not a plain field: an index, a call), with those of
 * the policy variables it names; a write is each JSONPatch `path` and `from` up to its first computed part.
 * Two places overlap when one lies on the other's path. Anything not read in that form (`object` as a whole)
 * reads the root, which every write overlaps: the answer errs towards separate mutations.
 */
import type { Cel } from './cel-patch.js';

export type Path = readonly string[];

export interface PolicyVariable {
  readonly name: string;
  readonly expression: Cel;
}

/**
 * True when the entries `parts` (in order) read nothing an earlier one writes. The variables the rule's
 * conditions `before` read are left out: Kyverno loads them for the conditions, before the entries, and they
 * keep that value through them (each entry restores the context it began with), as in one mutation.
 */
export function independentEntries(parts: readonly Cel[], variables: readonly PolicyVariable[], before: readonly Cel[]): boolean {
  const loaded = new Set<string>();
  // Only a condition that reads all its variables whenever it holds (no `||`, no `? :`, which may skip
  // some: Kyverno stops at the first `any` condition that holds) has loaded them all.
  for (const g of before) if (!/\|\||\s\?\s/.test(g)) namedVariables(g, variables, loaded);
  const written: Path[] = [];
  for (const part of parts) {
    const reads = readsWithVariables(part, variables, loaded);
    if (readsAnyOf(reads, written)) return false;
    const writes = writePaths(part);
    if (writes === undefined) return false;
    written.push(...writes);
  }
  return true;
}

/**
 * True when the rule's conditions `before`, and the policy variables they or the entries `parts` name, read
 * nothing an entry writes: each entry can then be its own mutation, as it sees what the ones before it wrote
 * (as in Kyverno), and the conditions and variables evaluated again before it give what they gave before the
 * first, which is when Kyverno evaluated them.
 */
export function stableConditions(parts: readonly Cel[], variables: readonly PolicyVariable[], before: readonly Cel[]): boolean {
  const written: Path[] = [];
  for (const part of parts) {
    const writes = writePaths(part);
    if (writes === undefined) return false;
    written.push(...writes);
  }
  const names = new Set<string>();
  for (const c of [...before, ...parts]) namedVariables(c, variables, names);
  const reads: Read[] = before.flatMap(readPaths);
  for (const name of names) {
    const v = variables.find((x) => x.name === name);
    // A variable the rule does not define (the policy's own) is read whole: it may read anything.
    reads.push(...(v === undefined ? [{ path: [], presence: false }] : readPaths(v.expression)));
  }
  return !readsAnyOf(reads, written);
}

/** Some read sees a written place: a value read where a write lies on its path, a presence where one lies above it. */
function readsAnyOf(reads: readonly Read[], written: readonly Path[]): boolean {
  return reads.some((r) => written.some((w) => (r.presence ? startsWith(r.path, w) : overlaps(r.path, w))));
}

/** A read of the value at `path`, or of whether it is there only (`has(...)`). */
interface Read {
  readonly path: Path;
  readonly presence: boolean;
}

/** One place lies on the other's path. */
export function overlaps(a: Path, b: Path): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `prefix` is `path` or lies above it: a write there may make `path` appear or go. */
function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && overlaps(path, prefix);
}

/** Adds to `into` the policy variables `cel` names, transitively. */
function namedVariables(cel: Cel, variables: readonly PolicyVariable[], into: Set<string>): void {
  for (const m of cel.matchAll(VARIABLE)) {
    const name = m[1]!;
    if (into.has(name)) continue;
    into.add(name);
    const v = variables.find((x) => x.name === name);
    if (v !== undefined) namedVariables(v.expression, variables, into);
  }
}

const VARIABLE = /(?<![\w.])variables\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** The reads of `cel` and of the policy variables it names, transitively, but for the `loaded` ones. */
function readsWithVariables(cel: Cel, variables: readonly PolicyVariable[], loaded: ReadonlySet<string>): Read[] {
  const reads: Read[] = [];
  const seen = new Set<string>(loaded);
  const visit = (text: Cel): void => {
    reads.push(...readPaths(text));
    for (const m of text.matchAll(VARIABLE)) {
      const name = m[1]!;
      if (seen.has(name)) continue;
      seen.add(name);
      const v = variables.find((x) => x.name === name);
      // A variable the rule does not define (the policy's own) is read whole: it may read anything.
      if (v === undefined) reads.push({ path: [], presence: false });
      else visit(v.expression);
    }
  };
  visit(cel);
  return reads;
}

/**
 * Every `object` select chain of `cel` (`object.spec.?containers` reads spec.containers); one that is the
 * whole argument of `has()` reads only whether the place is there.
 */
function readPaths(text: Cel): Read[] {
  const out: Read[] = [];
  // A string literal reads nothing (a failure's message may say "object").
  const cel = blankStrings(text);
  for (const m of cel.matchAll(/(?<![\w.])object((?:\.\??[A-Za-z_][A-Za-z0-9_]*)*)/g)) {
    const path = m[1]!.split('.').slice(1).map((s) => s.replace(/^\?/, ''));
    const presence = cel.slice(Math.max(0, m.index - 4), m.index) === 'has(' && cel[m.index + m[0].length] === ')';
    out.push({ path, presence });
  }
  return out;
}

/** `cel` with the contents of its quoted string literals blanked out (same length, so indices still hold). */
export function blankStrings(cel: Cel): Cel {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < cel.length; i++) {
    const ch = cel[i]!;
    if (quote === undefined) {
      if (ch === '"' || ch === "'") quote = ch;
      out += ch;
    } else if (ch === '\\' && i + 1 < cel.length) {
      out += '  ';
      i++;
    } else if (ch === quote) {
      quote = undefined;
      out += ch;
    } else out += ' ';
  }
  return out;
}

/**
 * The places `cel`'s JSONPatch steps write (`path`, and `from`, which a move removes), each cut at its first
 * computed part; undefined when a pointer does not start with a literal.
 */
export function writePaths(cel: Cel): Path[] | undefined {
  const out: Path[] = [];
  for (const m of cel.matchAll(/\b(?:path|from): /g)) {
    const at = m.index + m[0].length;
    const literal = stringLiteralAt(cel, at);
    if (literal === undefined) return undefined;
    const computedAfter = /^\s*\+/.test(cel.slice(literal.end));
    const segments = literal.value.split('/').slice(1);
    // A computed rest continues the last segment (`"/metadata/annotations/" + key`): the place is its parent.
    if (computedAfter) segments.pop();
    out.push(segments.map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')));
  }
  return out;
}

/** The CEL string literal (double-quoted, as celString writes it) starting at `at`, decoded, and where it ends. */
function stringLiteralAt(cel: Cel, at: number): { value: string; end: number } | undefined {
  if (cel[at] !== '"') return undefined;
  let value = '';
  for (let i = at + 1; i < cel.length; i++) {
    const ch = cel[i]!;
    if (ch === '"') return { value, end: i + 1 };
    if (ch !== '\\') {
      value += ch;
      continue;
    }
    const next = cel[++i];
    if (next === undefined) return undefined;
    // Only the escapes a pointer's static text needs are decoded; another one makes the place unknown.
    if (next === '"' || next === '\\' || next === '/') value += next;
    else return undefined;
  }
  return undefined;
}
