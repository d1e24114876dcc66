/**
 * MAP's dynamic types at the edges of evaluation (k8s.io/apiserver/pkg/cel/mutation and
 * admission/plugin/policy/mutating/patch): result type checks, the type-name check of nested
 * `Object.*` literals against their field path, and conversion of results to JSON.
 */
import type { Expr } from './ast.js';
import type { ResultExpectation } from './env.js';
import { formatDuration, formatTimestamp } from './time.js';
import { CelDouble, CelDuration, CelError, CelMap, CelObject, ConstantCelObject, ConstantJsonPatch, CelOptional, CelTimestamp, CelType, CelUint, CelOpaque, err, isPlainMap, kindOf, normBig, typeName } from './values.js';
import { toBase64 } from '../util/bytes.js';

/** The result type of an expression when it is evident without a type checker; 'dyn' otherwise. */
export function staticResultType(e: Expr): string | undefined {
  switch (e.kind) {
    case 'literal':
      return e.lit.type === 'null' ? 'null_type' : e.lit.type;
    case 'list':
      if (e.elements.length > 0 && e.elements.every((x) => x.kind === 'struct' && x.typeName === 'JSONPatch')) return 'list(JSONPatch)';
      return 'list';
    case 'map':
      return 'map';
    case 'struct':
      return e.typeName.replace(/^\./, '');
    case 'comprehension':
      switch (e.macro) {
        case 'all':
        case 'exists':
        case 'exists_one':
          return 'bool';
        case 'map':
        case 'filter':
        case 'transformList':
          return 'list';
        case 'transformMap':
        case 'transformMapEntry':
          return 'map';
        default:
          return 'dyn';
      }
    case 'call':
      switch (e.fn) {
        case '_?_:_': {
          const a = staticResultType(e.args[1]!);
          const b = staticResultType(e.args[2]!);
          if (a === b) return a;
          if (a?.startsWith('list') && b?.startsWith('list')) return 'list';
          return 'dyn';
        }
        case '_==_':
        case '_!=_':
        case '_<_':
        case '_<=_':
        case '_>_':
        case '_>=_':
        case '_&&_':
        case '_||_':
        case '!_':
        case '@in':
          return 'bool';
        case '_+_': {
          const a = staticResultType(e.args[0]!);
          const b = staticResultType(e.args[1]!);
          if (a === 'string' || b === 'string') return 'string';
          if (a?.startsWith('list') || b?.startsWith('list')) return 'list';
          return 'dyn';
        }
        case 'string':
          return e.target ? 'dyn' : 'string';
        default:
          return 'dyn';
      }
    default:
      return 'dyn';
  }
}

