/**
 * Sets as one ApplyConfiguration `Object{...}` (map.md §5), where server-side apply does exactly what the IR
 * op does: every step of the path is a granular struct, a granular map or a list keyed by the segment's key
 * alone (for every kind the match admits, per the built-in schema), and the value is a scalar. Then SSA sets
 * the scalar and creates the missing parents as the IR set does, and a keyed item it creates is appended, as
 * Gatekeeper's `[key: value]` does. A set only where the key is missing (`+(k)`, AssignMetadata) becomes a
 * conditional `... ? Object{...} : Object{}`: the empty patch changes nothing. Anything else (removals,
 * lists written whole, map values that SSA would merge rather than replace, atomic types) stays JSONPatch.
 */
import { isJsonObject, type JsonScalar, type JsonValue } from '../../ir/json.js';
import type { MatchSpec } from '../../ir/match.js';
import type { Op, SetOp } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import type { Atom, Schema, TypeRef } from '../../merge/ssa/schema.js';
import { isEmptyTypeRef } from '../../merge/ssa/schema.js';
import { celLiteral, celString, hasField, isSelectable, select } from './emit-cel.js';
import { admittedTypes } from './emit-schema.js';

type Node =
  | { kind: 'struct'; typeName: string; fields: Map<string, Node> }
  | { kind: 'map'; entries: Map<string, Node> }
  | { kind: 'list'; typeName: string; key: string; items: Map<string, { key: JsonScalar; node: Node }> }
  | { kind: 'value'; cel: string };

/** How one path step is written: a struct field, a map entry or a keyed list item. */
type Shape = 'struct' | 'map' | 'list';

function granular(a: Atom['map'] | Atom['list']): boolean {
  return a !== undefined && a.elementRelationship !== 'atomic';
}

function scalarFits(kind: string | undefined, v: JsonScalar): boolean {
  if (kind === undefined || v === null) return false;
  if (kind === 'untyped') return true;
  return kind === (typeof v === 'number' ? 'numeric' : typeof v === 'string' ? 'string' : 'boolean');
}

/** The shape of each step for one kind, or undefined where SSA would not write exactly this. */
function shapesFor(schema: Schema, root: TypeRef, segs: readonly Segment[], value: JsonScalar): Shape[] | undefined {
  const shapes: Shape[] = [];
  let t = root;
  for (const s of segs) {
    const a = schema.resolve(t);
    if (!a || a.scalar !== undefined) return undefined;
    if (s.kind === 'field') {
      if (!a.map || !granular(a.map) || a.list) return undefined;
      const f = a.map.fieldIndex.get(s.name);
      if (f) {
        shapes.push('struct');
        t = f.type;
      } else {
        if (isEmptyTypeRef(a.map.elementType) || a.map.fields.length > 0) return undefined;
        shapes.push('map');
        t = a.map.elementType;
      }
      continue;
    }
    if (s.kind === 'keyed' && s.create) {
      const l = a.list;
      if (!l || a.map || l.elementRelationship !== 'associative' || l.keys.length !== 1 || l.keys[0] !== s.key) return undefined;
      const item = schema.resolve(l.elementType);
      const keyType = item?.map?.fieldIndex.get(s.key);
      if (!keyType || !scalarFits(schema.resolve(keyType.type)?.scalar, s.value)) return undefined;
      shapes.push('list');
      t = l.elementType;
      continue;
    }
    return undefined;
  }
  const a = schema.resolve(t);
  return a && !a.map && !a.list && scalarFits(a.scalar, value) ? shapes : undefined;
}

/** The leaf's path without its final `notExist` test, and whether it had one; undefined for other tests. */
function plainPath(op: SetOp): { segs: Segment[]; ifAbsent: boolean } | undefined {
  const segs = op.path.segments;
  const last = segs[segs.length - 1];
  if (!last || op.path.root !== 'object') return undefined;
  for (const s of segs.slice(0, -1)) if ('test' in s && s.test) return undefined;
  if (last.kind !== 'field' || !last.test) return 'test' in last && last.test ? undefined : { segs: [...segs], ifAbsent: false };
  if (last.test !== 'notExist') return undefined;
  return { segs: [...segs.slice(0, -1), { kind: 'field', name: last.name }], ifAbsent: true };
}

interface Write {
  segs: Segment[];
  shapes: Shape[];
  cel: string;
}

/** One path with a scalar value, shaped for every admitted kind alike. */
function writeOf(match: MatchSpec, segs: Segment[], value: JsonScalar, cel: string): Write | undefined {
  const known = admittedTypes(match, segs);
  if (!known) return undefined;
  let shapes: Shape[] | undefined;
  for (const t of known.types) {
    const s = shapesFor(known.schema, t, segs, value);
    if (!s || (shapes && s.join() !== shapes.join())) return undefined;
    shapes = s;
  }
  if (!shapes) return undefined;
  // A write of a keyed item's own key would rename the item.
  if (segs.some((s, i) => s.kind === 'keyed' && segs[i + 1]?.kind === 'field' && (segs[i + 1] as { name: string }).name === s.key)) return undefined;
  // Struct fields are CEL identifiers in `Object.a.b{field: ...}`; reserved words (`namespace`) are not.
  if (segs.some((s, i) => shapes![i] === 'struct' && s.kind === 'field' && !isSelectable(s.name))) return undefined;
  return { segs, shapes, cel };
}

