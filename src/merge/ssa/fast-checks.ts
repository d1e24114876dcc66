/**
 * Yes/no forms of the three walks MAP runs on every mutation, over type nodes (type-nodes.ts): "does this
 * value type without errors" (validate.ts), "does the patch set no atomic container" (atomic-guard.ts),
 * "does the object declare every field" (the strict decode of src/engines/ssa.ts). Nearly every value
 * passes, and these answer without building paths or messages; when one says no, the caller runs the
 * reference walk, which words the errors. Each must answer yes exactly when its reference finds nothing
 * (test/merge/ssa/fast-checks.test.ts compares them over the conformance corpus and fixtures).
 */
import { hasOwn, type JsonObject, type JsonValue } from '../../ir/json.js';
import { scalarFits } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { associativeItemError, associativeItemId, ItemKeyError, type ItemId } from './list-keys.js';
import type { ListType, Schema } from './schema.js';
import type { TypeNode } from './type-nodes.js';

/** validate.ts MEMO_MIN_VALUES: a memo entry costs about as much as walking a few scalars again. */
const MEMO_MIN_VALUES = 6;

/**
 * validateTyped(...).length === 0. With `checked` (duplicates allowed only, as validateTyped), containers
 * it knows valid are skipped and those found valid recorded, as the reference walk does.
 */
export function typesCleanly(schema: Schema, node: TypeNode, value: JsonValue, allowDuplicates: boolean, checked: CheckedSubtrees | undefined): boolean {
  return new CleanTyping(schema, allowDuplicates, allowDuplicates ? checked : undefined).valid(node, value);
}

class CleanTyping {
  /** Values visited so far (only differences are used), as the reference counts them for its memo. */
  private visited = 0;

  constructor(
    private readonly schema: Schema,
    private readonly allowDuplicates: boolean,
    private readonly checked: CheckedSubtrees | undefined,
  ) {}

  valid(n: TypeNode, v: JsonValue): boolean {
    const checked = this.checked;
    if (checked !== undefined && v !== null && typeof v === 'object') {
      if (checked.isValid(n.tr, v)) return true;
      const before = this.visited;
      if (!this.validValue(n, v)) return false;
      if (this.visited - before >= MEMO_MIN_VALUES) checked.markValid(n.tr, v);
      return true;
    }
    return this.validValue(n, v);
  }

  /** validateValue's cases, folded: see atoms.ts atomFormFor for which form a value selects. */
  private validValue(n: TypeNode, v: JsonValue): boolean {
    this.visited++;
    if (n.atom === undefined) return false;
    if (v === null) return !n.formless;
    if (typeof v !== 'object') return n.scalar !== undefined && scalarFits(n.scalar, v);
    if (Array.isArray(v)) return n.list !== undefined && this.validList(n, n.list, v);
    return n.map !== undefined && this.validMap(n, v);
  }

  private validMap(n: TypeNode, v: JsonObject): boolean {
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const child = n.keyNode(key);
      if (child === undefined || !this.valid(child, v[key]!)) return false;
    }
    return true;
  }

  private validList(n: TypeNode, t: ListType, v: JsonValue[]): boolean {
    if (v.length === 0) return true;
    const item = n.item;
    if (t.elementRelationship !== 'associative') {
      for (let i = 0; i < v.length; i++) if (!this.valid(item, v[i]!)) return false;
      return true;
    }
    if (!this.allowDuplicates) return this.validUniqueItems(item, t, v);
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (!keyable(this.schema, t, x) || !this.valid(item, x)) return false;
    }
    return true;
  }

  private validUniqueItems(item: TypeNode, t: ListType, v: JsonValue[]): boolean {
    const seen = new Set<ItemId>();
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      const id = associativeItemId(this.schema, t, x);
      if (id instanceof ItemKeyError || seen.has(id)) return false;
      seen.add(id);
      if (!this.valid(item, x)) return false;
    }
    return true;
  }
}

/** associativeItemError(...) === undefined, without its calls for the common item that has every key field. */
function keyable(schema: Schema, t: ListType, x: JsonValue): boolean {
  const keys = t.keys;
  if (keys.length === 0) return x !== null && typeof x !== 'object';
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  for (let i = 0; i < keys.length; i++) if (!hasOwn(x, keys[i]!)) return associativeItemError(schema, t, x) === undefined;
  return true;
}

/** atomicGuard(...).length === 0: no map at an atomic map position, no list at an atomic list position. */
export function setsNoAtomic(n: TypeNode, v: JsonValue): boolean {
  if (v === null || typeof v !== 'object' || n.atom === undefined) return true;
  if (!Array.isArray(v)) {
    const t = n.map;
    if (t === undefined) return true;
    if (t.elementRelationship === 'atomic') return false;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const child = n.declaredNode(key);
      if (child !== undefined && !setsNoAtomic(child, v[key]!)) return false;
    }
    return true;
  }
  const t = n.list;
  if (t === undefined) return true;
  if (t.elementRelationship === 'atomic') return false;
  if (v.length === 0) return true;
  const item = n.item;
  for (let i = 0; i < v.length; i++) if (!setsNoAtomic(item, v[i]!)) return false;
  return true;
}

/** A memo entry costs about as much as walking a few small containers again (src/engines/ssa.ts). */
const DECLARED_MEMO_MIN_CONTAINERS = 3;

/**
 * The strict decode finds no undeclared field below `v`: containers `checked` knows are skipped, and
 * those found clean recorded, as the reference walk of src/engines/ssa.ts does.
 */
export function declaresEveryField(n: TypeNode, v: JsonValue, checked: CheckedSubtrees | undefined): boolean {
  return new DeclaredFields(checked).declared(n, v);
}

class DeclaredFields {
  private containers = 0;

  constructor(private readonly checked: CheckedSubtrees | undefined) {}

  declared(n: TypeNode, v: JsonValue): boolean {
    if (v === null || typeof v !== 'object') return true;
    const checked = this.checked;
    if (checked === undefined) return this.declaredContainer(n, v);
    if (checked.isDeclared(n.tr, v)) return true;
    const before = this.containers;
    if (!this.declaredContainer(n, v)) return false;
    if (this.containers - before >= DECLARED_MEMO_MIN_CONTAINERS) checked.markDeclared(n.tr, v);
    return true;
  }

  private declaredContainer(n: TypeNode, v: JsonValue[] | JsonObject): boolean {
    this.containers++;
    if (n.atom === undefined) return true;
    if (Array.isArray(v)) {
      if (n.list === undefined || v.length === 0) return true;
      const item = n.item;
      for (let i = 0; i < v.length; i++) if (!this.declared(item, v[i]!)) return false;
      return true;
    }
    if (n.map === undefined) return true;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const child = n.keyNode(key);
      if (child === undefined || !this.declared(child, v[key]!)) return false;
    }
    return true;
  }
}
