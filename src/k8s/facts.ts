import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../ir/json.js';
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource, UserInfo } from './request.js';
import { guessResource, gvkOf, isNamespacedKind, kindOfResource, lookupKind } from './resources.js';

/**
 * What matching needs to know about one admission request, derived once: absent request fields are filled
 * from the object, the way the API server would have filled them.
 */
export interface RequestFacts {
  readonly request: AdmissionRequest;
  /** `''` when the request carries no operation (audit, Gatekeeper expansion, gator). */
  readonly operation: string;
  /** The object matched on: the new object, or the old one when the new one is empty (DELETE). */
  readonly object: JsonObject | null;
  readonly newObject: JsonObject | null;
  readonly oldObject: JsonObject | null;
  /** The request kind (`req.kind`, else the object's apiVersion/kind). */
  readonly gvk: GroupVersionKind;
  /**
   * The kind that kind patterns are matched against: for a subresource request (`deployments/scale`, whose
   * body is an autoscaling/v1 Scale) the parent resource's kind, else `gvk`.
   */
  readonly matchGvk: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  readonly name: string;
  readonly generateName: string;
  /** `req.namespace`, else `metadata.namespace`, else ''. */
  readonly namespace: string;
  /** The object is a core/v1 Namespace (the API server treats its own name as its namespace). */
  readonly isNamespace: boolean;
  /** `req.namespaced`, else the built-in table, else whether a namespace is known. */
  readonly namespaced: boolean;
  readonly namespaceObject: JsonObject | null;
  readonly userInfo: UserInfo | undefined;
}

// A one-slot memo: a policy set is matched against one request at a time, so consecutive calls share the
// facts. (A WeakMap over every request costs more in ephemeron GC work than deriving the facts again.)
// It is a pure memo, not an environment: the facts follow from the request's own fields and the built-in
// tables alone, never from a runtime, so two runtimes evaluating interleaved read the same facts.
let lastRequest: AdmissionRequest | undefined;
let lastFacts: RequestFacts | undefined;

/**
 * The facts of a request. Consecutive calls with the same request object share one derivation; requests
 * are treated as immutable (build a new request object after changing its object).
 */
export function requestFacts(req: AdmissionRequest): RequestFacts {
  if (req === lastRequest && lastFacts !== undefined) return lastFacts;
  const f = deriveFacts(req);
  lastRequest = req;
  lastFacts = f;
  return f;
}

function nonEmptyObject(v: JsonValue | null | undefined): JsonObject | null {
  if (!isJsonObject(v)) return null;
  // One own key is enough: no Object.keys array per object version (this runs per policy in a fix-point pass).
  for (const k in v) if (hasOwn(v, k)) return v;
  return null;
}

function metadataString(obj: JsonObject | null, field: string): string {
  if (!obj || !hasOwn(obj, 'metadata')) return '';
  const meta = obj['metadata'];
  if (!isJsonObject(meta) || !hasOwn(meta, field)) return '';
  const v = meta[field];
  return typeof v === 'string' ? v : '';
}

/** The facts that follow from the request's kind alone. */
interface KindFacts {
  gvk: GroupVersionKind;
  matchGvk: GroupVersionKind;
  resource: GroupVersionResource;
  knownScope: boolean | undefined;
}

function kindFacts(req: AdmissionRequest, object: JsonObject | null): KindFacts {
  const gvk = req.kind ?? gvkOf(object);
  const subResource = req.subResource ?? '';
  // One table lookup serves both the resource and the scope in the common (main resource) case.
  const info = lookupKind(gvk.group, gvk.kind);
  const resource = req.resource ?? {
    group: gvk.group,
    version: gvk.version,
    resource: info ? info.resource : guessResource(gvk.kind),
  };
  const matchGvk = subResource !== '' ? (kindOfResource(resource) ?? gvk) : gvk;
  const knownScope = matchGvk === gvk ? info?.namespaced : isNamespacedKind(matchGvk);
  return { gvk, matchGvk, resource, knownScope };
}

// A one-slot memo of the kind facts of requests that carry no kind of their own (the interpreter's requests,
// rebuilt around every new object version): a stream of objects of one kind parses and looks up the kind once.
let lastApiVersion: unknown;
let lastKind: unknown;
let lastKindFacts: KindFacts | undefined;

function kindFactsOf(req: AdmissionRequest, object: JsonObject | null): KindFacts {
  if (req.kind !== undefined || req.resource !== undefined || req.subResource !== undefined || object === null) return kindFacts(req, object);
  // Own properties only, as gvkOf reads them; a non-string misses the memo (gvkOf reads it as '').
  const av = hasOwn(object, 'apiVersion') ? object['apiVersion'] : undefined;
  const k = hasOwn(object, 'kind') ? object['kind'] : undefined;
  if (typeof av !== 'string' || typeof k !== 'string') return kindFacts(req, object);
  if (lastKindFacts !== undefined && av === lastApiVersion && k === lastKind) return lastKindFacts;
  const f = kindFacts(req, object);
  lastApiVersion = av;
  lastKind = k;
  lastKindFacts = f;
  return f;
}

function deriveFacts(req: AdmissionRequest): RequestFacts {
  const newObject = nonEmptyObject(req.object);
  const oldObject = nonEmptyObject(req.oldObject);
  // kyverno engine: "if the new object is empty (DELETE) the old object is matched instead".
  const object = newObject ?? oldObject;
  const { gvk, matchGvk, resource, knownScope } = kindFactsOf(req, object);
  const subResource = req.subResource ?? '';
  const namespace = req.namespace ?? metadataString(object, 'namespace');
  const isNamespace = matchGvk.group === '' && matchGvk.kind === 'Namespace';
  const namespaced = req.namespaced ?? knownScope ?? (namespace !== '' && !isNamespace);
  return {
    request: req,
    operation: (req.operation as string | undefined) ?? '',
    object,
    newObject,
    oldObject,
    gvk,
    matchGvk,
    resource,
    subResource,
    name: req.name ?? metadataString(object, 'name'),
    generateName: metadataString(object, 'generateName'),
    namespace,
    isNamespace,
    namespaced,
    namespaceObject: isJsonObject(req.namespaceObject) ? req.namespaceObject : null,
    userInfo: req.userInfo,
  };
}
