/**
 * Typing a value against a schema (typed/validate.go, what `AsTyped` / `ObjectToTyped` run): every map key
 * must be a declared field unless the map has an element type, scalars must fit their kind, associative
 * lists must be keyable, and duplicate keys are errors unless `allowDuplicates` (used for the live object).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { atomFormFor, invalidAtomMessage, scalarError } from './atoms.js';
import { ErrorSink, type ValidationError } from './errors.js';
import { goValueV } from './go-format.js';
import { associativeItemError, associativeItemKey, associativeItemString } from './list-keys.js';
import { isEmptyTypeRef, type ListType, type MapType, type Schema, type TypeRef } from './schema.js';

export interface ValidateOptions {
  /** typed.AllowDuplicates: tolerate repeated keys in sets and map-lists. */
  allowDuplicates?: boolean;
}

/** Every violation, in document order (upstream iterates Go maps, so its order may differ for several errors). */
export function validateTyped(schema: Schema, typeRef: TypeRef, value: JsonValue, options: ValidateOptions = {}): ValidationError[] {
  const v = new Validator(schema, options.allowDuplicates === true);
  v.validate(typeRef, value);
  return v.sink.errors;
}

class Validator {
  readonly sink: ErrorSink;

  constructor(
    private readonly schema: Schema,
    private readonly allowDuplicates: boolean,
  ) {
    this.sink = new ErrorSink(schema);
  }

  validate(tr: TypeRef, v: JsonValue): void {
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
    for (const key of Object.keys(obj)) {
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
    const seen = associative && !this.allowDuplicates ? new Set<string>() : undefined;
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
  private checkUnique(t: ListType, item: JsonValue, seen: Set<string>): string | undefined {
    const key = associativeItemKey(this.schema, t, item);
    if (!key.ok) return key.error;
    if (seen.has(key.id)) this.sink.report(`duplicate entries for key ${associativeItemString(this.schema, t, item)}`);
    else seen.add(key.id);
    return undefined;
  }
}
