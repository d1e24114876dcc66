/**
 * CEL runtime values.
 *
 * Representation (chosen so that Kubernetes JSON needs no conversion on the way in):
 * - int: a JS number when it is a safe integer, a bigint otherwise (always within int64);
 *   so JSON integral numbers are CEL ints as they are.
 * - double: a JS number that is not a safe integer (fractions, NaN, ±Inf, huge values), or a
 *   `CelDouble` box for integral values (1.0, -0.0) that would otherwise read as ints.
 * - uint: `CelUint` (bigint inside). bool, string, null: themselves. bytes: Uint8Array.
 * - list: JS array. map: a plain object (string keys, JSON) or a `CelMap` (any key type).
 * - timestamp/duration: bigint nanoseconds in `CelTimestamp` / `CelDuration`.
 * - type: `CelType`; optional: `CelOptional`; `Object.*` and `JSONPatch`: `CelObject`.
 * - Kubernetes library values (quantity, url, ip, ...) extend `CelOpaque`.
 * Errors are thrown `CelError`s; `&&`, `||`, `?:` and the comprehensions catch them where the spec absorbs them.
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export class CelError extends Error {
  /** Fatal errors (cost limit) are never absorbed by && / || / comprehensions. */
  readonly fatal: boolean = false;
}

export class CelCostLimitError extends CelError {
  override readonly fatal = true;
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

export function err(message: string): never {
  throw new CelError(message);
}

/** Raised when no overload accepts the argument types; lets a shared member name try its next library. */
export class NoOverloadError extends CelError {}

export function noOverload(fn: string, ...args: unknown[]): never {
  throw new NoOverloadError(`no such overload: ${fn}(${args.map((a) => typeName(a)).join(', ')})`);
}

export class CelDouble {
  constructor(readonly v: number) {}
}

export class CelUint {
  constructor(readonly v: bigint) {}
}

export class CelTimestamp {
  constructor(readonly ns: bigint) {}
}

export class CelDuration {
  constructor(readonly ns: bigint) {}
}

export class CelType {
  constructor(readonly name: string) {}
}

export class CelOptional {
  static readonly NONE = new CelOptional(false, null);
  constructor(
    readonly has: boolean,
    readonly value: unknown,
  ) {}
  static of(v: unknown): CelOptional {
    return new CelOptional(true, v);
  }
}

/** A map whose keys are not all strings. Keys are normalised so 1, 1u and 1.0 find the same entry (cel-go heterogeneous map lookup). */
export class CelMap {
  readonly entries = new Map<unknown, [unknown, unknown]>();
  get size(): number {
    return this.entries.size;
  }
}

/** A value of a dynamic message type: `Object`, `Object.spec...` or `JSONPatch` (Kubernetes pkg/cel/mutation). */
export class CelObject {
  constructor(
    readonly typeName: string,
    readonly fields: Record<string, unknown>,
  ) {}
}

/**
 * An `Object.*` literal of constants, folded when the expression is compiled, with its JSON (mutation.ts
 * constantObjectJson, type names checked) made then: every result that holds it converts it without a walk.
 * Treat `json` as immutable, as every CEL value.
 */
export class ConstantCelObject extends CelObject {
  constructor(
    typeName: string,
    fields: Record<string, unknown>,
    readonly json: unknown,
  ) {
    super(typeName, fields);
  }
}

/**
 * A `JSONPatch` literal of constants, folded when the expression is compiled, with the patch operation
 * mutation.ts jsonPatchOps makes of it (frozen; its value as toSharedJson gives it) made then.
 */
export class ConstantJsonPatch extends CelObject {
  constructor(
    fields: Record<string, unknown>,
    readonly op: Readonly<{ op: string; path: string; from?: string; value?: unknown }>,
  ) {
    super('JSONPatch', fields);
  }
}

/** Base of the Kubernetes library value types (quantity, url, ip, cidr, semver, format, authorizer). */
export abstract class CelOpaque {
  abstract readonly typeName: string;
  abstract equals(other: unknown): boolean;
  compare?(other: unknown): number;
}

/** An opaque value with a total order: equal exactly when of the same class and comparing as 0. */
export abstract class CelOrderedOpaque extends CelOpaque {
  abstract override compare(other: unknown): number;
  equals(o: unknown): boolean {
    return o instanceof this.constructor && this.compare(o) === 0;
  }
}

export const TYPES = {
  int: new CelType('int'),
  uint: new CelType('uint'),
  double: new CelType('double'),
  bool: new CelType('bool'),
  string: new CelType('string'),
  bytes: new CelType('bytes'),
  null_type: new CelType('null_type'),
  list: new CelType('list'),
  map: new CelType('map'),
  type: new CelType('type'),
  timestamp: new CelType('google.protobuf.Timestamp'),
  duration: new CelType('google.protobuf.Duration'),
  optional_type: new CelType('optional_type'),
} as const;

// ------------------------------------------------------------------------------------------ numbers
export function normBig(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

export function checkInt(v: bigint): number | bigint {
  if (v > INT64_MAX || v < INT64_MIN) err('integer overflow');
  return normBig(v);
}

export function checkUint(v: bigint): CelUint {
  if (v > UINT64_MAX || v < 0n) err('unsigned integer overflow');
  return new CelUint(v);
}

export function isInt(v: unknown): v is number | bigint {
  return typeof v === 'number' ? Number.isSafeInteger(v) : typeof v === 'bigint';
}

export function isDouble(v: unknown): boolean {
  return typeof v === 'number' ? !Number.isSafeInteger(v) : v instanceof CelDouble;
}

/** The JS number of a double value, or undefined when `v` is not a double. */
export function doubleOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? undefined : v;
  return v instanceof CelDouble ? v.v : undefined;
}

export function mkDouble(x: number): number | CelDouble {
  return Number.isSafeInteger(x) ? new CelDouble(x) : x;
}

export function mkInt(x: number): number | bigint {
  // x is an exact integer within int64 (callers guarantee); -0 becomes 0.
  return x === 0 ? 0 : Number.isSafeInteger(x) ? x : normBig(BigInt(x));
}

// ------------------------------------------------------------------------------------------ kinds
export type Kind =
  | 'int'
  | 'uint'
  | 'double'
  | 'bool'
  | 'string'
  | 'bytes'
  | 'null'
  | 'list'
  | 'map'
  | 'timestamp'
  | 'duration'
  | 'type'
  | 'optional'
  | 'object'
  | 'opaque'
  | 'unknown';

export function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? 'int' : 'double';
    case 'bigint':
      return 'int';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'object':
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'list';
      if (v instanceof CelDouble) return 'double';
      if (v instanceof CelUint) return 'uint';
      if (v instanceof Uint8Array) return 'bytes';
      if (v instanceof CelMap) return 'map';
      if (v instanceof CelTimestamp) return 'timestamp';
      if (v instanceof CelDuration) return 'duration';
      if (v instanceof CelType) return 'type';
      if (v instanceof CelOptional) return 'optional';
      if (v instanceof CelObject) return 'object';
      if (v instanceof CelOpaque) return 'opaque';
      return isPlainMap(v) ? 'map' : 'unknown';
    case 'undefined':
      return 'null';
    default:
      return 'unknown';
  }
}

