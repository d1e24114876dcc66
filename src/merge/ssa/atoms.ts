/**
 * Choosing the form of a multi-form atom for a value and checking scalars, as typed/helpers.go
 * deduceAtom / handleAtom and typed/validate.go validateScalar do.
 */
import type { JsonValue } from '../../ir/json.js';
import { goTypeName, goValueSharpV, goValueV } from './go-format.js';
import type { Atom } from './schema.js';

/** Which handler runs: the first present of map, scalar, list (handleAtom's order), or none. */
export type AtomForm = 'map' | 'scalar' | 'list' | 'none';

/**
 * deduceAtom then handleAtom: a value of a form the atom has selects that form; otherwise (null, or a form
 * the atom lacks) the whole atom is kept and handleAtom prefers map, then scalar, then list.
 */
export function atomFormFor(atom: Atom, v: JsonValue): AtomForm {
  if (v !== null) {
    if (typeof v !== 'object') {
      if (atom.scalar !== undefined) return 'scalar';
    } else if (Array.isArray(v)) {
      if (atom.list !== undefined) return 'list';
    } else if (atom.map !== undefined) {
      return 'map';
    }
  }
  if (atom.map !== undefined) return 'map';
  if (atom.scalar !== undefined) return 'scalar';
  if (atom.list !== undefined) return 'list';
  return 'none';
}

/** scalarError(kind, v, prefix) === undefined, without building a message. */
export function scalarFits(kind: string, v: JsonValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  switch (kind) {
    case 'numeric':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';
    default:
      return false;
  }
}

/** validateScalar: undefined when `v` fits the scalar kind (null always fits), else the upstream message. */
export function scalarError(kind: string, v: JsonValue | undefined, prefix: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  const t = typeof v;
  switch (kind) {
    case 'numeric':
      return t === 'number' ? undefined : `${prefix}expected numeric (int or float), got ${goTypeName(v)}`;
    case 'string':
      return t === 'string' ? undefined : `${prefix}expected string, got ${goValueSharpV(v)}`;
    case 'boolean':
      return t === 'boolean' ? undefined : `${prefix}expected boolean, got ${goValueV(v)}`;
    case 'untyped':
      return t === 'number' || t === 'string' || t === 'boolean' ? undefined : `${prefix}expected any scalar, got ${goValueV(v)}`;
    default:
      return `${prefix}unexpected scalar type in schema: ${kind}`;
  }
}

/** handleAtom's message for an atom with no form. */
export function invalidAtomMessage(namedType: string | undefined): string {
  return `schema error: invalid atom: ${namedType === undefined ? 'inlined' : `named type: ${namedType}`}`;
}
