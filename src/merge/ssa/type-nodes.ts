/**
 * A type reference with its resolution done once: the atom it denotes and, built on first use, the nodes of
 * its map keys and list items. The hot walks (typing, the atomic guard, the strict decode) step from node to
 * node instead of resolving a reference and looking its field up at every value. Nodes are created by
 * Schema.node and live as long as their schema; they hold nothing about the values walked.
 */
import type { JsonValue } from '../../ir/json.js';
import type { Atom, ListType, MapType, TypeRef } from './schema.js';

/** What a node needs from its schema (kept narrow so that schema.ts can build nodes without a cycle). */
export interface NodeSource {
  resolve(tr: TypeRef): Atom | undefined;
  node(tr: TypeRef): TypeNode;
  isEmptyTypeRef(tr: TypeRef): boolean;
}

/**
 * The nodes of a map's declared fields by name, in an object without prototype (so that no key, `__proto__`
 * and `constructor` included, reads anything but a field): a keyed read of such an object measured about a
 * quarter faster than Map.get over the MAP benchmark's Pods, and typing looks one up per map key.
 */
type FieldNodes = Record<string, TypeNode | undefined>;

export class TypeNode {
  /** Schema.resolve(tr): undefined when a named type is missing or an override hits a scalar. */
  readonly atom: Atom | undefined;
  readonly map: MapType | undefined;
  readonly list: ListType | undefined;
  readonly scalar: string | undefined;
  /** A map whose element type is the empty reference: keys it does not declare are errors. */
  readonly closed: boolean;
  /** The atom has no form at all (handleAtom's "invalid atom"). */
  readonly formless: boolean;
  /**
   * The nodes of the declared fields, made together on first use (bounded by the schema: keys under the
   * element type, such as label names, are never cached, so the cache does not grow with the documents).
   */
  private fieldNodes: FieldNodes | undefined;
  /** typing-check.ts's generated check of this node, made on first use (null: code could not be generated). */
  generatedTypingCheck: ((v: JsonValue) => boolean) | null | undefined;
  /** go-decode-types.ts: whether a value below may be of a type with its own UnmarshalJSON (decided on first use). */
  unmarshalerReach: boolean | undefined = undefined;
  private elementTypeNode: TypeNode | undefined;
  private itemNode: TypeNode | undefined;

  constructor(
    private readonly source: NodeSource,
    readonly tr: TypeRef,
  ) {
    const atom = source.resolve(tr);
    this.atom = atom;
    this.map = atom?.map;
    this.list = atom?.list;
    this.scalar = atom?.scalar;
    this.closed = atom?.map !== undefined && source.isEmptyTypeRef(atom.map.elementType);
    this.formless = atom !== undefined && atom.map === undefined && atom.list === undefined && atom.scalar === undefined;
  }

  /**
   * The node of map key `key` as typing walks it: the declared field's type, else the element type, or
   * undefined for a key a closed struct does not declare. Requires a map form.
   */
  keyNode(key: string): TypeNode | undefined {
    const declared = this.declaredNode(key);
    if (declared !== undefined) return declared;
    return this.closed ? undefined : this.elementNode;
  }

  /** keyNode, or the element type's node where keyNode has none (the merge resolves the empty reference). */
  fieldOrElementNode(key: string): TypeNode {
    return this.declaredNode(key) ?? this.elementNode;
  }

  /** The node of a declared field only (the atomic guard never descends into a map's element type). */
  declaredNode(key: string): TypeNode | undefined {
    let fields = this.fieldNodes;
    if (fields === undefined) {
      const built: FieldNodes = Object.create(null) as FieldNodes;
      for (const [name, field] of this.map!.fieldIndex) built[name] = this.source.node(field.type);
      this.fieldNodes = fields = built;
    }
    return fields[key];
  }

  /** The node of the map's element type. Requires a map form. */
  get elementNode(): TypeNode {
    return (this.elementTypeNode ??= this.source.node(this.map!.elementType));
  }

  /** The node of the list's items. Requires a list form. */
  get item(): TypeNode {
    return (this.itemNode ??= this.source.node(this.list!.elementType));
  }
}
