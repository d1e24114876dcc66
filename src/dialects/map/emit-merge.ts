/**
 * A merge of a literal map (Kyverno strategic merge / JSON merge patch) as path ops, one per leaf: a scalar
 * (or, for a JSON merge patch, a list) is set, `null` removes, an empty map is created only where missing
 * (merging nothing into an existing map changes nothing). Each leaf becomes its own mutation, so a later leaf
 * sees the parents an earlier one created.
 *
 * Strategic merge, as Kyverno preprocesses it (kyverno.md §1.8 (a); src/merge/smp/anchors.ts):
 * - `+(k): scalar` is set only where `k` is missing (handleAddIfNotPresent: the anchor is dropped when the
 *   resource has the key, even as null, else renamed to `k`);
 * - a list kyaml replaces (no `merge` strategy for any kind the rule matches) is a set of the whole list;
 * - a list of elements holding only global anchors `<(k): {}` is a condition on the whole patch and is
 *   itself dropped by the cleanup: the list must be present and either empty or hold an element whose `k`
 *   is a map (processListOfMaps: an absent list fails the global condition, an empty one is never tested).
 * Lists merged by key depend on Kyverno's element order (prepend) and stay unsupported.
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { MatchSpec } from '../../ir/match.js';
import type { MergeOp, Op } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import { hasField, select } from './emit-cel.js';
import { schemaField } from './emit-schema.js';
import { smpReplacesList } from './emit-smp-lists.js';

const ANCHOR = /^[+<=X^]?\(.*\)$/;
const ADD_IF_MISSING = /^\+\((.+)\)$/;
const GLOBAL = /^<\((.+)\)$/;

export interface MergeLeaves {
  ops: Op[];
  /** CEL conditions that gate every leaf (global anchors), evaluated on the object before the merge. */
  guards: string[];
}

/** A value kyaml and Kyverno's preprocessing write as it is: no anchors, directives, nulls or empty containers. */
function isPlain(v: JsonValue): boolean {
  if (v === null) return false;
  if (typeof v === 'string') return !ANCHOR.test(v.trim());
  if (Array.isArray(v)) return v.length > 0 && v.every(isPlain);
  if (isJsonObject(v)) {
    const keys = Object.keys(v);
    return keys.length > 0 && keys.every((k) => !k.startsWith('$') && !ANCHOR.test(k.trim()) && isPlain(v[k]!));
  }
  return true;
}

/** The CEL of the map at `segs` below `object`, and the presence tests of its parents. */
function place(segs: readonly Segment[]): { cel: string; tests: string[] } | undefined {
  let cel = 'object';
  const tests: string[] = [];
  for (const s of segs) {
    if (s.kind !== 'field') return undefined;
    tests.push(hasField(cel, s.name));
    cel = select(cel, s.name);
  }
  return { cel, tests };
}

/** `<(k): {}` elements only: the condition that the global anchors hold, or why it is not stated. */
function globalCondition(list: readonly JsonValue[], segs: readonly Segment[], match: MatchSpec): string | { why: string } | undefined {
  const keys: string[] = [];
  for (const e of list) {
    if (!isJsonObject(e)) return undefined;
    for (const [k, v] of Object.entries(e)) {
      const g = GLOBAL.exec(k.trim());
      if (!g) return keys.length > 0 || Object.keys(e).some((x) => GLOBAL.test(x.trim())) ? { why: 'a list element mixing global anchors with other keys' } : undefined;
      // `{}` matches any map (validate.MatchPattern); a field the schema types as a struct is never anything else.
      if (!isJsonObject(v) || Object.keys(v).length > 0) return { why: `the global anchor ${JSON.stringify(k)} with a pattern other than {}` };
      if (!schemaField(match, [...segs, { kind: 'each' }, { kind: 'field', name: g[1]! }], 'struct')) return { why: `the global anchor ${JSON.stringify(k)} on a field not typed as a map for every kind matched` };
      keys.push(g[1]!);
    }
  }
  if (keys.length === 0 || list.length !== 1) return keys.length === 0 ? undefined : { why: 'several list elements with global anchors' };
  const at = place(segs);
  if (!at) return { why: 'a global anchor below a list' };
  const item = keys.map((k) => hasField('v', k)).join(' && ');
  return [...at.tests, `(size(${at.cel}) == 0 || ${at.cel}.exists(v, ${item}))`].join(' && ');
}

export function mergeLeaves(op: MergeOp, match: MatchSpec): MergeLeaves | string {
  if (op.value.kind !== 'literal') return `a merge of a ${op.value.kind} value`;
  if (!isJsonObject(op.value.json)) return 'a merge of a value that is not a map';
  const ops: Op[] = [];
  const guards: string[] = [];
  const leaf = (segs: Segment[], v: JsonValue): void => {
    ops.push({ kind: 'set', path: { root: op.path.root, segments: segs }, value: { kind: 'literal', json: v, origin: op.origin }, origin: op.origin });
  };
  const walk = (v: JsonValue, segs: Segment[]): string | undefined => {
    if (isJsonObject(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0 && segs.length > 0) {
        const last = segs[segs.length - 1]!;
        if (last.kind !== 'field') return 'an empty map below a list';
        if (op.strategy === 'smp') return 'an empty map in a strategic merge patch (Kyverno drops it)';
        leaf([...segs.slice(0, -1), { kind: 'field', name: last.name, test: 'notExist' }], {});
        return undefined;
      }
      for (const k of keys) {
        const add = op.strategy === 'smp' ? ADD_IF_MISSING.exec(k.trim()) : null;
        if (add) {
          const x = v[k]!;
          if (keys.includes(add[1]!)) return `the key ${JSON.stringify(add[1])} both plain and as +()`;
          if (!isPlain(x) || Array.isArray(x)) return `the add anchor ${JSON.stringify(k)} with a value other than plain scalars and maps`;
          leaf([...segs, { kind: 'field', name: add[1]!, test: 'notExist' }], x);
          continue;
        }
        if (op.strategy === 'smp' && (k.startsWith('$') || ANCHOR.test(k.trim()))) return `the strategic-merge directive or anchor ${JSON.stringify(k)}`;
        const r = walk(v[k]!, [...segs, { kind: 'field', name: k }]);
        if (r) return r;
      }
      return undefined;
    }
    if (Array.isArray(v) && op.strategy !== 'json') {
      const where = segs.map((s) => (s.kind === 'field' ? s.name : '[]')).join('.');
      const global = globalCondition(v, segs, match);
      if (typeof global === 'string') {
        guards.push(global);
        return undefined;
      }
      if (global) return global.why;
      if (!smpReplacesList(match, segs)) return `a list in a strategic merge patch merged by key at ${where} (Kyverno prepends new items, MAP appends)`;
      if (!isPlain(v)) return `a list in a strategic merge patch with anchors, directives, nulls or empty values at ${where}`;
      leaf(segs, v);
      return undefined;
    }
    if (op.strategy === 'smp' && typeof v === 'string' && ANCHOR.test(v.trim())) return `the anchor-like value ${JSON.stringify(v)} in a strategic merge patch`;
    if (v === null) ops.push({ kind: 'remove', path: { root: op.path.root, segments: segs }, origin: op.origin });
    else leaf(segs, v);
    return undefined;
  };
  const why = walk(op.value.json, [...op.path.segments]);
  return why ?? { ops, guards };
}
