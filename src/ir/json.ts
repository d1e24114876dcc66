/** JSON values as the IR and the interpreter see them. */
export type JsonScalar = string | number | boolean | null;
export type JsonValue = JsonScalar | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property lookup that treats `__proto__`, `constructor` and friends as ordinary keys. */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Deep, type-sensitive equality of JSON values; map key order is not significant. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!hasOwn(b as object, k)) return false;
    if (!jsonEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  }
  return true;
}

/** Sets an own data property, never the prototype, even for `__proto__`. */
export function defineOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * A shallow copy of a map that keeps `__proto__` as an ordinary key: object spread defines own data
 * properties (CopyDataProperties), it never assigns through the prototype setter.
 */
export function copyObject(obj: JsonObject): JsonObject {
  return { ...obj };
}
