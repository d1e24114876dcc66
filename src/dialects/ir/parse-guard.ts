/**
 * Guards in the `ir` YAML dialect, one discriminating key each:
 *   {exists: <path>} {notExists: <path>} {eq|neq: <path>, value|valueFrom} {in|notIn: <path>, values|valuesFrom}
 *   {match: <path>, pattern: <glob>} {and: [guard…]} {or: [guard…]} {not: guard} {const: bool} {cel: expr} {jmes: expr}
 */
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { Guard } from '../../ir/nodes.js';
import type { YamlPath } from '../../io/source.js';
import { describe, type Reader } from './reader.js';
import { readExpr, readPath, readValueField, readValuesField } from './parse-value.js';

export const GUARD_KEYS = ['exists', 'notExists', 'eq', 'neq', 'in', 'notIn', 'match', 'and', 'or', 'not', 'const', 'cel', 'jmes'] as const;

/** Keys allowed beside the discriminating key, per guard kind. */
const EXTRA_KEYS: Record<(typeof GUARD_KEYS)[number], readonly string[]> = {
  exists: [],
  notExists: [],
  eq: ['value', 'valueFrom'],
  neq: ['value', 'valueFrom'],
  in: ['values', 'valuesFrom'],
  notIn: ['values', 'valuesFrom'],
  match: [],
  and: [],
  or: [],
  not: [],
  const: [],
  cel: [],
  jmes: [],
};

export function readGuards(r: Reader, v: JsonValue | undefined, at: YamlPath, what: string): Guard[] | undefined {
  return r.listOf(v, at, what, (x, p) => readGuard(r, x, p));
}

export function readGuard(r: Reader, v: JsonValue | undefined, at: YamlPath): Guard | undefined {
  if (!isJsonObject(v)) {
    r.error(at, `guard must be a map, got ${describe(v)}`);
    return undefined;
  }
  const kind = r.discriminator(v, at, 'guard', GUARD_KEYS);
  if (kind === undefined) return undefined;
  const o = r.object(v, at, `${kind} guard`, kind === 'match' ? [kind, 'pattern'] : [kind], EXTRA_KEYS[kind]);
  if (!o) return undefined;
  const origin = r.origin(at);
  const p = [...at, kind];
  const x = o[kind];
  switch (kind) {
    case 'exists':
    case 'notExists': {
      const path = readPath(r, x, p, `${kind} guard path`);
      return path && { kind, path, origin };
    }
    case 'eq':
    case 'neq': {
      const path = readPath(r, x, p, `${kind} guard path`);
      const value = readValueField(r, o, at, `${kind} guard`);
      return path && value && { kind, path, value, origin };
    }
    case 'in':
    case 'notIn': {
      const path = readPath(r, x, p, `${kind} guard path`);
      const values = readValuesField(r, o, at, `${kind} guard`);
      return path && values && { kind, path, values, origin };
    }
    case 'match': {
      const path = readPath(r, x, p, 'match guard path');
      const pattern = r.string(o.pattern, [...at, 'pattern'], 'match guard pattern');
      return path && pattern !== undefined ? { kind, path, pattern, origin } : undefined;
    }
    case 'and':
    case 'or': {
      const args = readGuards(r, x, p, `${kind} guard`);
      return args && { kind, args, origin };
    }
    case 'not': {
      const arg = readGuard(r, x, p);
      return arg && { kind, arg, origin };
    }
    case 'const': {
      const value = r.boolean(x, p, 'const guard');
      return value === undefined ? undefined : { kind, value, origin };
    }
    case 'cel':
    case 'jmes': {
      const expr = readExpr(r, x, p, `${kind} guard`);
      return expr && { kind, expr, origin };
    }
  }
}
