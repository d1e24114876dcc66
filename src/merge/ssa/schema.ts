/**
 * An in-memory structured-merge-diff (SMD) schema: named types made of atoms (scalar / list / map), the
 * type references between them, and the resolution rules of sigs.k8s.io/structured-merge-diff/v6
 * schema/elements.go (`Schema.Resolve`, `Map.FindField`). The loader for the SMD YAML/JSON form lives in
 * schema-load.ts; this module only models and resolves.
 */
import type { JsonValue } from '../../ir/json.js';
import { TypeNode, type NodeSource } from './type-nodes.js';

export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

/**
 * `associative`: lists keyed by element value (sets) or by key fields (map-lists); `atomic`: the container is
 * one leaf; `separable` (or unset): map entries are independent. Lists must state atomic or associative
 * upstream; anything else makes the merge fail with "invalid indexing of non-associative list".
 */
export type ElementRelationship = 'associative' | 'atomic' | 'separable';

/** One type: any combination of a scalar, a list and a map form (the untyped types carry all three). */
export interface Atom {
  readonly scalar?: ScalarKind | string;
  readonly list?: ListType;
  readonly map?: MapType;
}

/**
 * A reference to a named type, or an inline atom; `elementRelationship` overrides the referred list or map's
 * relationship (e.g. PersistentVolumeSpec.claimRef makes the atomic ObjectReference granular).
 */
export interface TypeRef {
  readonly namedType?: string;
  readonly inlined?: Atom;
  readonly elementRelationship?: ElementRelationship;
}

export interface StructField {
  readonly name: string;
  readonly type: TypeRef;
  /** Used only to complete a map-list key that an element omits (typed/helpers.go getAssociativeKeyDefault). */
  readonly default?: JsonValue;
}

export interface ListType {
  readonly elementType: TypeRef;
  readonly elementRelationship: ElementRelationship | undefined;
  /** Key field names of a map-list; empty for sets and atomic lists. */
  readonly keys: readonly string[];
  /**
   * `keys` sorted by name (the order of an item's identity, list-keys.ts), made with the type: identities
   * are built per item and merge, and a side table look-up per item cost more than building the id.
   */
  readonly sortedKeys?: readonly string[];
}

export interface MapType {
  readonly fields: readonly StructField[];
  /** Type of keys not named in `fields`; the empty reference means "closed struct" (unknown keys are errors). */
  readonly elementType: TypeRef;
  readonly elementRelationship: ElementRelationship | undefined;
  /** Field lookup by name, built once (Map.FindField). */
  readonly fieldIndex: ReadonlyMap<string, StructField>;
}

/** `TypeRef{}` in Go: no name, no inline atom, no override. A map with this element type is a closed struct. */
export const EMPTY_TYPE_REF: TypeRef = Object.freeze({});

export function isEmptyTypeRef(tr: TypeRef): boolean {
  return tr.namedType === undefined && tr.elementRelationship === undefined && (tr.inlined === undefined || isEmptyAtom(tr.inlined));
}

export function isEmptyAtom(a: Atom): boolean {
  return a.scalar === undefined && a.list === undefined && a.map === undefined;
}

export function makeMapType(init: {
  fields?: readonly StructField[];
  elementType?: TypeRef;
  elementRelationship?: ElementRelationship | undefined;
}): MapType {
  const fields = init.fields ?? [];
  const fieldIndex = new Map<string, StructField>();
  for (const f of fields) fieldIndex.set(f.name, f);
  return {
    fields,
    elementType: init.elementType ?? EMPTY_TYPE_REF,
    elementRelationship: init.elementRelationship,
    fieldIndex,
  };
}

export function makeListType(init: {
  elementType: TypeRef;
  elementRelationship?: ElementRelationship | undefined;
  keys?: readonly string[];
}): ListType {
  const keys = init.keys ?? [];
  return { elementType: init.elementType, elementRelationship: init.elementRelationship, keys, sortedKeys: [...keys].sort() };
}

/** A set of named types. Immutable once built; resolution of overridden references is cached. */
export class Schema {
  private readonly named: ReadonlyMap<string, Atom>;
  private readonly overridden = new WeakMap<TypeRef, Atom | null>();
  private unmergeableLists: boolean | undefined;
  private readonly nodes = new WeakMap<TypeRef, TypeNode>();
  /** The reference `node` was asked for last, and its node. */
  private lastNodeRef: TypeRef | undefined;
  private lastNode: TypeNode | undefined;
  /** Frozen values known to pass the ApplyConfiguration patch checks at a node (see rememberPassingPatch). */
  private readonly passingPatches = new WeakMap<object, TypeNode>();
  private readonly nodeSource: NodeSource = {
    resolve: (tr) => this.resolve(tr),
    node: (tr) => this.node(tr),
    isEmptyTypeRef,
  };

  constructor(types: Iterable<readonly [string, Atom]>) {
    this.named = new Map(types);
  }

  /**
   * Records that the frozen value `v` types strictly and sets no atomic at `n` (fast-checks.ts
   * typesStrictlySettingNoAtomic). A frozen value cannot change, so the answer holds for as long as the
   * schema lives: a policy's constant `Object{}` literal (src/cel/mutation.ts constantObjectJson) is then
   * checked once, not once per evaluation. Only passes are kept (a failing patch is worded by the reference
   * walks anyway); entries go with their values (weak keys).
   */
  rememberPassingPatch(n: TypeNode, v: object): void {
    this.passingPatches.set(v, n);
  }

