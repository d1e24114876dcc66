/**
 * The type errors of decoding a JSON document into a built-in kind's Go type, as kube-apiserver decodes a
 * MAP JSONPatch result (patch/json_patch.go: jsonSerializer.Decode into the versioned Go object) and as it
 * decodes any built-in object it is sent. encoding/json (sigs.k8s.io/json's fork) is walked over the kind's
 * structured-merge-diff schema:
 * - null decodes into anything (a zero value);
 * - a string, number, bool, array or object where the Go type takes another form is an UnmarshalTypeError:
 *   saved, decoding goes on, and the first one is returned at the end, worded
 *   `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string` (the
 *   struct whose field holds the value, the struct fields from the root, the Go type);
 * - the types with their own UnmarshalJSON (IntOrString, Quantity, Time, MicroTime; RawExtension takes
 *   anything) return their error at once, which ends the decode whatever was saved before (decode.go
 *   unmarshal: `d.value` fails first); the UnmarshalTypeError of the json.Unmarshal inside IntOrString's and
 *   Time's is given the field it was decoding (decode.go addErrorContext), a Quantity's parse error is not.
 * Fields a struct does not declare are not type errors (the strict decode reports them, after these).
 *
 * What the schema cannot tell is not checked: integer against float fields (the schema says `numeric`), the
 * range of an int32, the layout of a Time string. Go type names are derived from the schema's type names
 * (`io.k8s.api.core.v1.PodSpec` is `v1.PodSpec`); a named string type (`v1.RestartPolicy`) reads `string`,
 * and a number field `int32`, the type of most of them (ports, replicas, counts).
 */
import { hasOwn, type JsonValue } from '../../ir/json.js';
import { parseQuantity } from '../../jmespath/functions/quantity.js';
import { scalarFits } from './atoms.js';
import type { PatchTemplate } from './fused-plan.js';
import type { TypeNode } from './type-nodes.js';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** resource.ErrFormatWrong, what ParseQuantity returns for text that is not a quantity. */
const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * Whether `v` decodes into the Go type of `node` without a type error (the yes/no of goDecodeError). With
 * `prev`, a value taken as decoding (the document a patch was applied to): what `v` shares with it, by
 * identity at the same place, is not walked again.
 */
export function goDecodes(node: TypeNode, v: JsonValue, prev?: JsonValue): boolean {
  // Most values a patch sets are strings: answered without a walk.
  if (v === null || v === prev || node.atom === undefined) return true;
  if (typeof v !== 'object') {
    const named = node.tr.namedType;
    const error = named === undefined ? null : unmarshalerError(named, v);
    return error === null ? accepts(node.scalar, v) : error === undefined;
  }
  return new GoDecode(false).value(node, v, prev);
}

/** The error decoding `v` into the Go type of `root` gives (walking only what differs from `prev`), or undefined. */
export function goDecodeError(root: TypeNode, v: JsonValue, prev?: JsonValue): string | undefined {
  const walk = new GoDecode(true);
  return walk.value(root, v, prev) ? undefined : walk.error();
}

/**
 * The error decoding `value` gives where it is set: at the place `pieces` names below `root` (`items`: which
 * pieces index a list), in a document that otherwise decodes. Undefined when it decodes, or where no type is
 * declared for the place (the strict decode reports an undeclared field).
 */
export function goDecodeErrorAt(root: TypeNode, pieces: readonly string[], items: readonly boolean[] | undefined, value: JsonValue): string | undefined {
  const walk = new GoDecode(true);
  const node = walk.enter(root, pieces, items);
  if (node === undefined) return undefined;
  return walk.value(node, value, undefined) ? undefined : walk.error();
}

class GoDecode {
  /** The first UnmarshalTypeError met (decoding went on after it). */
  saved: string | undefined;
  /** The error of an UnmarshalJSON method, which ends the decode. */
  fatal: string | undefined;
  /** The struct whose field is being decoded, and the struct fields from the root (decode.go errorContext). */
  private struct: TypeNode | undefined;
  private readonly fields: string[] = [];

