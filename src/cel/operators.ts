/**
 * CEL operators: arithmetic with int64/uint64 overflow checks, heterogeneous equality and ordering,
 * membership, indexing and field selection (cel-go common/types/*.go semantics).
 */
import { mkDuration, mkTimestamp } from './time.js';
import {
  CelDouble,
  CelDuration,
  CelError,
  CelMap,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelUint,
  celCompare,
  celEquals,
  checkInt,
  checkUint,
  err,
  isPlainMap,
  kindOf,
  mapGet,
  mapHas,
  mkDouble,
  noOverload,
  MAX_SAFE,
  INT64_MAX,
  INT64_MIN,
} from './values.js';

function dbl(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? undefined : v;
  return v instanceof CelDouble ? v.v : undefined;
}

export function add(a: unknown, b: unknown): unknown {
  const ta = typeof a;
  if (ta === 'number' && typeof b === 'number') {
    const ia = Number.isSafeInteger(a);
    const ib = Number.isSafeInteger(b);
    if (ia && ib) {
      const r = (a as number) + b;
      return r <= MAX_SAFE && r >= -MAX_SAFE ? r : checkInt(BigInt(a as number) + BigInt(b));
    }
    if (!ia && !ib) return mkDouble((a as number) + b);
    return noOverload('_+_', a, b);
  }
  if (ta === 'string' && typeof b === 'string') return (a as string) + b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 ? b : b.length === 0 ? a : a.concat(b);
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'int' && kb === 'int') return checkInt(BigInt(a as number | bigint) + BigInt(b as number | bigint));
  if (ka === 'double' && kb === 'double') return mkDouble(dbl(a)! + dbl(b)!);
  if (ka === 'uint' && kb === 'uint') return checkUint((a as CelUint).v + (b as CelUint).v);
  if (ka === 'bytes' && kb === 'bytes') {
    const x = a as Uint8Array;
    const y = b as Uint8Array;
    const out = new Uint8Array(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  }
  if (ka === 'timestamp' && kb === 'duration') return mkTimestamp((a as CelTimestamp).ns + (b as CelDuration).ns);
  if (ka === 'duration' && kb === 'timestamp') return mkTimestamp((a as CelDuration).ns + (b as CelTimestamp).ns);
  if (ka === 'duration' && kb === 'duration') return mkDuration((a as CelDuration).ns + (b as CelDuration).ns);
  return noOverload('_+_', a, b);
}

export function sub(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const ia = Number.isSafeInteger(a);
    const ib = Number.isSafeInteger(b);
    if (ia && ib) {
      const r = a - b;
      return r <= MAX_SAFE && r >= -MAX_SAFE ? r : checkInt(BigInt(a) - BigInt(b));
    }
    if (!ia && !ib) return mkDouble(a - b);
    return noOverload('_-_', a, b);
  }
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'int' && kb === 'int') return checkInt(BigInt(a as number | bigint) - BigInt(b as number | bigint));
  if (ka === 'double' && kb === 'double') return mkDouble(dbl(a)! - dbl(b)!);
  if (ka === 'uint' && kb === 'uint') return checkUint((a as CelUint).v - (b as CelUint).v);
  if (ka === 'timestamp' && kb === 'timestamp') {
    // Go's time.Time.Sub yields an int64 of nanoseconds; cel-go reports overflow as a range error.
    const d = (a as CelTimestamp).ns - (b as CelTimestamp).ns;
    if (d > INT64_MAX || d < INT64_MIN) err('duration out of range');
    return mkDuration(d);
  }
  if (ka === 'timestamp' && kb === 'duration') return mkTimestamp((a as CelTimestamp).ns - (b as CelDuration).ns);
  if (ka === 'duration' && kb === 'duration') return mkDuration((a as CelDuration).ns - (b as CelDuration).ns);
  return noOverload('_-_', a, b);
}

