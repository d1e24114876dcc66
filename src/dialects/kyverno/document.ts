/**
 * The JSON context Kyverno's variables are queried against (pkg/engine/context), built from an interpreter
 * scope: `request.*` (operation, object, oldObject, namespace, name, kind, userInfo, roles, clusterRoles),
 * `serviceAccountName`/`serviceAccountNamespace`, `images.*` (computed on first use), and every variable in
 * scope at the top level (`element`, `elementIndex`, `element0`..., context entries). Values are read lazily so
 * a lazily bound context entry is evaluated (and can fail) only when a query reaches it.
 */
import type { ExprScope } from '../../interpreter/engines.js';
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { evalFailure } from '../../interpreter/failure.js';
import { contextImages, copyImages, ImagesFailure, podSpecFieldsOf } from './context-images.js';

function field(v: JsonValue | undefined, ...keys: string[]): JsonValue | undefined {
  let cur = v;
  for (const k of keys) {
    if (!isJsonObject(cur) || !hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/**
 * The object Kyverno parses `images` from: the one its policy context was made from when the scope says
 * (ExprScope.imagesSource), else the object, or the old object on DELETE (pkg/engine NewPolicyContext).
 */
export function imagesSourceOf(scope: ExprScope): JsonValue | null {
  const source = scope.imagesSource;
  return source !== undefined ? source : (scope.object ?? scope.request.oldObject ?? null);
}

/**
 * The `images` of one query, read once: the deferred load of a query that mentions them (deferred-loading.ts)
 * and the query's document (kyvernoDocumentFields) read the same source within the query.
 */
export class QueryImages {
  private extracted: JsonObject | ImagesFailure | undefined | typeof NOT_EXTRACTED = NOT_EXTRACTED;

  constructor(private readonly scope: ExprScope) {}

  get(): JsonObject | ImagesFailure | undefined {
    if (this.extracted === NOT_EXTRACTED) this.extracted = evaluationImages(this.scope);
    return this.extracted;
  }
}

const NOT_EXTRACTED: unique symbol = Symbol('not extracted');

/** The evaluation memo's entry of the `images` extracted last, with the object they were extracted from. */
const IMAGES_MEMO = Symbol('kyverno images');

/**
 * `images` of the scope's source, extracted once per evaluation and source (Kyverno loads them once per policy
 * context): the source is never changed in place (EvalMemo), and every query is handed a copy of its own, as
 * an extraction of its own would give it, so nothing a query does with its value reaches the next one.
 */
function evaluationImages(scope: ExprScope): JsonObject | ImagesFailure | undefined {
  const source = imagesSourceOf(scope);
  const memo = scope.memo;
  if (memo === undefined) return contextImages(source);
  const hit = memo.get(IMAGES_MEMO) as { source: JsonValue | null; images: JsonObject | ImagesFailure | undefined } | undefined;
  let images = hit?.images;
  if (hit === undefined || hit.source !== source) {
    images = contextImages(source);
    memo.set(IMAGES_MEMO, { source, images });
  }
  return images === undefined || images instanceof ImagesFailure ? images : copyImages(images);
}

function defineLazy(target: Record<string, unknown>, key: string, get: () => unknown): void {
  let done = false;
  let value: unknown;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!done) {
        value = get();
        done = true;
      }
      return value;
    },
  });
}

/** The `request` document the way the Kyverno engine and CLI fill it. */
function requestDocument(scope: ExprScope): Record<string, unknown> {
  const r = scope.request;
  const doc: Record<string, unknown> = Object.create(null);
  doc.operation = r.operation;
  // On DELETE the object is empty and Kyverno stores the resource as oldObject (NewPolicyContext).
  doc.object = scope.object ?? null;
  if (r.oldObject !== undefined && r.oldObject !== null) doc.oldObject = r.oldObject;
  const namespace = r.namespace ?? field(scope.object ?? undefined, 'metadata', 'namespace');
  doc.namespace = typeof namespace === 'string' ? namespace : '';
  if (r.name !== undefined) doc.name = r.name;
  if (r.kind) doc.kind = { group: r.kind.group, version: r.kind.version, kind: r.kind.kind };
  if (r.resource) doc.resource = { group: r.resource.group, version: r.resource.version, resource: r.resource.resource };
  if (r.subResource !== undefined) doc.subResource = r.subResource;
  if (r.dryRun !== undefined) doc.dryRun = r.dryRun;
  if (r.userInfo) {
    const u = r.userInfo;
    // authentication/v1 UserInfo as encoding/json writes it (AddUserInfo): every field omitempty.
    const userInfo: JsonObject = {};
    if (u.username) userInfo.username = u.username;
    if (u.uid) userInfo.uid = u.uid;
    if (u.groups && u.groups.length > 0) userInfo.groups = u.groups;
    if (u.extra && Object.keys(u.extra).length > 0) userInfo.extra = u.extra as unknown as JsonValue;
    doc.userInfo = userInfo;
    doc.roles = u.roles ?? null;
    doc.clusterRoles = u.clusterRoles ?? null;
  }
  return doc;
}

