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
  /** What derivation read of `object`, to tell whether the facts survive an in-place change (factsStillHold). */
  readonly reads: ObjectReads;
}

/** What kind patterns and resource rules read of a request (RequestFacts.matchGvk, resource and subResource): see requestMatchKind. */
export interface MatchKind {
  readonly matchGvk: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
}

/** The fields of the matched object the facts follow from, as read (own properties). */
interface ObjectReads {
  /** An own key of the new object, proof that it is still not empty (undefined when it was empty or absent). */
  readonly someKey: string | undefined;
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly name: string;
  readonly generateName: string;
  readonly namespace: string;
}

// A one-slot memo: a policy set is matched against one request at a time, so consecutive calls share the
// facts. (A WeakMap over every request costs more in ephemeron GC work than deriving the facts again.)
// It is a pure memo, not an environment: the facts follow from the request's own fields and the built-in
// tables alone, never from a runtime, so two runtimes evaluating interleaved read the same facts.
let lastRequest: AdmissionRequest | undefined;
let lastFacts: RequestFacts | undefined;

/**
 * The facts of a request. Consecutive calls with the same request object share one derivation; requests
 * are treated as immutable, except as `objectChangedInPlace` allows.
 */
export function requestFacts(req: AdmissionRequest): RequestFacts {
  if (req === lastRequest && lastFacts !== undefined) return lastFacts;
  const f = deriveFacts(req);
  lastRequest = req;
  lastFacts = f;
  return f;
}

/**
 * The kind facts of a request alone, as `requestFacts(req)` has them: for a match that tests nothing but kinds,
 * which then reads no more of the object than its apiVersion and kind and builds no facts (issue 17: deriving
 * every fact cost as much as a dozen writes). Nothing is memoised per request, so in-place changes need no care.
 */
export function requestMatchKind(req: AdmissionRequest): MatchKind {
  if (req === lastRequest && lastFacts !== undefined) return lastFacts;
  const given = req.object;
  const newObject = isJsonObject(given) && someOwnKey(given) !== undefined ? given : null;
  return kindFactsOf(req, newObject ?? oldObjectOf(req));
}

/** RequestFacts.operation of a request, without its facts. */
export function requestOperation(req: AdmissionRequest): string {
  return (req.operation as string | undefined) ?? '';
}

/**
 * Says that `req.object` was changed in place (a fix-point pass writes into the containers it created) and
 * `req` is to be matched again: its memoised facts are kept when every object field they follow from reads
 * as it did (a handful of reads where a derivation builds them again), else dropped.
 */
export function objectChangedInPlace(req: AdmissionRequest): void {
  if (req === lastRequest && lastFacts !== undefined && !factsStillHold(lastFacts)) lastFacts = undefined;
}

function someOwnKey(v: JsonObject): string | undefined {
  // A Kubernetes object names its apiVersion: one plain read (an own read for this name, see objectReads) proves
  // it non-empty without enumerating its keys. One own key is enough: no Object.keys array per object version.
  if (v.apiVersion !== undefined) return 'apiVersion';
  for (const k in v) if (hasOwn(v, k)) return k;
  return undefined;
}

function nonEmptyObject(v: JsonValue | null | undefined): JsonObject | null {
  return isJsonObject(v) && someOwnKey(v) !== undefined ? v : null;
}

function oldObjectOf(req: AdmissionRequest): JsonObject | null {
  return req.oldObject === undefined || req.oldObject === null ? null : nonEmptyObject(req.oldObject);
}

/** The facts that follow from the request's kind alone. */
interface KindFacts extends MatchKind {
  gvk: GroupVersionKind;
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
  return { gvk, matchGvk, subResource, resource, knownScope };
}

// A one-slot memo of the kind facts of requests that carry no kind of their own (the interpreter's requests,
// rebuilt around every new object version): a stream of objects of one kind parses and looks up the kind once.
let lastApiVersion: unknown;
let lastKind: unknown;
let lastKindFacts: KindFacts | undefined;

