/**
 * Kyverno preconditions (kept opaque by the parser as `jmes "kyverno_conditions(...)"`) raised to structured
 * guards when every condition is a comparison the guard states exactly (reference kyverno.md §1.5, upstream
 * pkg/engine/variables/operator):
 * - the key is `{{ request.operation }}` (always set), or `{{ request.object.<fields> || '' }}`: a missing
 *   field reads as `''` instead of failing the substitution (which would make the rule an error, where a guard
 *   is merely false), and so does any other falsy value;
 * - the value is a plain string (starts with a letter; no `* ? | &`; not `true`/`false`), or for In/NotIn a
 *   list of them. Then Equals is string equality: a plain string parses as neither a duration, a quantity nor
 *   a number, so equal.go falls through to wildcard.Match(value, key), which without wildcards is equality;
 *   a non-string key (number, boolean, map, list) never equals it, as `eq` on a typed value does not. The
 *   deprecated In on a scalar key is membership by the same reasoning. `''` never equals a plain string, so
 *   the default agrees with `eq` on a missing path (false) and NotEquals/NotIn become `not(...)`, which holds
 *   on a missing path as NotEquals holds on `''`.
 * AnyIn/AllIn and friends match wildcards in both directions (a key holding `*` matches anything), so they
 * are raised only on `{{ request.operation }}`, whose value is one of CREATE, UPDATE, DELETE, CONNECT: with
 * a list of plain strings a scalar key is AnyIn/AllIn exactly when it is a member, AnyNotIn/AllNotIn exactly
 * when it is not. The key may carry a default (`{{ request.operation || 'BACKGROUND' }}`, for background
 * scans where the operation is empty): where the operation is missing the guard is false for a membership
 * and true for its negation, which is what Kyverno computes on the default when the default is not one of
 * the values (otherwise the condition stays opaque). Every other shape stays opaque.
 */
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { Guard, Origin } from '../ir/nodes.js';
import type { Path, Segment } from '../ir/path.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { rewriteGuards, rewritePolicies } from './rewrite.js';
import type { Raising } from './index.js';

const PLAIN_STRING = /^[A-Za-z][^|&*?]*$/;
const OPERATION = /^\{\{\s*request\.operation\s*(?:\|\|\s*'([^'\\{}]*)'\s*)?\}\}$/;
const OBJECT_FIELD = /^\{\{\s*request\.object((?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"))+)\s*\|\|\s*''\s*\}\}$/;
const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*")/g;

function plain(v: JsonValue | undefined): v is string {
  return typeof v === 'string' && PLAIN_STRING.test(v) && v.trim() === v && v !== 'true' && v !== 'false';
}

/** The path a condition key reads, or undefined when the key is not one of the exact forms. */
export function conditionKeyPath(key: JsonValue | undefined, origin: Origin): Path | undefined {
  return conditionKey(key, origin)?.path;
}

/** The path a condition key reads and the string a missing value reads as (`''` for object fields). */
function conditionKey(key: JsonValue | undefined, origin: Origin): { path: Path; missing: string | undefined; operation: boolean } | undefined {
  if (typeof key !== 'string') return undefined;
  const op = OPERATION.exec(key);
  if (op) return { path: { root: 'request', segments: [{ kind: 'field', name: 'operation' }], origin }, missing: op[1], operation: true };
  const path = objectFieldPath(key, origin);
  return path ? { path, missing: '', operation: false } : undefined;
}

function objectFieldPath(key: string, origin: Origin): Path | undefined {
  const m = OBJECT_FIELD.exec(key);
  if (!m) return undefined;
  const segments: Segment[] = [];
  for (const s of m[1]!.matchAll(SEGMENT)) {
    const raw = s[1]!;
    let name = raw;
    if (raw.startsWith('"')) {
      try {
        name = JSON.parse(raw) as string;
      } catch {
        return undefined;
      }
    }
    segments.push({ kind: 'field', name });
  }
  return { root: 'object', segments, origin };
}

const MEMBERSHIP: Record<string, boolean> = { in: true, notin: false };
/** Operators exact on a key that holds no wildcard (the request's operation): true = membership. */
const OPERATION_MEMBERSHIP: Record<string, boolean> = { ...MEMBERSHIP, anyin: true, allin: true, anynotin: false, allnotin: false };

function conditionGuard(c: JsonValue, origin: Origin): Guard | undefined {
  if (!isJsonObject(c) || typeof c.operator !== 'string') return undefined;
  const key = conditionKey(c.key, origin);
  if (!key) return undefined;
  const { path } = key;
  const op = c.operator.toLowerCase();
  const literal = (json: JsonValue) => ({ kind: 'literal' as const, json, origin });
  // The missing value must decide the condition as the guard decides a missing path (see the header).
  const defaultAgrees = (values: readonly JsonValue[]) => key.missing === undefined || !values.includes(key.missing);
  if (op === 'equals' || op === 'equal' || op === 'notequals' || op === 'notequal') {
    if (!plain(c.value) || !defaultAgrees([c.value])) return undefined;
    const eq: Guard = { kind: 'eq', path, value: literal(c.value), origin };
    return op.startsWith('not') ? { kind: 'not', arg: eq, origin } : eq;
  }
  const membership = (key.operation ? OPERATION_MEMBERSHIP : MEMBERSHIP)[op];
  if (membership !== undefined) {
    if (!Array.isArray(c.value) || c.value.length === 0 || !c.value.every(plain) || !defaultAgrees(c.value)) return undefined;
    const member: Guard = { kind: 'in', path, values: c.value.map(literal), origin };
    return membership ? member : { kind: 'not', arg: member, origin };
  }
  return undefined;
}

function junction(kind: 'and' | 'or', list: JsonValue, origin: Origin): Guard | undefined {
  if (!Array.isArray(list)) return undefined;
  const args: Guard[] = [];
  for (const c of list) {
    const g = conditionGuard(c, origin);
    if (!g) return undefined;
    args.push(g);
  }
  // CheckPreconditions: an explicit empty `any` is false, an empty `all` true.
  if (args.length === 0) return { kind: 'const', value: kind === 'and', origin };
  return args.length === 1 ? args[0] : { kind, args, origin };
}

/** The structured guard for an opaque preconditions guard, or undefined to keep it. */
export function raisePreconditionsGuard(g: Guard): Guard | undefined {
  if (g.kind !== 'jmes') return undefined;
  const opaque = readOpaque(g.expr.text);
  if (!opaque || opaque.kind !== 'conditions') return undefined;
  const block = opaque.json;
  if (Array.isArray(block)) return junction('and', block, g.origin);
  if (!isJsonObject(block)) return undefined;
  if (Object.keys(block).some((k) => k !== 'any' && k !== 'all')) return undefined;
  const parts: Guard[] = [];
  for (const k of ['any', 'all'] as const) {
    if (block[k] === undefined || block[k] === null) continue;
    const j = junction(k === 'any' ? 'or' : 'and', block[k]!, g.origin);
    if (!j) return undefined;
    parts.push(j);
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { kind: 'and', args: parts, origin: g.origin };
}

export const raiseKyvernoPreconditions: Raising = (policies) =>
  rewritePolicies(rewriteGuards(policies, raisePreconditionsGuard), (op) => {
    if (op.kind !== 'when') return undefined;
    const guard = raisePreconditionsGuard(op.guard);
    return guard ? [{ ...op, guard }] : undefined;
  });