/** pkg/engine/context AddServiceAccount: `system:serviceaccount:<ns>:<name>` split into its parts. */
function serviceAccount(username: string | undefined): { name: string; namespace: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username || !username.startsWith(prefix)) return undefined;
  const rest = username.slice(prefix.length).split(':');
  if (rest.length < 2) return undefined;
  return { namespace: rest[0]!, name: rest[1]! };
}

/**
 * The part of the context document an expression reads (JmesProgram.rootFields): the same fields as
 * `kyvernoDocument`, built for those names only (variables still read on access), or the failure of Kyverno's
 * image extraction when `images` is one of them (its loader's error fails the query). Undefined when the scope
 * cannot look variables up by name.
 */
export function kyvernoDocumentFields(scope: ExprScope, names: readonly string[], images?: QueryImages): Record<string, unknown> | ImagesFailure | undefined {
  if (scope.lookup === undefined) return undefined;
  // A plain object, not a null-prototype one (a slow dictionary in V8): JMESPath reads own fields only
  // (jmespath/compile.ts), and defineOwn keeps a `__proto__` variable an own field.
  const doc: Record<string, unknown> = {};
  let sa: { name: string; namespace: string } | undefined | null = null;
  for (const name of names) {
    const binding = scope.lookup(name);
    if (binding !== undefined) {
      // A binding holding its value (a foreach element) is read now: an accessor per query costs more than
      // the query. A lazy one (its value a getter, interpreter/scope.ts LazyBinding) stays lazy.
      if (hasOwn(binding, 'value')) defineOwn(doc as JsonObject, name, binding.value);
      else Object.defineProperty(doc, name, { enumerable: true, configurable: true, get: () => binding.value });
      continue;
    }
    if (name === 'request') doc.request = requestDocument(scope);
    else if (name === 'images') {
      const extracted = images !== undefined ? images.get() : evaluationImages(scope);
      if (extracted instanceof ImagesFailure) return extracted;
      if (extracted !== undefined) doc.images = extracted;
    } else if (name === 'serviceAccountName' || name === 'serviceAccountNamespace') {
      if (sa === null) sa = serviceAccount(scope.request.userInfo?.username);
      if (sa) doc[name] = name === 'serviceAccountName' ? sa.name : sa.namespace;
    }
  }
  return doc;
}

/** The context document for one evaluation; cheap to build, every part computed on first read. */
export function kyvernoDocument(scope: ExprScope): Record<string, unknown> {
  const doc: Record<string, unknown> = Object.create(null);
  const vars = scope.vars;
  for (const name of Object.keys(vars)) {
    Object.defineProperty(doc, name, { enumerable: true, configurable: true, get: () => vars[name] });
  }
  if (!hasOwn(doc, 'request')) defineLazy(doc, 'request', () => requestDocument(scope));
  if (!hasOwn(doc, 'images')) {
    const source = imagesSourceOf(scope);
    if (podSpecFieldsOf(source) !== undefined) {
      defineLazy(doc, 'images', () => {
        const images = evaluationImages(scope);
        // A read of the whole document has no query of its own to fail: the read fails the expression.
        if (images instanceof ImagesFailure) throw evalFailure('TM6002', images.message);
        return images;
      });
    }
  }
  const sa = serviceAccount(scope.request.userInfo?.username);
  if (sa) {
    if (!hasOwn(doc, 'serviceAccountName')) doc.serviceAccountName = sa.name;
    if (!hasOwn(doc, 'serviceAccountNamespace')) doc.serviceAccountNamespace = sa.namespace;
  }
  return doc;
}