  constructor(private readonly words: boolean) {}

  error(): string | undefined {
    return this.fatal ?? this.saved;
  }

  /** The node of the place `pieces` names below `root`, with the walk's context set there (undefined: no type). */
  enter(root: TypeNode, pieces: readonly string[], items: readonly boolean[] | undefined): TypeNode | undefined {
    let n: TypeNode | undefined = root;
    for (let k = 0; k < pieces.length && n !== undefined; k++) {
      if (n.atom === undefined) return undefined;
      if (items !== undefined && items[k] === true) {
        n = n.list === undefined ? undefined : n.item;
        continue;
      }
      if (n.map === undefined) return undefined;
      const declared = n.declaredNode(pieces[k]!);
      if (declared !== undefined && isStruct(n)) {
        this.struct = n;
        this.fields.push(pieces[k]!);
      }
      n = declared ?? (n.closed ? undefined : n.elementNode);
    }
    return n;
  }

  /**
   * False when `v` does not decode at `n` (what it shares with `prev` aside): at once without words, else once
   * the walk met a fatal error or ended.
   */
  value(n: TypeNode, v: JsonValue, prev: JsonValue | undefined): boolean {
    if (v === null || v === prev || n.atom === undefined) return true;
    const named = n.tr.namedType;
    if (named !== undefined) {
      const error = unmarshalerError(named, v);
      if (error === undefined) return true;
      if (error !== null) {
        // decode.go addErrorContext gives the method's UnmarshalTypeError the field it was decoding.
        if (this.words) this.fatal = 'message' in error ? error.message : this.unmarshalText(error.value, error.goType);
        return false;
      }
    }
    if (typeof v !== 'object') return accepts(n.scalar, v) || this.typeError(goValueName(v), n);
    if (Array.isArray(v)) {
      if (n.list === undefined) return this.typeError('array', n);
      const item = n.item;
      const before = Array.isArray(prev) ? prev : undefined;
      // An item of `prev` moved by an insertion or a removal before it is `prev`'s all the same.
      let items: Set<JsonValue> | undefined;
      let ok = true;
      for (let i = 0; i < v.length; i++) {
        const x = v[i]!;
        let was: JsonValue | undefined;
        if (before !== undefined) {
          if (i < before.length && before[i] === x) was = x;
          else if ((items ??= new Set(before)).has(x)) was = x;
          else if (i < before.length) was = before[i];
        }
        if (this.value(item, x, was)) continue;
        if (!this.words || this.fatal !== undefined) return false;
        ok = false;
      }
      return ok;
    }
    if (n.map === undefined) return this.typeError('object', n);
    const struct = isStruct(n);
    const before = prev !== null && typeof prev === 'object' && !Array.isArray(prev) ? prev : undefined;
    let ok = true;
    for (const key in v) {
      if (!hasOwn(v, key)) continue;
      const declared = n.declaredNode(key);
      let child: TypeNode;
      if (declared !== undefined) child = declared;
      else if (!n.closed) child = n.elementNode;
      else continue;
      const was = before !== undefined && hasOwn(before, key) ? before[key] : undefined;
      let decodes: boolean;
      if (declared !== undefined && struct) {
        const outer = this.struct;
        this.struct = n;
        this.fields.push(key);
        decodes = this.value(child, v[key]!, was);
        this.fields.pop();
        this.struct = outer;
      } else decodes = this.value(child, v[key]!, was);
      if (decodes) continue;
      if (!this.words || this.fatal !== undefined) return false;
      ok = false;
    }
    return ok;
  }

  /** Records an UnmarshalTypeError of a `value` (Go's name of the JSON value's kind) met at `n`; false. */
  private typeError(value: string, n: TypeNode): false {
    if (this.words && this.saved === undefined) this.saved = this.unmarshalText(value, goTypeName(n));
    return false;
  }

