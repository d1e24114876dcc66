import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import { requestFacts } from './facts.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  /** Kyverno resolves these from RoleBindings; offline they are supplied with the request. */
  roles?: string[];
  clusterRoles?: string[];
}

/** An admission request as the interpreter sees it. Absent kind/resource/namespace/name are derived from the object. */
export interface AdmissionRequest {
  /**
   * The request's UID, a UUID the API server gives each admission request. Webhooks (Kyverno) see it; MAP's
   * CEL request omits it; offline runs (Kyverno's CLI) leave it empty.
   */
  uid?: string;
  object: JsonValue | null;
  oldObject?: JsonValue | null;
  operation: Operation;
  userInfo?: UserInfo;
  namespaceObject?: JsonObject | null;
  params?: JsonValue | null;
  dryRun?: boolean;
  kind?: GroupVersionKind;
  resource?: GroupVersionResource;
  subResource?: string;
  namespace?: string;
  name?: string;
  /** Whether the object's kind is namespaced; derived from the built-in table when absent. */
  namespaced?: boolean;
  /** Gatekeeper's `source` match: objects under admission are `Original`, expanded ones `Generated`. */
  source?: 'Original' | 'Generated';
}

/**
 * The request as admission sees it. kube-apiserver's create and update handlers
 * (endpoints/handlers/create.go, update.go: rest.EnsureObjectNamespaceMatchesRequestNamespace) put the
 * request's namespace on a namespaced object that has none before any admission plugin runs, so a policy of
 * any engine reads `object.metadata.namespace` even when the manifest left it out (kubectl sends the
 * context's namespace). Only a namespace the request states is placed: one derived from the object adds
 * nothing. The stored (old) object of an update carries it too.
 */
export function withRequestNamespace(request: AdmissionRequest): AdmissionRequest {
  const namespace = request.namespace;
  if (namespace === undefined || namespace === '' || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return request;
  const facts = requestFacts(request);
  if (!facts.namespaced || facts.isNamespace) return request;
  const object = placedIn(request.object, namespace);
  const oldObject = placedIn(request.oldObject, namespace);
  if (object === request.object && oldObject === request.oldObject) return request;
  const out: AdmissionRequest = { ...request, object: object ?? null };
  if (oldObject !== undefined) out.oldObject = oldObject;
  return out;
}

/**
 * The request as kube-apiserver sends it to an admission webhook: the attributes the caller left out (kind,
 * resource, subResource, name, dryRun) filled in as the API server fills them (facts.ts; the same values the CEL
 * `request` of a MutatingAdmissionPolicy reads). A webhook engine reads them from the request itself: Kyverno's
 * context holds the whole AdmissionRequest at admission (policycontext NewPolicyContextFromAdmissionRequest),
 * where its CLI, which the test-suite runner follows, holds only what it sets. `name` stays out where the object
 * has none (a generated name): the field is omitempty.
 */
export function asAdmitted(request: AdmissionRequest): AdmissionRequest {
  const f = requestFacts(request);
  const out: AdmissionRequest = { ...request };
  out.kind ??= { group: f.gvk.group, version: f.gvk.version, kind: f.gvk.kind };
  out.resource ??= { group: f.resource.group, version: f.resource.version, resource: f.resource.resource };
  if (out.subResource === undefined && f.subResource !== '') out.subResource = f.subResource;
  if (out.name === undefined && f.name !== '') out.name = f.name;
  out.dryRun ??= false;
  return out;
}

/** The object with `metadata.namespace` set when it has none (an empty string counts as none, as in Go). */
function placedIn<T extends JsonValue | null | undefined>(object: T, namespace: string): T {
  if (!isJsonObject(object) || Object.keys(object).length === 0) return object;
  const metadata = hasOwn(object, 'metadata') ? object['metadata'] : undefined;
  if (metadata !== undefined && metadata !== null && !isJsonObject(metadata)) return object;
  const current = isJsonObject(metadata) && hasOwn(metadata, 'namespace') ? metadata['namespace'] : undefined;
  if (typeof current === 'string' && current !== '') return object;
  const placed = copyObject(object);
  const md = isJsonObject(metadata) ? copyObject(metadata) : {};
  defineOwn(md, 'namespace', namespace);
  defineOwn(placed, 'metadata', md);
  return placed as T;
}