function kindFactsOf(req: AdmissionRequest, object: JsonObject | null): KindFacts {
  if (req.kind !== undefined || req.resource !== undefined || req.subResource !== undefined || object === null) return kindFacts(req, object);
  // Own properties only, as gvkOf reads them (see objectReads); a non-string misses the memo (gvkOf reads it as '').
  const av = object.apiVersion;
  const k = object.kind;
  if (typeof av !== 'string' || typeof k !== 'string') return kindFacts(req, object);
  if (lastKindFacts !== undefined && av === lastApiVersion && k === lastKind) return lastKindFacts;
  const f = kindFacts(req, object);
  lastApiVersion = av;
  lastKind = k;
  lastKindFacts = f;
  return f;
}

// The fields matching reads of an object (apiVersion, kind, metadata, name, generateName, namespace) are read
// with plain property reads: none is a property of Object.prototype (walk.ts INHERITED) and a JSON value is
// never undefined, so a plain read is an own read, and costs far less than a hasOwnProperty call. Each is read
// under its literal name: a read through a name held in a variable is a keyed load that turns megamorphic
// over the fields, and this runs once per request (issue 17).

/** `newSomeKey` is the own key that proved the new object non-empty (undefined when it is empty or absent). */
function objectReads(newSomeKey: string | undefined, object: JsonObject | null): ObjectReads {
  if (object === null) return { someKey: newSomeKey, apiVersion: undefined, kind: undefined, name: '', generateName: '', namespace: '' };
  // The metadata map is looked up once for the three strings read from it.
  const meta = object.metadata;
  if (!isJsonObject(meta)) return { someKey: newSomeKey, apiVersion: object.apiVersion, kind: object.kind, name: '', generateName: '', namespace: '' };
  return {
    someKey: newSomeKey,
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: stringOrEmpty(meta.name),
    generateName: stringOrEmpty(meta.generateName),
    namespace: stringOrEmpty(meta.namespace),
  };
}

function stringOrEmpty(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Whether the facts still describe their request after its object changed in place: the new object is as
 * (non-)empty as it was and every field derivation read of the matched object reads the same (non-string
 * apiVersion or kind values, read as '', compare by identity, which at worst derives again). Only the new
 * object is written in place; the old one is the API server's.
 */
function factsStillHold(f: RequestFacts): boolean {
  const r = f.reads;
  const fresh = f.newObject;
  if (fresh === null ? nonEmptyObject(f.request.object) !== null : !hasOwn(fresh, r.someKey!) && someOwnKey(fresh) === undefined) return false;
  const object = f.object;
  if (object === null) return r.apiVersion === undefined && r.kind === undefined && r.name === '' && r.generateName === '' && r.namespace === '';
  if (object.apiVersion !== r.apiVersion || object.kind !== r.kind) return false;
  const meta = object.metadata;
  if (!isJsonObject(meta)) return r.name === '' && r.generateName === '' && r.namespace === '';
  return stringOrEmpty(meta.name) === r.name && stringOrEmpty(meta.generateName) === r.generateName && stringOrEmpty(meta.namespace) === r.namespace;
}

function deriveFacts(req: AdmissionRequest): RequestFacts {
  const newSomeKey = isJsonObject(req.object) ? someOwnKey(req.object) : undefined;
  const newObject = newSomeKey !== undefined ? (req.object as JsonObject) : null;
  const oldObject = oldObjectOf(req);
  // kyverno engine: "if the new object is empty (DELETE) the old object is matched instead".
  const object = newObject ?? oldObject;
  const { gvk, matchGvk, subResource, resource, knownScope } = kindFactsOf(req, object);
  const reads = objectReads(newSomeKey, object);
  const namespace = req.namespace ?? reads.namespace;
  const isNamespace = matchGvk.group === '' && matchGvk.kind === 'Namespace';
  const namespaced = req.namespaced ?? knownScope ?? (namespace !== '' && !isNamespace);
  return {
    request: req,
    operation: requestOperation(req),
    object,
    newObject,
    oldObject,
    gvk,
    matchGvk,
    resource,
    subResource,
    name: req.name ?? reads.name,
    generateName: reads.generateName,
    namespace,
    isNamespace,
    namespaced,
    namespaceObject: isJsonObject(req.namespaceObject) ? req.namespaceObject : null,
    userInfo: req.userInfo,
    reads,
  };
}