export function isPlainMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

export function isMap(v: unknown): v is Record<string, unknown> | CelMap {
  return v instanceof CelMap || isPlainMap(v);
}

export function typeName(v: unknown): string {
  const k = kindOf(v);
  switch (k) {
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'null':
      return 'null_type';
    case 'optional':
      return 'optional_type';
    case 'object':
      return (v as CelObject).typeName;
    case 'opaque':
      return (v as CelOpaque).typeName;
    default:
      return k;
  }
}

export function typeOf(v: unknown): CelType {
  const k = kindOf(v);
  switch (k) {
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'string':
    case 'bytes':
    case 'list':
    case 'map':
    case 'type':
      return TYPES[k];
    case 'null':
      return TYPES.null_type;
    case 'timestamp':
      return TYPES.timestamp;
    case 'duration':
      return TYPES.duration;
    case 'optional':
      return TYPES.optional_type;
    default:
      return new CelType(typeName(v));
  }
}

// ------------------------------------------------------------------------------------------ maps
/** Normalised key for CelMap: numbers of any numeric type compare by value. */
export function mapKey(k: unknown): unknown {
  switch (typeof k) {
    case 'string':
    case 'boolean':
      return k;
    case 'number':
      return Number.isSafeInteger(k) ? k : Number.isInteger(k) ? `#${BigInt(k)}` : `#d${k}`;
    case 'bigint':
      return `#${k}`;
  }
  if (k instanceof CelUint) return k.v <= 9007199254740991n ? Number(k.v) : `#${k.v}`;
  if (k instanceof CelDouble) return k.v === 0 ? 0 : k.v;
  return undefined;
}

export function validKeyKind(k: unknown): boolean {
  const kind = kindOf(k);
  return kind === 'string' || kind === 'int' || kind === 'uint' || kind === 'bool';
}

export function mapSize(m: Record<string, unknown> | CelMap): number {
  return m instanceof CelMap ? m.size : Object.keys(m).length;
}

/** The entry's value, or undefined when absent. */
export function mapGet(m: Record<string, unknown> | CelMap, k: unknown): unknown {
  if (m instanceof CelMap) return m.entries.get(mapKey(k))?.[1];
  if (typeof k === 'string') return Object.prototype.hasOwnProperty.call(m, k) ? m[k] : undefined;
  return undefined;
}

export function mapHas(m: Record<string, unknown> | CelMap, k: unknown): boolean {
  if (m instanceof CelMap) return m.entries.has(mapKey(k));
  return typeof k === 'string' && Object.prototype.hasOwnProperty.call(m, k);
}

