/**
 * CEL text for the generator: JSON literals, field selection and presence tests, the way a person writes
 * them (`object.spec.containers`, `has(object.metadata.labels)`, `"app.kubernetes.io/name" in labels`).
 */
import type { JsonValue } from '../../ir/json.js';

const IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
// CEL reserved words cannot be selected with `.` (cel-spec langdef.md "Syntax").
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

export function isSelectable(name: string): boolean {
  return IDENT.test(name) && !RESERVED.has(name);
}

/**
 * The request fields kube-apiserver leaves out when empty (the AdmissionRequest's `omitempty` fields, dropped
 * by DefaultUnstructuredConverter in plugin/cel's activation): a cluster-scoped object's request has no
 * `namespace`, one named by generateName no `name`, one without a subresource no `subResource`. Read bare,
 * they fail with "no such key"; these read them as Kubernetes' empty value.
 */
export const REQUEST_NAMESPACE = 'request.?namespace.orValue("")';

/**
 * Whether the request carries a user at all (a username, a uid or a group): without one, Kyverno's match
 * ignores its user criteria (matchesResourceDescriptionMatchHelper).
 */
export const REQUEST_HAS_USER = 'request.userInfo.?username.orValue("") != "" || request.userInfo.?uid.orValue("") != "" || size(request.userInfo.?groups.orValue([])) > 0';
export const REQUEST_NAME = 'request.?name.orValue("")';
/** The request is about a Namespace (a core v1 kind). */
export const REQUEST_IS_NAMESPACE = 'request.kind.group == "" && request.kind.kind == "Namespace"';
/** The namespace Kyverno and Gatekeeper match `namespaces` against: a Namespace's own name, else the request's. */
export const NAMESPACE_OR_OWN_NAME = `(${REQUEST_IS_NAMESPACE} ? ${REQUEST_NAME} : ${REQUEST_NAMESPACE})`;
export const REQUEST_SUBRESOURCE = 'request.?subResource.orValue("")';

export function celString(s: string): string {
  return JSON.stringify(s);
}

/** A JSON value as a CEL literal; undefined for what cannot round-trip (null, non-finite numbers). */
export function celLiteral(v: JsonValue): string | undefined {
  if (v === null) return undefined;
  if (typeof v === 'string') return celString(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    // JSONPatch values pass through double anyway (json_patch.go); ints keep the JSON integer form.
    return Number.isInteger(v) ? (Math.abs(v) <= Number.MAX_SAFE_INTEGER ? String(v) : undefined) : String(v);
  }
  if (Array.isArray(v)) {
    const items = v.map(celLiteral);
    return items.every((x) => x !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  const entries: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    const lit = celLiteral(x);
    if (lit === undefined) return undefined;
    entries.push(`${celString(k)}: ${lit}`);
  }
  return `{${entries.join(', ')}}`;
}

export function select(base: string, name: string): string {
  return isSelectable(name) ? `${base}.${name}` : `${base}[${celString(name)}]`;
}

/** The presence test of `name` in the map `base` (`has()` takes only a selection). */
export function hasField(base: string, name: string): string {
  return isSelectable(name) ? `has(${base}.${name})` : `${celString(name)} in ${base}`;
}

/** `a ? b : c`, parenthesised where it sits inside another conditional. */
export function conditional(test: string, then: string, otherwise: string): string {
  if (then === otherwise) return then;
  // CEL's grammar takes only a conditionalOr between `?` and `:` (cel-spec langdef.md "Syntax").
  const t = then.includes(' ? ') ? `(${then})` : then;
  const c = test.includes(' ? ') ? `(${test})` : test;
  return `${c} ? ${t} : ${otherwise}`;
}

export function paren(s: string): string {
  return /^[\w.$"[\]()]*$/.test(s) ? s : `(${s})`;
}

/** A JSON pointer being built: static text, and CEL for the parts known at runtime (a list index, a key). */
export type Pointer = readonly (string | { cel: string })[];

/** `"/spec/containers/" + string(i) + "/image"`: the pointer as a CEL string expression. */
export function renderPointer(ptr: Pointer): string {
  const parts: string[] = [];
  let text = '';
  for (const p of ptr) {
    if (typeof p === 'string') text += p;
    else {
      if (text) parts.push(celString(text));
      text = '';
      parts.push(p.cel);
    }
  }
  if (text || parts.length === 0) parts.push(celString(text));
  return parts.join(' + ');
}
