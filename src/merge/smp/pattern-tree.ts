/**
 * A private, mutable copy of a patchStrategicMerge pattern shaped like the yaml.v3 node tree Kyverno's
 * preprocessing edits in place (pkg/engine/mutate/patch/strategicPreprocessing.go). Maps keep an entry list
 * rather than an object because renaming `+(k)` to `k` can produce a duplicate key, and kyaml reads the
 * last occurrence (RNode.Field) but clears the first (FieldClearer) and sets the first (FieldMatcher).
 */
import { defineOwn, isJsonObject, type JsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';

export type PNode = PMap | PSeq | PScalar;

export interface PMap {
  t: 'map';
  entries: Array<[string, PNode]>;
}

export interface PSeq {
  t: 'seq';
  items: PNode[];
}

export interface PScalar {
  t: 'scalar';
  v: JsonScalar;
}

export function fromJson(v: JsonValue): PNode {
  if (Array.isArray(v)) return { t: 'seq', items: v.map(fromJson) };
  if (isJsonObject(v)) return { t: 'map', entries: Object.keys(v).map((k) => [k, fromJson(v[k]!)]) };
  return { t: 'scalar', v };
}

/** The JSON form (a repeated key keeps its first position and its last value, as Go's map decoding does). */
export function toJson(n: PNode): JsonValue {
  if (n.t === 'scalar') return n.v;
  if (n.t === 'seq') return n.items.map(toJson);
  const out: JsonObject = {};
  for (const [k, v] of n.entries) defineOwn(out, k, toJson(v));
  return out;
}

export function copyNode(n: PNode): PNode {
  if (n.t === 'scalar') return { t: 'scalar', v: n.v };
  if (n.t === 'seq') return { t: 'seq', items: n.items.map(copyNode) };
  return { t: 'map', entries: n.entries.map(([k, v]) => [k, copyNode(v)]) };
}

/** RNode.Field: the last entry with this key. */
export function field(m: PMap, name: string): PNode | undefined {
  for (let i = m.entries.length - 1; i >= 0; i--) if (m.entries[i]![0] === name) return m.entries[i]![1];
  return undefined;
}

/** RNode.Fields: every key in order, repeated keys included. */
export function keysOf(m: PMap): string[] {
  return m.entries.map(([k]) => k);
}

/** yaml.Clear: removes the first entry with this key. */
export function clearField(m: PMap, name: string): void {
  const i = m.entries.findIndex(([k]) => k === name);
  if (i >= 0) m.entries.splice(i, 1);
}

/** renameField: renames the entry RNode.Field finds (the last one). */
export function renameField(m: PMap, name: string, newName: string): void {
  for (let i = m.entries.length - 1; i >= 0; i--) {
    if (m.entries[i]![0] === name) {
      m.entries[i]![0] = newName;
      return;
    }
  }
}

/** yaml.SetField: replaces the first entry with this key, else appends. */
export function setField(m: PMap, name: string, value: PNode): void {
  const i = m.entries.findIndex(([k]) => k === name);
  if (i >= 0) m.entries[i]![1] = value;
  else m.entries.push([name, value]);
}

/** RNode.IsNilOrEmpty of a value: null, an empty map or an empty list. */
export function isNilOrEmpty(n: PNode | undefined): boolean {
  if (n === undefined) return true;
  if (n.t === 'scalar') return n.v === null;
  return n.t === 'map' ? n.entries.length === 0 : n.items.length === 0;
}