  /** An UnmarshalTypeError's text where the walk is (UnmarshalTypeError.Error with decode.go's context). */
  private unmarshalText(value: string, goType: string): string {
    const into = this.struct === undefined ? 'Go value' : `Go struct field ${goTypeName(this.struct).replace(/^.*\./, '')}.${this.fields.join('.')}`;
    return `json: cannot unmarshal ${value} into ${into} of type ${goType}`;
  }
}

/** A Go struct (fields declared, or none and closed), not a Go map (an element type and no field). */
function isStruct(n: TypeNode): boolean {
  return n.map !== undefined && (n.map.fields.length > 0 || n.closed);
}

/**
 * What the UnmarshalJSON method of a type returns for a value it refuses: the UnmarshalTypeError of the
 * json.Unmarshal it calls (`value`, Go's name of the JSON value, into `goType`), or another error's message.
 */
type UnmarshalerFailure = { readonly value: string; readonly goType: string } | { readonly message: string };

/** The failure's text where no decoder around it adds its context (a json.Unmarshal of the value alone). */
function plainMessage(f: UnmarshalerFailure): string {
  return 'message' in f ? f.message : `json: cannot unmarshal ${f.value} into Go value of type ${f.goType}`;
}

/**
 * The failure of the UnmarshalJSON method of the named type for `v` (not null): undefined when it decodes,
 * null for a type without such a method (decoded as its schema says).
 */
function unmarshalerError(named: string, v: JsonValue): UnmarshalerFailure | undefined | null {
  switch (named) {
    case RAW_EXTENSION:
      // runtime.RawExtension keeps whatever JSON it is given.
      return undefined;
    case INT_OR_STRING:
      // intstr.go: a quoted value is the string, anything else json.Unmarshal into an int32.
      if (typeof v === 'string') return undefined;
      if (typeof v === 'number') return Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? undefined : { value: `number ${goNumberText(v)}`, goType: 'int32' };
      return { value: goValueName(v), goType: 'int32' };
    case QUANTITY:
      // quantity.go: the quotes taken off, the text parsed (a JSON number is a quantity's text too).
      if (typeof v === 'number') return undefined;
      if (typeof v === 'string') return parseQuantity(v.trim()) !== undefined ? undefined : { message: QUANTITY_FORMAT_ERROR };
      return { message: QUANTITY_FORMAT_ERROR };
    case TIME:
    case MICRO_TIME:
      // time.go: json.Unmarshal into a string first (the layout it then parses is not checked here).
      return typeof v === 'string' ? undefined : { value: goValueName(v), goType: 'string' };
    default:
      return null;
  }
}

/** Whether a scalar of the JSON kind of `v` fits a Go scalar of schema kind `scalar` (as the schema's typing). */
function accepts(scalar: string | undefined, v: string | number | boolean): boolean {
  return scalar !== undefined && scalarFits(scalar, v);
}

/** encoding/json's name of a JSON value's kind in an UnmarshalTypeError. */
function goValueName(v: JsonValue): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The JSON text of a number as encoding/json quotes it in "number 1.5". */
function goNumberText(n: number): string {
  return JSON.stringify(n);
}

/** The Go type a node stands for, as reflect's Type.String() prints it (see the module's header). */
function goTypeName(n: TypeNode): string {
  const named = n.tr.namedType;
  if (named !== undefined && (n.map !== undefined || n.scalar === 'untyped')) {
    const parts = named.split('.');
    if (parts.length >= 2) return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
  }
  if (n.list !== undefined) return `[]${goTypeName(n.item)}`;
  if (n.map !== undefined) return `map[string]${goTypeName(n.elementNode)}`;
  switch (n.scalar) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'numeric':
      return 'int32';
    default:
      return 'interface {}';
  }
}