/** Runtime check of a mutation result; returns the error message, if any. */
export function checkResultType(expect: ResultExpectation, v: unknown): string | undefined {
  switch (expect) {
    case 'bool':
      return typeof v === 'boolean' ? undefined : `must evaluate to bool but got ${typeName(v)}`;
    case 'Object':
      if (!(v instanceof CelObject) || v.typeName !== 'Object') return `must evaluate to Object but got ${typeName(v)}`;
      return checkTypeNames(v, 'Object');
    case 'JSONPatchList': {
      if (!Array.isArray(v)) return `must evaluate to list(JSONPatch) but got ${typeName(v)}`;
      for (const p of v) {
        if (!(p instanceof CelObject) || p.typeName !== 'JSONPatch') return `must evaluate to list(JSONPatch) but got list(${typeName(p)})`;
        const value = p.fields['value'];
        if (value instanceof CelObject) {
          const problem = checkTypeNames(value, value.typeName);
          if (problem) return problem;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Every nested `Object.x.y` literal must be named after its field path; list items and map values
 * inherit their parent's name (so `.item` is wrong). Message as kube-apiserver prints it.
 */
export function checkTypeNames(v: unknown, expected: string): string | undefined {
  if (v instanceof CelObject) {
    if (v.typeName !== expected) {
      return `type mismatch: unexpected type name "${v.typeName}", expected "${expected}", which matches field name path from root Object type`;
    }
    const fields = v.fields;
    for (const k in fields) {
      if (!Object.prototype.hasOwnProperty.call(fields, k)) continue;
      const x = fields[k];
      // Scalars hold no Object literal: skip building the field's type name for them.
      if (x === null || typeof x !== 'object') continue;
      const p = checkTypeNames(x, `${expected}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  if (Array.isArray(v)) {
    for (const x of v) {
      const p = checkTypeNames(x, expected);
      if (p) return p;
    }
    return undefined;
  }
  if (v instanceof CelMap || isPlainMap(v)) {
    const values = v instanceof CelMap ? Array.from(v.entries.values(), (e) => e[1]) : Object.values(v);
    for (const x of values) {
      const p = checkTypeNames(x, expected);
      if (p) return p;
    }
  }
  return undefined;
}

/**
 * CEL value → JSON as Kubernetes marshals it (structpb): ints and uints become JSON numbers (through
 * double: precision loss beyond 2^53, as for JSON Patch values), NaN/Inf are errors, map keys must be
 * strings, bytes are base64, timestamps RFC 3339, durations "1.5s". Throws CelError on failure.
 */
export function toJson(v: unknown): unknown {
  // JSON-shaped values first (most of a mutation's result), without kindOf's chain of class tests.
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) err(`cannot convert ${v} to JSON`);
      return v;
    case 'object':
      if (v === null) return null;
      if (Array.isArray(v)) return v.map(toJson);
      if (isPlainMap(v)) {
        const out: Record<string, unknown> = {};
        for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) defineJsonKey(out, k, toJson(v[k]));
        return out;
      }
  }
  switch (kindOf(v)) {
    case 'null':
      return null;
    case 'bool':
    case 'string':
      return v;
    case 'int':
      return Number(v);
    case 'uint':
      return Number((v as CelUint).v);
    case 'double': {
      const x = typeof v === 'number' ? v : (v as CelDouble).v;
      if (!Number.isFinite(x)) err(`cannot convert ${x} to JSON`);
      return x;
    }
    case 'bytes':
      return toBase64(v as Uint8Array);
    case 'timestamp':
      return formatTimestamp(v as CelTimestamp);
    case 'duration':
      return formatDuration(v as CelDuration);
    case 'list':
      return (v as unknown[]).map(toJson);
    case 'map': {
      if (isPlainMap(v)) {
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) defineJsonKey(out, k, toJson(v[k]));
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const [k, x] of (v as CelMap).entries.values()) {
        if (typeof k !== 'string') err(`map key of type ${typeName(k)} cannot be converted to JSON`);
        defineJsonKey(out, k, toJson(x));
      }
      return out;
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const fields = (v as CelObject).fields;
      for (const k in fields) if (Object.prototype.hasOwnProperty.call(fields, k)) defineJsonKey(out, k, toJson(fields[k]));
      return out;
    }
    case 'type':
      return (v as CelType).name;
    case 'optional': {
      const o = v as CelOptional;
      return o.has ? toJson(o.value) : null;
    }
    case 'opaque':
      return String(v as CelOpaque);
    default:
      return err(`value of type ${typeName(v)} cannot be converted to JSON`);
  }
}

/**
 * toJson that returns JSON-shaped parts (strings, booleans, finite numbers, plain maps and lists of them)
 * as they are, and a container whose parts all come back unchanged as itself: a result that copies the
 * object under admission, a literal folded into a constant, or a map or list the expression built shares them
 * instead of being copied once more. The caller must treat the result as immutable, as the interpreter treats
 * every document (copy-on-write). Same values and errors as toJson.
 */
export function toSharedJson(v: unknown): unknown {
  return sharedJson(v, undefined, undefined);
}

/**
 * The JSON sharedJson makes of `v` below a correctly named position (its fields converted, the type names
 * inside checked against its own), or undefined when that conversion fails: then nothing is made ahead and
 * each evaluation fails as it would. Without checks (below an optional) the same value comes out whenever
 * the checks pass, so the one JSON serves both.
 */
export function constantObjectJson(v: CelObject): unknown {
  try {
    // Frozen: every evaluation shares it (the interpreter only ever copies results to change them), and a
    // frozen patch is checked once per schema (src/merge/ssa/fast-checks.ts typesStrictlySettingNoAtomic).
    return deepFreeze(sharedFields(v.fields, v.typeName, undefined, true));
  } catch (e) {
    if (e instanceof TypeNameMismatch || e instanceof CelError) return undefined;
    throw e;
  }
}

function deepFreeze(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}

/** Thrown by sharedJson at the first `Object.*` literal named after another field path. */
class TypeNameMismatch {
  constructor(readonly message: string) {}
}

/**
 * An `Object` result as JSON (toSharedJson), with checkTypeNames(v, v.typeName) run in the same walk.
 * Throws CelError with checkTypeNames's message when it finds a problem, else toJson's error, as checking
 * then converting would.
 */
export function objectResultToJson(v: CelObject): unknown {
  try {
    return sharedJson(v, v.typeName, undefined);
  } catch (e) {
    if (e instanceof TypeNameMismatch) err(e.message);
    // A conversion error met before a type-name problem later in the walk: the check runs first upstream.
    const problem = e instanceof CelError ? checkTypeNames(v, v.typeName) : undefined;
    if (problem) err(problem);
    throw e;
  }
}

/**
 * `expected` is the type name checkTypeNames expects here: `parent` when `field` is undefined, else
 * `${parent}.${field}`, compared without building it; `parent` undefined checks nothing (below an optional,
 * where checkTypeNames does not look).
 */
function sharedJson(v: unknown, parent: string | undefined, field: string | undefined): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) err(`cannot convert ${v} to JSON`);
      return v;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < v.length; i++) {
          const x = v[i];
          const j = sharedJson(x, parent, field);
          if (j !== x) (out ??= v.slice())[i] = j;
        }
        return out ?? v;
      }
      // Objects first: most containers of an ApplyConfiguration result are `Object.*` literals.
      if (v instanceof CelObject) {
        if (parent !== undefined && !namedAt(v.typeName, parent, field)) {
          throw new TypeNameMismatch(
            `type mismatch: unexpected type name "${v.typeName}", expected "${field === undefined ? parent : `${parent}.${field}`}", which matches field name path from root Object type`,
          );
        }
        // Made by the same call as below, when the literal was folded (the checks inside it depend on its own name only).
        if (v instanceof ConstantCelObject) return v.json;
        return sharedFields(v.fields, parent === undefined ? undefined : v.typeName, undefined, true);
      }
      if (isPlainMap(v)) return sharedFields(v, parent, field, false);
      if (v instanceof CelMap) {
        const out: Record<string, unknown> = {};
        for (const [k, x] of v.entries.values()) {
          if (parent !== undefined) checkTypeNamesOnly(x, parent, field);
          if (typeof k !== 'string') err(`map key of type ${typeName(k)} cannot be converted to JSON`);
          defineJsonKey(out, k, toJson(x));
        }
        return out;
      }
      if (v instanceof CelOptional) return v.has ? sharedJson(v.value, undefined, undefined) : null;
    }
  }
  return toJson(v);
}

/**
 * The fields of a map (`object` false: the expected name is inherited) or of an `Object` literal (true: each
 * field's name extends it), converted; the same object when every value comes back unchanged.
 */
function sharedFields(fields: Record<string, unknown>, parent: string | undefined, field: string | undefined, object: boolean): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, k)) continue;
    const x = fields[k];
    const j = object ? sharedJson(x, parent, parent === undefined ? undefined : k) : sharedJson(x, parent, field);
    if (j === x) {
      if (out !== undefined) defineJsonKey(out, k, x);
      continue;
    }
    if (out === undefined) {
      out = {};
      // Copy the keys before this one (unchanged), keeping their order.
      for (const k2 in fields) {
        if (k2 === k) break;
        if (Object.prototype.hasOwnProperty.call(fields, k2)) defineJsonKey(out, k2, fields[k2]);
      }
    }
    defineJsonKey(out, k, j);
  }
  if (out === undefined) return fields;
  return out;
}

/**
 * sharedJson of a value found at a position of an `Object` result: below the literal named `parent`, in its field
 * `field` (undefined: an item of a list or value of a map that is itself there). Throws CelError or the
 * type-name mismatch (not a CelError) on failure; codegen's direct JSON (direct-json.ts) then runs the reference.
 */
export function jsonAt(v: unknown, parent: string, field: string | undefined): unknown {
  return sharedJson(v, parent, field);
}

/** checkTypeNames for the values of a CelMap (converted by toJson after), throwing TypeNameMismatch. */
function checkTypeNamesOnly(x: unknown, parent: string, field: string | undefined): void {
  if (x === null || typeof x !== 'object') return;
  const problem = checkTypeNames(x, field === undefined ? parent : `${parent}.${field}`);
  if (problem) throw new TypeNameMismatch(problem);
}

/** name === (field === undefined ? parent : `${parent}.${field}`), without concatenating. */
function namedAt(name: string, parent: string, field: string | undefined): boolean {
  if (field === undefined) return name === parent;
  return (
    name.length === parent.length + 1 + field.length && name.charCodeAt(parent.length) === 46 && name.startsWith(parent) && name.endsWith(field)
  );
}

function defineJsonKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * JSON → CEL value. JSON integral numbers are CEL ints and other numbers doubles, which is already
 * how values.ts reads plain JS numbers; only bigints (from YAML parsed with intAsBigInt) need
 * normalising. Returns the input itself when nothing needs converting.
 */
export function fromJson(json: unknown): unknown {
  switch (typeof json) {
    case 'bigint':
      return normBig(json);
    case 'object': {
      if (json === null) return null;
      if (Array.isArray(json)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < json.length; i++) {
          const x = fromJson(json[i]);
          if (x !== json[i]) (out ??= json.slice())[i] = x;
        }
        return out ?? json;
      }
      const o = json as Record<string, unknown>;
      let out: Record<string, unknown> | undefined;
      for (const k of Object.keys(o)) {
        const x = fromJson(o[k]);
        if (x !== o[k]) {
          out ??= { ...o };
          defineJsonKey(out, k, x);
        }
      }
      return out ?? json;
    }
    default:
      return json;
  }
}

export interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function isJsonPatchList(v: unknown): v is CelObject[] {
  if (!Array.isArray(v) || v.length === 0) return false;
  // A loop, not `every`: this runs for every expression result.
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (!(x instanceof CelObject) || x.typeName !== 'JSONPatch') return false;
  }
  return true;
}

/**
 * A mutation's CEL result as JSON, with MAP's checks of `Object` and `JSONPatch` values: an `Object.*` value
 * with its type names checked (objectResultToJson), a non-empty list of `JSONPatch` as RFC 6902 operations
 * (jsonPatchOps), anything else as toSharedJson. Throws CelError. The result may share the documents' parts and
 * compiled constants: the interpreter treats results as immutable (copy-on-write).
 */
export function mutationResultToJson(v: unknown): unknown {
  if (v instanceof CelObject && v.typeName.startsWith('Object')) return objectResultToJson(v);
  if (isJsonPatchList(v)) return jsonPatchOps(v);
  return toSharedJson(v);
}

/** The error of a `JSONPatch` literal whose field other than `value` is not a string. */
export function patchFieldNotString(name: string, v: unknown): never {
  return err(`JSONPatch field '${name}' must be a string, got ${kindOf(v)}`);
}

/**
 * The `value` of a `JSONPatch` as jsonPatchOps gives it, with the check of checkResultType('JSONPatchList')
 * of an `Object.*` value's own type names. Throws CelError.
 */
export function patchValueJson(v: unknown): unknown {
  if (v instanceof CelObject) {
    const problem = checkTypeNames(v, v.typeName);
    if (problem) err(problem);
  }
  return toSharedJson(v);
}

/** list(JSONPatch) → RFC 6902 operations as MAP builds them (patch/json_patch.go): from only when non-empty, value only when set. */
export function jsonPatchOps(v: unknown): JsonPatchOp[] {
  const problem = checkResultType('JSONPatchList', v);
  if (problem) err(problem);
  return (v as CelObject[]).map((p) => (p instanceof ConstantJsonPatch ? p.op : jsonPatchOp(p)));
}

/** One `JSONPatch` value as jsonPatchOps makes it. Throws CelError when its value has no JSON. */
export function jsonPatchOp(p: CelObject): JsonPatchOp {
  const op: JsonPatchOp = { op: String(p.fields['op'] ?? ''), path: String(p.fields['path'] ?? '') };
  const from = p.fields['from'];
  if (typeof from === 'string' && from !== '') op.from = from;
  // A `value: null` written in the literal is emitted as JSON null (it matters for `test`).
  if (Object.prototype.hasOwnProperty.call(p.fields, 'value')) op.value = toSharedJson(p.fields['value']);
  return op;
}