/** The writes of one set: its scalar, or every scalar of a map literal set where the key is missing. */
function writesOf(op: SetOp, segs: Segment[], ifAbsent: boolean, match: MatchSpec): Write[] | undefined {
  const v = op.value;
  if (v.kind === 'fromMetadata') {
    const w = writeOf(match, segs, '', `object.metadata.?${v.field}.orValue("")`);
    return w && [w];
  }
  if (v.kind !== 'literal') return undefined;
  const out: Write[] = [];
  const walk = (x: JsonValue, at: Segment[]): boolean => {
    if (isJsonObject(x)) {
      const keys = Object.keys(x);
      // Only a missing place is created whole; a map merged into an existing one is SSA's union, not a set.
      if (!ifAbsent || keys.length === 0) return false;
      return keys.every((k) => walk(x[k]!, [...at, { kind: 'field', name: k }]));
    }
    if (Array.isArray(x) || x === null) return false;
    const lit = celLiteral(x);
    const w = lit === undefined ? undefined : writeOf(match, at, x, lit);
    if (!w) return false;
    out.push(w);
    return true;
  };
  return walk(v.json, segs) ? out : undefined;
}

/** Adds one write to the tree; paths of one patch never are prefixes of each other (see `meets`). */
function insert(root: Node & { kind: 'struct' }, w: Write): void {
  let node: Node = root;
  let typeName = 'Object';
  for (const [i, s] of w.segs.entries()) {
    const next = w.shapes[i + 1];
    const make = (): Node => (next === undefined ? { kind: 'value', cel: w.cel } : next === 'struct' ? { kind: 'struct', typeName, fields: new Map() } : next === 'map' ? { kind: 'map', entries: new Map() } : { kind: 'list', typeName, key: (w.segs[i + 1] as { key: string }).key, items: new Map() });
    if (node.kind === 'struct' && s.kind === 'field') {
      typeName = `${typeName}.${s.name}`;
      node = node.fields.get(s.name) ?? node.fields.set(s.name, make()).get(s.name)!;
    } else if (node.kind === 'map' && s.kind === 'field') {
      node = node.entries.get(s.name) ?? node.entries.set(s.name, make()).get(s.name)!;
    } else if (node.kind === 'list' && s.kind === 'keyed') {
      const id = JSON.stringify(s.value);
      const item = node.items.get(id) ?? node.items.set(id, { key: s.value, node: { kind: 'struct', typeName: node.typeName, fields: new Map() } }).get(id)!;
      node = item.node;
    }
  }
}

/** Whether one path is a prefix of the other (or the same): one patch cannot hold both writes. */
function meets(a: readonly Segment[], b: readonly Segment[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return false;
  return true;
}

function render(n: Node): string {
  switch (n.kind) {
    case 'value':
      return n.cel;
    case 'struct':
      return `${n.typeName}{${[...n.fields].map(([k, v]) => `${k}: ${render(v)}`).join(', ')}}`;
    case 'map':
      return `{${[...n.entries].map(([k, v]) => `${celString(k)}: ${render(v)}`).join(', ')}}`;
    case 'list':
      return `[${[...n.items.values()]
        .map(({ key, node }) => {
          const s = node as Node & { kind: 'struct' };
          const fields = [`${n.key}: ${celLiteral(key)}`, ...[...s.fields].map(([k, v]) => `${k}: ${render(v)}`)];
          return `${s.typeName}{${fields.join(', ')}}`;
        })
        .join(', ')}]`;
  }
}

/** The presence test of the place at `segs` (field steps only), or undefined. */
function presence(segs: readonly Segment[]): string | undefined {
  let at = 'object';
  const tests: string[] = [];
  for (const s of segs) {
    if (s.kind !== 'field') return undefined;
    tests.push(hasField(at, s.name));
    at = select(at, s.name);
  }
  return tests.join(' && ');
}

export interface ApplyConfiguration {
  /** The Object expression, written under `condition` (CEL) when there is one. */
  object: string;
  condition?: string;
}

/**
 * The leaves as ApplyConfiguration patches, in order: consecutive unconditional sets share one Object, a set
 * where missing is its own conditional patch. Undefined when some leaf has no exact ApplyConfiguration.
 */
export function applyConfigurationsOf(leaves: readonly Op[], match: MatchSpec): ApplyConfiguration[] | undefined {
  const out: ApplyConfiguration[] = [];
  let run: Write[] = [];
  const close = (): void => {
    if (run.length > 0) out.push({ object: render(tree(run)) });
    run = [];
  };
  for (const leaf of leaves) {
    if (leaf.kind !== 'set') return undefined;
    const p = plainPath(leaf);
    if (!p) return undefined;
    const writes = writesOf(leaf, p.segs, p.ifAbsent, match);
    if (!writes || writes.length === 0) return undefined;
    if (p.ifAbsent) {
      close();
      const present = presence(p.segs);
      if (!present) return undefined;
      out.push({ object: render(tree(writes)), condition: present.includes(' && ') ? `!(${present})` : `!${present}` });
      continue;
    }
    if (writes.some((w) => run.some((r) => meets(r.segs, w.segs)))) close();
    run.push(...writes);
  }
  close();
  return out;
}

function tree(writes: readonly Write[]): Node & { kind: 'struct' } {
  const root: Node & { kind: 'struct' } = { kind: 'struct', typeName: 'Object', fields: new Map() };
  for (const w of writes) insert(root, w);
  return root;
}