/**
 * The error the first value of `v` (a patch, at `node`) that a type with its own UnmarshalJSON refuses gives,
 * or undefined. A MAP ApplyConfiguration's merged object is converted back into the kind's Go type
 * (dispatcher.go dispatchOne: ConvertToVersion, DefaultUnstructuredConverter.FromUnstructured), where these
 * types decode their value through that method: the schema's `untyped` takes a Quantity that does not parse,
 * an IntOrString or a Time of the wrong form. Other forms the patch's strict typing has checked already.
 * Only nodes whose types can hold such a value are walked (unmarshalerReach).
 */
export function unmarshalerErrorIn(node: TypeNode, v: JsonValue): string | undefined {
  if (v === null || !unmarshalerReach(node)) return undefined;
  if (isUnmarshaler(node)) {
    const error = unmarshalerError(node.tr.namedType!, v);
    return error === undefined || error === null ? undefined : plainMessage(error);
  }
  if (typeof v !== 'object') return undefined;
  if (Array.isArray(v)) {
    if (node.list === undefined) return undefined;
    const item = node.item;
    for (let i = 0; i < v.length; i++) {
      const error = unmarshalerErrorIn(item, v[i]!);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  if (node.map === undefined) return undefined;
  for (const key in v) {
    if (!hasOwn(v, key)) continue;
    const child = node.keyNode(key);
    if (child === undefined) continue;
    const error = unmarshalerErrorIn(child, v[key]!);
    if (error !== undefined) return error;
  }
  return undefined;
}


function isUnmarshaler(n: TypeNode): boolean {
  const named = n.tr.namedType;
  return named === QUANTITY || named === INT_OR_STRING || named === TIME || named === MICRO_TIME;
}

function childrenOf(n: TypeNode): TypeNode[] {
  if (n.atom === undefined) return [];
  const out: TypeNode[] = [];
  if (n.list !== undefined) out.push(n.item);
  if (n.map !== undefined) {
    for (const field of n.map.fields) {
      const child = n.declaredNode(field.name);
      if (child !== undefined) out.push(child);
    }
    if (!n.closed) out.push(n.elementNode);
  }
  return out;
}

/**
 * Whether a value below `n` may hold an UnmarshalJSON type (the node's own type included), decided once per
 * node and kept on it. Schemas are recursive
 * (a JSONSchemaProps holds JSONSchemaProps): the nodes reachable from `n` and not yet decided are solved
 * together, to a fixed point from "no".
 */
export function unmarshalerReach(n: TypeNode): boolean {
  const known = n.unmarshalerReach;
  if (known !== undefined) return known;
  const pending: TypeNode[] = [];
  const seen = new Set<TypeNode>();
  const stack = [n];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x) || x.unmarshalerReach !== undefined) continue;
    seen.add(x);
    pending.push(x);
    for (const c of childrenOf(x)) stack.push(c);
  }
  const reach = new Map<TypeNode, boolean>(pending.map((x) => [x, isUnmarshaler(x)]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const x of pending) {
      if (reach.get(x) === true) continue;
      if (childrenOf(x).some((c) => c.unmarshalerReach ?? reach.get(c) === true)) {
        reach.set(x, true);
        changed = true;
      }
    }
  }
  for (const [x, r] of reach) x.unmarshalerReach = r;
  return n.unmarshalerReach!;
}

/**
 * Whether a patch built by `template` (fused-plan.ts: the keys of its `Object{}` literals, the rest leaves)
 * may hold, at `node`, a value of a type with its own UnmarshalJSON: no when none of its leaves' nodes can.
 */
export function templateMayHoldUnmarshaler(template: PatchTemplate, node: TypeNode): boolean {
  if (node.atom === undefined || node.map === undefined) return unmarshalerReach(node);
  for (let i = 0; i < template.keys.length; i++) {
    const child = node.keyNode(template.keys[i]!);
    if (child === undefined) continue;
    const sub = template.children[i];
    const items = template.items[i];
    if (sub !== undefined ? templateMayHoldUnmarshaler(sub, child) : items !== undefined && child.list !== undefined ? templateMayHoldUnmarshaler(items, child.item) : unmarshalerReach(child)) return true;
  }
  return false;
}
