/**
 * Schema facts along a JSON pointer, for every kind a policy can mutate: what a position holds (map, list,
 * scalar kind) and whether a value written there declares only known fields (kube-apiserver decodes a MAP
 * JSONPatch result strictly into the kind's Go type: an unknown field fails the request whatever the
 * failure policy, patch/json_patch.go).
 */
import type { KindSchema } from '../../engines/ssa.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import { isEmptyTypeRef, type Atom, type TypeRef } from '../../merge/ssa/schema.js';

export type Shape = 'map' | 'struct' | 'list' | 'string' | 'int' | 'bool' | 'other';

function step(k: KindSchema, tr: TypeRef, token: string): TypeRef | undefined {
  const atom = k.schema.resolve(tr);
  if (!atom) return undefined;
  if (atom.list && (token === '-' || /^-?\d+$/.test(token))) return atom.list.elementType;
  const map = atom.map;
  if (!map) return undefined;
  const field = map.fieldIndex.get(token);
  if (field) return field.type;
  return isEmptyTypeRef(map.elementType) ? undefined : map.elementType;
}

/** The type at `tokens` below the kind's root, or undefined when the schema does not declare it. */
export function typeRefAt(k: KindSchema, tokens: readonly string[]): TypeRef | undefined {
  let tr: TypeRef | undefined = k.typeRef;
  for (const t of tokens) {
    tr = step(k, tr, t);
    if (!tr) return undefined;
  }
  return tr;
}

function shapeOf(atom: Atom | undefined): Shape {
  if (!atom) return 'other';
  const only = (x: 'map' | 'list' | 'scalar'): boolean => (x === 'map') === (atom.map !== undefined) && (x === 'list') === (atom.list !== undefined) && (x === 'scalar') === (atom.scalar !== undefined);
  if (only('map')) return atom.map!.fields.length > 0 ? 'struct' : 'map';
  if (only('list')) return 'list';
  if (only('scalar')) return atom.scalar === 'string' ? 'string' : atom.scalar === 'numeric' ? 'int' : atom.scalar === 'boolean' ? 'bool' : 'other';
  return 'other';
}

/** The shape at `tokens` in every kind, when they all agree; undefined otherwise. */
export function shapeAt(kinds: readonly KindSchema[], tokens: readonly string[]): Shape | undefined {
  let out: Shape | undefined;
  for (const k of kinds) {
    const tr = typeRefAt(k, tokens);
    if (!tr) return undefined;
    const s = shapeOf(k.schema.resolve(tr));
    if (out !== undefined && out !== s) return undefined;
    out = s;
  }
  return out;
}

/** Whether `value` at `tr` holds only declared fields, with scalars of the declared kind. */
function typedValue(k: KindSchema, tr: TypeRef, value: JsonValue): boolean {
  const atom = k.schema.resolve(tr);
  if (!atom) return false;
  if (value === null) return true;
  if (Array.isArray(value)) return atom.list !== undefined && value.every((v) => typedValue(k, atom.list!.elementType, v));
  if (isJsonObject(value)) {
    const map = atom.map;
    if (!map) return false;
    for (const key of Object.keys(value)) {
      const field = map.fieldIndex.get(key);
      const type = field?.type ?? (isEmptyTypeRef(map.elementType) ? undefined : map.elementType);
      if (!type || !typedValue(k, type, value[key]!)) return false;
    }
    return true;
  }
  const scalar = atom.scalar;
  if (scalar === undefined) return false;
  if (scalar === 'untyped') return true;
  if (typeof value === 'string') return scalar === 'string';
  if (typeof value === 'number') return scalar === 'numeric';
  return scalar === 'boolean';
}

/**
 * Whether a value written at `tokens` decodes into every kind: the position is declared and the value's
 * fields and scalars follow the schema.
 */
export function declaredEverywhere(kinds: readonly KindSchema[], tokens: readonly string[], value: JsonValue): boolean {
  if (kinds.length === 0) return false;
  return kinds.every((k) => {
    const tr = typeRefAt(k, tokens);
    return tr !== undefined && typedValue(k, tr, value);
  });
}

/** Whether two positions have the same declared type in every kind (a copy between them decodes). */
export function sameTypeEverywhere(kinds: readonly KindSchema[], a: readonly string[], b: readonly string[]): boolean {
  if (kinds.length === 0) return false;
  return kinds.every((k) => {
    const x = typeRefAt(k, a);
    const y = typeRefAt(k, b);
    return x !== undefined && y !== undefined && JSON.stringify(x) === JSON.stringify(y);
  });
}