  /** rememberPassingPatch was called for `v` at `n`. */
  isPassingPatch(n: TypeNode, v: object): boolean {
    return this.passingPatches.get(v) === n;
  }

  typeNames(): string[] {
    return [...this.named.keys()];
  }

  hasType(name: string): boolean {
    return this.named.has(name);
  }

  /**
   * The atom a reference denotes, or undefined when a named type is missing or an override is applied to a
   * scalar (schema/elements.go Resolve). The empty reference resolves to the empty atom.
   */
  resolve(tr: TypeRef): Atom | undefined {
    if (tr.elementRelationship === undefined) return this.resolveNoOverride(tr);
    const cached = this.overridden.get(tr);
    if (cached !== undefined) return cached ?? undefined;
    const computed = this.resolveWithOverride(tr, tr.elementRelationship);
    this.overridden.set(tr, computed ?? null);
    return computed;
  }

  /** The reference's node (type-nodes.ts), built once per reference. */
  node(tr: TypeRef): TypeNode {
    // Nearly every call asks for the root of the kind typed last (each merge and decode of a request does,
    // several times): one comparison instead of a WeakMap look-up (issue 17).
    if (tr === this.lastNodeRef) return this.lastNode!;
    let n = this.nodes.get(tr);
    if (n === undefined) {
      n = new TypeNode(this.nodeSource, tr);
      this.nodes.set(tr, n);
    }
    this.lastNodeRef = tr;
    this.lastNode = n;
    return n;
  }

  /**
   * Whether some list type is neither atomic nor associative (or a reference overrides a list to
   * `separable`). Upstream's merge fails on any non-empty value of such a list, even one the patch does not
   * touch, so the merge must then visit untouched subtrees too; schemas converted by kube-openapi never do.
   */
  hasUnmergeableLists(): boolean {
    if (this.unmergeableLists === undefined) this.unmergeableLists = this.scanForUnmergeableLists();
    return this.unmergeableLists;
  }

  private scanForUnmergeableLists(): boolean {
    const seen = new Set<Atom>();
    const refBad = (tr: TypeRef): boolean =>
      (tr.elementRelationship === 'separable' &&
        (tr.namedType !== undefined ? this.namedHasListOnly(tr.namedType) : tr.inlined?.map === undefined && tr.inlined?.list !== undefined)) ||
      (tr.inlined !== undefined && atomBad(tr.inlined));
    const atomBad = (a: Atom): boolean => {
      if (seen.has(a)) return false;
      seen.add(a);
      if (a.list !== undefined) {
        const er = a.list.elementRelationship;
        if (er !== 'atomic' && er !== 'associative') return true;
        if (refBad(a.list.elementType)) return true;
      }
      if (a.map !== undefined) {
        if (refBad(a.map.elementType)) return true;
        for (const f of a.map.fields) if (refBad(f.type)) return true;
      }
      return false;
    };
    for (const a of this.named.values()) if (atomBad(a)) return true;
    return false;
  }

  private namedHasListOnly(name: string): boolean {
    const a = this.named.get(name);
    return a !== undefined && a.map === undefined && a.list !== undefined;
  }

  private resolveNoOverride(tr: TypeRef): Atom | undefined {
    if (tr.namedType !== undefined) return this.named.get(tr.namedType);
    return tr.inlined ?? EMPTY_ATOM;
  }

  private resolveWithOverride(tr: TypeRef, er: ElementRelationship): Atom | undefined {
    const base = this.resolveNoOverride(tr);
    if (base === undefined) return undefined;
    // Upstream overrides the map if there is one, else the list; a scalar-only atom cannot be overridden.
    if (base.map !== undefined) return { ...base, map: { ...base.map, elementRelationship: er } };
    if (base.list !== undefined) return { ...base, list: { ...base.list, elementRelationship: er } };
    return undefined;
  }
}

const EMPTY_ATOM: Atom = Object.freeze({});

/** Type names of the deduced schema (typed/parser.go DeducedParseableType). */
export const UNTYPED_ATOMIC = '__untyped_atomic_';
export const UNTYPED_DEDUCED = '__untyped_deduced_';

function buildDeducedSchema(): Schema {
  const atomicRef: TypeRef = { namedType: UNTYPED_ATOMIC };
  const deducedRef: TypeRef = { namedType: UNTYPED_DEDUCED };
  const untypedAtomic: Atom = {
    scalar: 'untyped',
    list: makeListType({ elementType: atomicRef, elementRelationship: 'atomic' }),
    map: makeMapType({ elementType: atomicRef, elementRelationship: 'atomic' }),
  };
  // Deduced: maps are granular all the way down, every list is atomic (NewDeducedTypeConverter).
  const untypedDeduced: Atom = {
    scalar: 'untyped',
    list: makeListType({ elementType: atomicRef, elementRelationship: 'atomic' }),
    map: makeMapType({ elementType: deducedRef, elementRelationship: 'separable' }),
  };
  return new Schema([
    [UNTYPED_ATOMIC, untypedAtomic],
    [UNTYPED_DEDUCED, untypedDeduced],
  ]);
}

/** The schema used when a kind has none ("deduced"): granular maps, atomic lists, any scalar. */
export const DEDUCED_SCHEMA: Schema = buildDeducedSchema();
export const DEDUCED_TYPE_REF: TypeRef = Object.freeze({ namedType: UNTYPED_DEDUCED });
