/**
 * Typing a value against a schema (typed/validate.go, what `AsTyped` / `ObjectToTyped` run): every map key
 * must be a declared field unless the map has an element type, scalars must fit their kind, associative
 * lists must be keyable, and duplicate keys are errors unless `allowDuplicates` (used for the live object).
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { atomFormFor, invalidAtomMessage, scalarError } from './atoms.js';
import type { CheckedSubtrees } from './checked.js';
import { ErrorSink, type ValidationError } from './errors.js';
import { typesCleanly, typesCleanlySince } from './fast-checks.js';
import { goValueV } from './go-format.js';
import { associativeItemError, associativeItemId, associativeItemString, ItemKeyError, type ItemId } from './list-keys.js';
import { isEmptyTypeRef, type ListType, type MapType, type Schema, type TypeRef } from './schema.js';

export interface ValidateOptions {
  /** typed.AllowDuplicates: tolerate repeated keys in sets and map-lists. */
  allowDuplicates?: boolean;
  /**
   * With `allowDuplicates`: skip containers this memo already found valid against the same type, and record
   * the ones found valid now (see checked.ts for when that is sound). Ignored for another schema.
   */
  checked?: CheckedSubtrees;
}

/** Every violation, in document order (upstream iterates Go maps, so its order may differ for several errors). */
export function validateTyped(schema: Schema, typeRef: TypeRef, value: JsonValue, options: ValidateOptions = {}): ValidationError[] {
  const allowDuplicates = options.allowDuplicates === true;
  const checked = allowDuplicates && options.checked?.schema === schema ? options.checked : undefined;
  if (checked !== undefined ? typesCleanlyRemembering(schema, typeRef, value, checked) : typesCleanly(schema, schema.node(typeRef), value, allowDuplicates, undefined)) return [];
  return typingErrors(schema, typeRef, value, allowDuplicates, checked);
}

/**
 * validateTyped(schema, typeRef, value, { allowDuplicates: true, checked }).length === 0 (for `checked` of
 * this schema), without making the list: what a merge asks of the live object before every ApplyConfiguration.
 */
export function typesCleanlyRemembering(schema: Schema, typeRef: TypeRef, value: JsonValue, checked: CheckedSubtrees): boolean {
  // A copy-on-write edit of the document typed last (often that document itself, written in place): only
  // what differs from it needs a walk.
  const prev = checked.validDocument(typeRef);
  if (prev !== undefined && (prev === value || typesCleanlySince(schema, schema.node(typeRef), value, prev, checked))) return true;
  // Nearly every value types cleanly: answer that without paths (the caller walks again for the words otherwise).
  return typesCleanly(schema, schema.node(typeRef), value, true, checked);
}

/** The reference walk of validateTyped, which words every error (fast-checks.ts only answers yes or no). */
export function typingErrors(schema: Schema, typeRef: TypeRef, value: JsonValue, allowDuplicates: boolean, checked: CheckedSubtrees | undefined): ValidationError[] {
  const v = new Validator(schema, allowDuplicates, checked);
  v.validate(typeRef, value);
  v.sink.release();
  return v.sink.errors;
}

/** A memo entry costs about as much as walking a few scalars again. */
const MEMO_MIN_VALUES = 6;

class Validator {
  readonly sink: ErrorSink;

  constructor(
    private readonly schema: Schema,
    private readonly allowDuplicates: boolean,
    private readonly checked: CheckedSubtrees | undefined,
  ) {
    this.sink = new ErrorSink(schema);
  }

  /** Values visited so far: containers too small to be worth a memo entry are walked again instead. */
  private visited = 0;

  validate(tr: TypeRef, v: JsonValue): void {
    // A container's errors depend only on its type and content (the path only words them).
    if (this.checked !== undefined && v !== null && typeof v === 'object') {
      if (this.checked.isValid(tr, v)) return;
      const before = this.sink.count;
      const visitedBefore = this.visited;
      this.validateValue(tr, v);
      if (this.sink.count === before && this.visited - visitedBefore >= MEMO_MIN_VALUES) this.checked.markValid(tr, v);
      return;
    }
    this.validateValue(tr, v);
  }

  private validateValue(tr: TypeRef, v: JsonValue): void {
    this.visited++;
    const atom = this.schema.resolve(tr);
    if (atom === undefined) {
      this.sink.report(`schema error: no type found matching: ${tr.namedType ?? 'inlined type'}`);
      return;
    }
    switch (atomFormFor(atom, v)) {
      case 'map':
        return this.validateMap(atom.map!, v);
      case 'scalar': {
        const err = scalarError(atom.scalar!, v, '');
        if (err !== undefined) this.sink.report(err);
        return;
      }
      case 'list':
        return this.validateList(atom.list!, v);
      case 'none':
        this.sink.report(invalidAtomMessage(tr.namedType));
    }
  }

  private validateMap(t: MapType, v: JsonValue): void {
    if (v === null) return;
    if (!isJsonObject(v)) {
      this.sink.report(`expected map, got ${goValueV(v)}`);
      return;
    }
    const closed = isEmptyTypeRef(t.elementType);
    const obj: JsonObject = v;
    // for-in reads the map's enumeration cache; Object.keys would copy it per map.
    for (const key in obj) {
      if (!hasOwn(obj, key)) continue;
      const field = t.fieldIndex.get(key);
      if (field === undefined && closed) {
        // visitMapItems stops at the first undeclared field of a map.
        this.sink.report('field not declared in schema', `.${key}`);
        return;
      }
      this.sink.push(key);
      this.validate(field === undefined ? t.elementType : field.type, obj[key]!);
      this.sink.pop();
    }
  }

  private validateList(t: ListType, v: JsonValue): void {
    if (v === null) return;
    if (!Array.isArray(v)) {
      this.sink.report(`expected list, got ${goValueV(v)}`);
      return;
    }
    const associative = t.elementRelationship === 'associative';
    // With duplicates allowed only keyability matters, which is cheaper than building identities.
    const seen = associative && !this.allowDuplicates ? new Set<ItemId>() : undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i]!;
      if (associative) {
        const error = seen === undefined ? associativeItemError(this.schema, t, item) : this.checkUnique(t, item, seen);
        if (error !== undefined) {
          // An unkeyable element ends the walk of this list.
          this.sink.report(`element ${i}: ${error}`);
          return;
        }
        this.sink.pushItem(t, item);
      } else {
        this.sink.push(i);
      }
      this.validate(t.elementType, item);
      this.sink.pop();
    }
  }

  /** Keys the item; reports a repeated key (and goes on); returns the keying error if any. */
  private checkUnique(t: ListType, item: JsonValue, seen: Set<ItemId>): string | undefined {
    const id = associativeItemId(this.schema, t, item);
    if (id instanceof ItemKeyError) return id.error;
    if (seen.has(id)) this.sink.report(`duplicate entries for key ${associativeItemString(this.schema, t, item)}`);
    else seen.add(id);
    return undefined;
  }
}