export function mul(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const ia = Number.isSafeInteger(a);
    const ib = Number.isSafeInteger(b);
    if (ia && ib) {
      const r = a * b;
      // A product that is still a safe integer is exact; otherwise redo it in bigint.
      if (r <= MAX_SAFE && r >= -MAX_SAFE) return r === 0 ? 0 : r;
      return checkInt(BigInt(a) * BigInt(b));
    }
    if (!ia && !ib) return mkDouble(a * b);
    return noOverload('_*_', a, b);
  }
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'int' && kb === 'int') return checkInt(BigInt(a as number | bigint) * BigInt(b as number | bigint));
  if (ka === 'double' && kb === 'double') return mkDouble(dbl(a)! * dbl(b)!);
  if (ka === 'uint' && kb === 'uint') return checkUint((a as CelUint).v * (b as CelUint).v);
  return noOverload('_*_', a, b);
}

export function div(a: unknown, b: unknown): unknown {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'int' && kb === 'int') {
    if (b === 0) err('division by zero');
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a % b;
      const q = (a - r) / b;
      return q === 0 ? 0 : q;
    }
    return checkInt(BigInt(a as number | bigint) / BigInt(b as number | bigint));
  }
  if (ka === 'double' && kb === 'double') return mkDouble(dbl(a)! / dbl(b)!);
  if (ka === 'uint' && kb === 'uint') {
    if ((b as CelUint).v === 0n) err('division by zero');
    return new CelUint((a as CelUint).v / (b as CelUint).v);
  }
  return noOverload('_/_', a, b);
}

export function mod(a: unknown, b: unknown): unknown {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'int' && kb === 'int') {
    if (b === 0) err('modulus by zero');
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a % b;
      return r === 0 ? 0 : r;
    }
    return checkInt(BigInt(a as number | bigint) % BigInt(b as number | bigint));
  }
  if (ka === 'uint' && kb === 'uint') {
    if ((b as CelUint).v === 0n) err('modulus by zero');
    return new CelUint((a as CelUint).v % (b as CelUint).v);
  }
  return noOverload('_%_', a, b);
}

export function neg(a: unknown): unknown {
  const k = kindOf(a);
  if (k === 'int') return typeof a === 'number' ? (a === 0 ? 0 : -a) : checkInt(-(a as bigint));
  if (k === 'double') return mkDouble(-dbl(a)!);
  if (k === 'duration') return mkDuration(-(a as CelDuration).ns);
  return noOverload('-_', a);
}

export function not(a: unknown): boolean {
  if (typeof a !== 'boolean') noOverload('!_', a);
  return !a;
}

export const eq = (a: unknown, b: unknown): boolean => (a === b && typeof a === 'string') || celEquals(a, b);
export const ne = (a: unknown, b: unknown): boolean => !eq(a, b);
export const lt = (a: unknown, b: unknown): boolean => celCompare(a, b, '_<_') < 0;
export const le = (a: unknown, b: unknown): boolean => celCompare(a, b, '_<=_') <= 0;
export const gt = (a: unknown, b: unknown): boolean => celCompare(a, b, '_>_') > 0;
export const ge = (a: unknown, b: unknown): boolean => celCompare(a, b, '_>=_') >= 0;

export function inOp(x: unknown, c: unknown): boolean {
  if (Array.isArray(c)) {
    if (typeof x === 'string') return c.includes(x);
    for (let i = 0; i < c.length; i++) if (celEquals(c[i], x)) return true;
    return false;
  }
  if (c instanceof CelMap) return mapHas(c, x);
  if (isPlainMap(c)) return typeof x === 'string' ? Object.prototype.hasOwnProperty.call(c, x) : false;
  return noOverload('@in', x, c);
}

/** List index as a JS number, accepting int, uint and integral doubles (cel-go list.Get). */
function listIndex(list: unknown[], i: unknown): number {
  let n: number;
  if (typeof i === 'number') {
    if (!Number.isInteger(i)) err(`unsupported index value: ${i}`);
    n = i;
  } else if (typeof i === 'bigint') n = Number(i);
  else if (i instanceof CelUint) n = Number(i.v);
  else if (i instanceof CelDouble) n = i.v;
  else return noOverload('_[_]', list, i);
  if (n < 0 || n >= list.length) err(`index out of range: ${n}`);
  return n;
}

