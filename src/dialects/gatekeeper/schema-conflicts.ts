/**
 * Gatekeeper's implied-schema database (pkg/mutation/schema/schema.go, node.go): every Assign, ModifySet and
 * AssignImage registers its location in one tree per binding (group, version, kind, operation); two
 * mutators that disagree on the shape of the object at some path are in conflict, and the system skips
 * every mutator in a conflict (system.go Mutate: `if s.schemaDB.HasConflicts(id) { continue }`).
 *
 * What conflicts, at a key of a node: two known node types (Object, List, Set, String; Unknown never
 * conflicts); a List whose elements are addressed by more than one key field; a path that continues below
 * a place some mutator must terminate at (AssignImage, external-data Assign).
 */
import type { LocationNode, LocationPath } from './location.js';
import type { ApplyToEntry } from './match.js';
import { SUPPORTED_OPERATIONS } from './match.js';

export type TerminalType = 'Unknown' | 'Set' | 'String';
type NodeType = 'Object' | 'List' | TerminalType;

class SchemaNode {
  readonly referencedBy = new Set<string>();
  /** Ids of the mutators whose path ends here and must not be extended (MustTerminate). */
  readonly mustTerminate = new Set<string>();
  /** Child key (field name, or list key field) → node type → node. */
  readonly children = new Map<string, Map<NodeType, SchemaNode>>();
}

/** node.go key: an Object is keyed by its field name, a List by its key field. */
function keyOf(n: LocationNode): string {
  return n.type === 'Object' ? n.reference : n.keyField;
}

/** node.go headType: the type of the node after the first one, or the terminal type at the end. */
function headType(path: LocationPath, at: number, terminal: TerminalType): NodeType {
  const next = path[at + 1];
  return next === undefined ? terminal : next.type;
}

function addAll(into: Set<string>, from: Iterable<string>): void {
  for (const id of from) into.add(id);
}

/** node.conflicts: the ids in conflict under one child key of `node`. */
function conflictsAt(node: SchemaNode, childKey: string): Set<string> {
  const out = new Set<string>();
  const kids = node.children.get(childKey);
  if (!kids) return out;
  const knownTypes = kids.size - (kids.has('Unknown') ? 1 : 0);
  for (const [type, child] of kids) {
    if (type === 'Unknown') continue;
    if (knownTypes > 1 || (type === 'List' && child.children.size > 1)) addAll(out, child.referencedBy);
  }
  const someMustTerminate = [...kids.values()].some((c) => c.mustTerminate.size > 0);
  const someContinues = [...kids.values()].some((c) => c.children.size > 0);
  if (!someMustTerminate || !someContinues) return out;
  for (const child of kids.values()) {
    addAll(out, child.mustTerminate);
    for (const byType of child.children.values()) for (const grandchild of byType.values()) addAll(out, grandchild.referencedBy);
  }
  return out;
}

/** One implied-schema tree (one binding). */
export class ImpliedSchema {
  private readonly root = new SchemaNode();

  /** node.Add: registers `path` for `id`; returns the ids in conflict along that path (empty when none). */
  add(id: string, path: LocationPath, terminal: TerminalType, mustTerminate: boolean): Set<string> {
    return this.addAt(this.root, id, path, 0, terminal, mustTerminate);
  }

  private addAt(node: SchemaNode, id: string, path: LocationPath, at: number, terminal: TerminalType, mustTerminate: boolean): Set<string> {
    node.referencedBy.add(id);
    if (at === path.length) {
      if (mustTerminate) node.mustTerminate.add(id);
      return new Set();
    }
    const childKey = keyOf(path[at]!);
    const childType = headType(path, at, terminal);
    let byType = node.children.get(childKey);
    if (!byType) node.children.set(childKey, (byType = new Map()));
    let child = byType.get(childType);
    if (!child) byType.set(childType, (child = new SchemaNode()));
    const found = this.addAt(child, id, path, at + 1, terminal, mustTerminate);
    addAll(found, conflictsAt(node, childKey));
    return found;
  }
}

/** What the schema database needs of a mutator; AssignMetadata takes no part. */
export interface SchemaEntry {
  /** `Kind/name`, the policy id. */
  id: string;
  location: LocationPath;
  applyTo: readonly ApplyToEntry[];
  terminalType: TerminalType;
  mustTerminate: boolean;
}

export interface SchemaConflict {
  /** `group/version, Kind=kind, operation` of one binding where the conflict shows. */
  binding: string;
  ids: string[];
}

/**
 * The bindings of an applyTo list (schema.go Upsert with core.NewValidatedBindings): every group × version
 * × kind × effective operation, where no operations (or `*`) mean both CREATE and UPDATE.
 */
function bindingsOf(applyTo: readonly ApplyToEntry[]): string[] {
  const out = new Set<string>();
  for (const a of applyTo) {
    const ops = a.operations.length === 0 || a.operations.includes('*') ? SUPPORTED_OPERATIONS : SUPPORTED_OPERATIONS.filter((o) => a.operations.includes(o));
    for (const g of a.groups) for (const v of a.versions) for (const k of a.kinds) for (const o of ops) out.add(`${g === '' ? '' : `${g}/`}${v}, Kind=${k}, ${o}`);
  }
  return [...out];
}

/**
 * Every mutator disabled by a schema conflict, with the first binding where each conflict shows. The result
 * does not depend on the order the entries come in.
 */
export function findSchemaConflicts(entries: readonly SchemaEntry[]): Map<string, SchemaConflict> {
  const trees = new Map<string, ImpliedSchema>();
  const disabled = new Map<string, SchemaConflict>();
  for (const e of entries) {
    for (const binding of bindingsOf(e.applyTo)) {
      let tree = trees.get(binding);
      if (!tree) trees.set(binding, (tree = new ImpliedSchema()));
      const ids = tree.add(e.id, e.location, e.terminalType, e.mustTerminate);
      if (ids.size === 0) continue;
      const conflict: SchemaConflict = { binding, ids: [...ids].sort() };
      for (const id of ids) if (!disabled.has(id)) disabled.set(id, conflict);
    }
  }
  return disabled;
}