export function mapKeys(m: Record<string, unknown> | CelMap): unknown[] {
  if (m instanceof CelMap) return Array.from(m.entries.values(), (e) => e[0]);
  return Object.keys(m);
}

export function mapEntries(m: Record<string, unknown> | CelMap): [unknown, unknown][] {
  if (m instanceof CelMap) return Array.from(m.entries.values());
  return Object.entries(m);
}

/** Builds a map from entries; string-only keys give a plain object. Duplicate keys are an error (cel-go: "duplicate key"). */
export class MapBuilder {
  private obj: Record<string, unknown> | undefined = {};
  private cm: CelMap | undefined;
  set(k: unknown, v: unknown): void {
    if (!validKeyKind(k)) err(`unsupported key type: ${typeName(k)}`);
    if (this.obj && typeof k === 'string') {
      if (Object.prototype.hasOwnProperty.call(this.obj, k)) err(`Failed with repeated key: ${k}`);
      defineKey(this.obj, k, v);
      return;
    }
    if (!this.cm) {
      this.cm = new CelMap();
      for (const key of Object.keys(this.obj!)) this.cm.entries.set(key, [key, this.obj![key]]);
      this.obj = undefined;
    }
    const nk = mapKey(k);
    if (this.cm.entries.has(nk)) err(`Failed with repeated key: ${String(k instanceof CelUint ? k.v : k)}`);
    this.cm.entries.set(nk, [k, v]);
  }
  build(): Record<string, unknown> | CelMap {
    return this.cm ?? this.obj!;
  }
}

/** Sets an own property even for `__proto__` (which plain assignment would treat as the prototype). */
export function defineKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

// ------------------------------------------------------------------------------------------ equality
function numCompare(a: unknown, b: unknown): number | undefined {
  // Returns -1/0/1, NaN-ish undefined when incomparable (NaN), or undefined if not both numeric.
  const ka = kindOf(a);
  const kb = kindOf(b);
  if ((ka !== 'int' && ka !== 'uint' && ka !== 'double') || (kb !== 'int' && kb !== 'uint' && kb !== 'double')) return undefined;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
  // cel-go compares an integer with a double after converting the integer to double (types/compare.go).
  if (ka === 'double' || kb === 'double') {
    const fx = Number(exactNum(a));
    const fy = Number(exactNum(b));
    return fx < fy ? -1 : fx > fy ? 1 : fx === fy ? 0 : NaN;
  }
  const x = exactNum(a) as bigint;
  const y = exactNum(b) as bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** int/uint as bigint, double as number. */
function exactNum(v: unknown): bigint | number {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'bigint') return v;
  if (v instanceof CelUint) return v.v;
  return (v as CelDouble).v;
}

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const ta = typeof a;
  if (ta === 'string' || ta === 'boolean' || typeof b === 'string' || typeof b === 'boolean') return false;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const nc = numCompare(a, b);
  if (nc !== undefined) return nc === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b) || mapSize(a) !== mapSize(b)) return false;
    for (const [k, v] of mapEntries(a)) {
      if (!mapHas(b, k)) return false;
      if (!celEquals(v, mapGet(b, k))) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.ns === b.ns;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.ns === b.ns;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (!a.has || !b.has) return a.has === b.has;
    return celEquals(a.value, b.value);
  }
  if (a instanceof CelObject) return b instanceof CelObject && objectEquals(a, b);
  if (a instanceof CelOpaque) return a.equals(b);
  return false;
}

function objectEquals(a: CelObject, b: CelObject): boolean {
  if (a.typeName !== b.typeName) return false;
  if (a.typeName === 'JSONPatch') {
    // JSONPatch compares all four fields, unset ones as their zero value (pkg/cel/mutation/jsonpatch.go).
    for (const f of ['op', 'path', 'from']) if ((a.fields[f] ?? '') !== (b.fields[f] ?? '')) return false;
    return celEquals(a.fields['value'] ?? null, b.fields['value'] ?? null);
  }
  const ka = Object.keys(a.fields);
  if (ka.length !== Object.keys(b.fields).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b.fields, k)) return false;
    if (!celEquals(a.fields[k], b.fields[k])) return false;
  }
  return true;
}

/** Ordering for <, <=, >, >=; throws no-such-overload for incomparable kinds. */
export function celCompare(a: unknown, b: unknown, op: string): number {
  // Two JS numbers compare exactly whatever their CEL types (cross-type numeric comparison).
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const nc = numCompare(a, b);
  if (nc !== undefined) return nc;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length - b.length;
  }
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof CelOpaque && a.compare && kindOf(b) === 'opaque' && (b as CelOpaque).typeName === a.typeName) return a.compare(b);
  return noOverload(op, a, b);
}

/** Ordering usable for sorting lists (lists.sort, isSorted, min/max): same-kind comparison. */
export function sortCompare(a: unknown, b: unknown): number {
  return celCompare(a, b, 'sort');
}