export function index(x: unknown, i: unknown): unknown {
  if (Array.isArray(x)) return x[listIndex(x, i)];
  if (x instanceof CelOptional) return optIndex(x, i);
  if (isPlainMap(x) || x instanceof CelMap) {
    const v = mapGet(x, i);
    if (v === undefined) {
      const k = kindOf(i);
      if (k !== 'string' && k !== 'int' && k !== 'uint' && k !== 'bool' && k !== 'double') err(`no such key: unsupported key type ${k}`);
      err(`no such key: ${keyText(i)}`);
    }
    return v;
  }
  return noOverload('_[_]', x, i);
}

function keyText(k: unknown): string {
  if (k instanceof CelUint) return String(k.v);
  if (k instanceof CelDouble) return String(k.v);
  return String(k);
}

/** a[?i]: optional.none() when the index or key is absent. */
export function optIndex(x: unknown, i: unknown): CelOptional {
  if (x instanceof CelOptional) {
    if (!x.has) return x;
    x = x.value;
  }
  if (Array.isArray(x)) {
    const k = kindOf(i);
    if (k !== 'int' && k !== 'uint' && k !== 'double') noOverload('_[?_]', x, i);
    const n = Number(k === 'uint' ? (i as CelUint).v : k === 'double' ? (i instanceof CelDouble ? i.v : i) : i);
    if (!Number.isInteger(n) || n < 0 || n >= x.length) return CelOptional.NONE;
    return CelOptional.of(x[n]);
  }
  if (isPlainMap(x) || x instanceof CelMap) {
    const v = mapGet(x, i);
    return v === undefined ? CelOptional.NONE : CelOptional.of(v);
  }
  return noOverload('_[?_]', x, i);
}

const JSONPATCH_FIELDS = new Set(['op', 'path', 'from', 'value']);

export function select(x: unknown, field: string): unknown {
  if (x !== null && typeof x === 'object') {
    if (isPlainMap(x)) {
      if (Object.prototype.hasOwnProperty.call(x, field)) return (x as Record<string, unknown>)[field];
      err(`no such key: ${field}`);
    }
    if (x instanceof CelMap) {
      const v = mapGet(x, field);
      if (v === undefined) err(`no such key: ${field}`);
      return v;
    }
    if (x instanceof CelOptional) return optSelect(x, field);
    if (x instanceof CelObject) {
      if (Object.prototype.hasOwnProperty.call(x.fields, field)) return x.fields[field];
      if (x.typeName === 'JSONPatch') {
        if (!JSONPATCH_FIELDS.has(field)) err(`no such field: ${field}`);
        return field === 'value' ? null : '';
      }
      err(`no such key: ${field}`);
    }
  }
  throw new CelError(`type '${kindOf(x)}' does not support field selection`);
}

/** has(x.f) */
export function hasField(x: unknown, field: string): boolean {
  if (x !== null && typeof x === 'object') {
    if (isPlainMap(x)) return Object.prototype.hasOwnProperty.call(x, field);
    if (x instanceof CelMap) return mapHas(x, field);
    if (x instanceof CelOptional) return x.has ? hasField(x.value, field) : false;
    if (x instanceof CelObject) {
      if (x.typeName === 'JSONPatch') {
        if (!JSONPATCH_FIELDS.has(field)) err(`no such field: ${field}`);
        const v = x.fields[field];
        return field === 'value' ? v !== undefined && v !== null : typeof v === 'string' && v !== '';
      }
      return Object.prototype.hasOwnProperty.call(x.fields, field);
    }
  }
  // cel-go's presence test of a value that is neither a map, a list nor a message (null, a scalar): false,
  // not an error (interpreter/attributes.go refQualify, its default case with presenceTest).
  return false;
}

/** x.?f */
export function optSelect(x: unknown, field: string): CelOptional {
  if (x !== null && typeof x === 'object' && (x as object).constructor === Object) {
    return Object.prototype.hasOwnProperty.call(x, field) ? CelOptional.of((x as Record<string, unknown>)[field]) : CelOptional.NONE;
  }
  if (x instanceof CelOptional) {
    if (!x.has) return x;
    x = x.value;
    // A selection through a present optional selects from its value, which must hold fields (cel-spec
    // optionals map_null_entry_no_such_key); a presence test alone is false on any other value.
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return select(x, field) as never;
  }
  if (!hasField(x, field)) return CelOptional.NONE;
  return CelOptional.of(select(x, field));
}
