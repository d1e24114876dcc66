/**
 * The JSON context Kyverno's variables are queried against (pkg/engine/context), built from an interpreter
 * scope: `request.*` (operation, object, oldObject, namespace, name, kind, userInfo, roles, clusterRoles),
 * `serviceAccountName`/`serviceAccountNamespace`, `images.*` (computed on first use), and every variable in
 * scope at the top level (`element`, `elementIndex`, `element0`..., context entries). Values are read lazily so
 * a lazily bound context entry is evaluated (and can fail) only when a query reaches it.
 */
import type { ExprScope } from '../../interpreter/engines.js';
import { defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { getImageInfo, type ImageInfo } from '../../jmespath/functions/images.js';

const IMAGE_ENV = { ctx: {} };

/** pkg/utils/image ImageInfo as it is stored in the context (omitempty fields dropped). */
function imageEntry(image: string): JsonObject | undefined {
  const info = getImageInfo(image, IMAGE_ENV);
  if (typeof info === 'string') return undefined;
  return imageInfoJson(info);
}

function imageInfoJson(i: ImageInfo): JsonObject {
  const referenceWithTag = i.registry !== '' ? `${i.registry}/${i.path}:${i.tag}` : `${i.path}:${i.tag}`;
  const image = i.registry !== '' ? `${i.registry}/${i.path}` : i.path;
  const reference = i.digest !== '' ? `${image}@${i.digest}` : `${image}:${i.tag}`;
  const out: JsonObject = {};
  if (i.registry !== '') out.registry = i.registry;
  out.name = i.name;
  out.path = i.path;
  if (i.tag !== '') out.tag = i.tag;
  if (i.digest !== '') out.digest = i.digest;
  out.reference = reference;
  out.referenceWithTag = referenceWithTag;
  return out;
}

function field(v: JsonValue | undefined, ...keys: string[]): JsonValue | undefined {
  let cur = v;
  for (const k of keys) {
    if (!isJsonObject(cur) || !hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/**
 * pkg/engine/context AddImageInfos: the images of a Pod, or of the pod template of a workload
 * (`spec.template.spec`, CronJob `spec.jobTemplate.spec.template.spec`), keyed by container name.
 */
function podSpecOf(object: JsonValue | null | undefined): JsonObject | undefined {
  if (!isJsonObject(object)) return undefined;
  const kind = field(object, 'kind');
  let podSpec: JsonValue | undefined;
  if (kind === 'Pod') podSpec = field(object, 'spec');
  else if (kind === 'CronJob') podSpec = field(object, 'spec', 'jobTemplate', 'spec', 'template', 'spec');
  else podSpec = field(object, 'spec', 'template', 'spec');
  return isJsonObject(podSpec) ? podSpec : undefined;
}

export function imagesOf(object: JsonValue | null | undefined): JsonObject | undefined {
  const podSpec = podSpecOf(object);
  if (!podSpec) return undefined;
  const out: JsonObject = {};
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    const entries: JsonObject = {};
    let any = false;
    for (const c of containers) {
      const name = field(c, 'name');
      const image = field(c, 'image');
      if (typeof name !== 'string' || typeof image !== 'string') continue;
      const info = imageEntry(image);
      if (info) {
        entries[name] = info;
        any = true;
      }
    }
    if (any) out[list] = entries;
  }
  return Object.keys(out).length > 0 ? out : undefined;
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
 * `kyvernoDocument`, built for those names only (variables still read on access). Undefined when the scope
 * cannot look variables up by name.
 */
export function kyvernoDocumentFields(scope: ExprScope, names: readonly string[]): Record<string, unknown> | undefined {
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
      const source = scope.object ?? scope.request.oldObject ?? null;
      if (podSpecOf(source)) doc.images = imagesOf(source) ?? {};
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
    const source = scope.object ?? scope.request.oldObject ?? null;
    if (podSpecOf(source)) defineLazy(doc, 'images', () => imagesOf(source) ?? {});
  }
  const sa = serviceAccount(scope.request.userInfo?.username);
  if (sa) {
    if (!hasOwn(doc, 'serviceAccountName')) doc.serviceAccountName = sa.name;
    if (!hasOwn(doc, 'serviceAccountNamespace')) doc.serviceAccountNamespace = sa.namespace;
  }
  return doc;
}
