/**
 * `jsonEqual` (src/ir/json.ts) for the interpreter's hot "did this op change the object" checks: the same
 * answer, without allocating key arrays. The documents compared share every untouched subtree, so the walk
 * runs down the changed spine only, and it runs once per op and request.
 */
import { hasOwn, type JsonObject } from '../ir/json.js';

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as JsonObject;
  const y = b as JsonObject;
  let count = 0;
  for (const k in x) {
    if (!hasOwn(x, k)) continue;
    if (!hasOwn(y, k) || !sameJson(x[k], y[k])) return false;
    count++;
  }
  for (const k in y) if (hasOwn(y, k) && --count < 0) return false;
  return count === 0;
}
