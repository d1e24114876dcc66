/**
 * Context entries that read the cluster, as the CEL of a Kyverno MutatingPolicy, whose environment reads it
 * through Kyverno's resource library (`resource.Get`, `resource.List`; pkg/cel/libs/context.go GetResource,
 * ListResources: the dynamic client's object or list). As Kyverno's loaders read them (src/dialects/kyverno/
 * context-cluster.ts gives the same values from a replayed cluster):
 * - `apiCall` GET of `urlPath` (pkg/engine/apicall/apiCall.go): the path's holes substituted, the response
 *   stored whole or narrowed by `jmesPath` (substituted, then Kyverno's JMESPath on the response alone; a null result is
 *   stored too); a call that fails fails the entry, as `resource.Get` fails the CEL, and so does a missing
 *   object, which the library answers with null (foundOrFail). A path naming one object is `resource.Get`, a
 *   collection `resource.List`;
 * - `configMap` (loaders/configmap.go): name and namespace substituted (no namespace: `default`), the
 *   ConfigMap's `data` and `metadata`; a missing ConfigMap fails the entry.
 * - `imageRegistry` (loaders/imagedata.go): the registry client's data, from `image.GetMetadata`.
 * Refused: a namespaced Policy's entries (its own namespace rules), `default` (CEL cannot fall back on an
 * error), service calls, other methods, holes that are not whole path segments,
 * paths that name no resource (`/version`: the resource library reads resources only), and per-entry
 * registry credentials.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { T } from '../../../lowering/jmes-cel/index.js';
import { cannot, notYet, type Refusal } from '../../generate-report.js';
import { failWith, paren, type Cel } from './cel-patch.js';
import { refused, type RuleCompiler, type Typed } from './rule.js';

/** What the entry reads, as CEL; undefined for an entry of another kind (a globalReference). */
export function clusterContextCel(rc: RuleCompiler, entry: JsonObject): Typed | Refusal | undefined {
  const name = String(entry.name);
  if (isJsonObject(entry.imageRegistry)) return imageRegistryCel(rc, name, entry.imageRegistry);
  const apiCall = isJsonObject(entry.apiCall) ? entry.apiCall : undefined;
  const configMap = isJsonObject(entry.configMap) ? entry.configMap : undefined;
  if (apiCall === undefined && configMap === undefined) return undefined;
  if (typeof entry.policyNamespace === 'string') return notYet(`the context entry ${name} of a namespaced Policy, which reads the cluster within the policy's namespace`);
  return apiCall !== undefined ? apiCallCel(rc, name, apiCall) : configMapCel(rc, name, configMap!);
}

function apiCallCel(rc: RuleCompiler, name: string, call: JsonObject): Typed | Refusal {
  if (call.service !== undefined && call.service !== null) return notYet(`the context entry ${name}, an apiCall to a service (Kyverno's CEL http library)`);
  if (call.method !== undefined && call.method !== 'GET') return notYet(`the context entry ${name}, an apiCall ${String(call.method)}`);
  if (call.default !== undefined && call.default !== null) return cannot(`the default of the context entry ${name}, which Kyverno takes where the apiCall fails: CEL cannot fall back on an error`);
  if (typeof call.urlPath !== 'string') return notYet(`the context entry ${name}, an apiCall without urlPath`);
  const path = resourcePath(rc, name, call.urlPath);
  if (refused(path)) return path;
  const response =
    path.name === undefined
      ? `resource.List(${path.apiVersion}, ${path.resource}, ${path.namespace})`
      : foundOrFail(`resource.Get(${path.apiVersion}, ${path.resource}, ${path.namespace}, ${path.name})`, `context entry ${name}: the apiCall's object is not found (the API server answers 404)`);
  if (path.name === undefined) {
    rc.notes.add(
      `the context entry ${name} reads a collection through resource.List, whose items carry apiVersion and kind and whose list is the dynamic client's: the API server's raw list, which Kyverno's apiCall reads, leaves them out of built-in kinds' items`,
    );
  }
  return narrowed(rc, name, response, call.jmesPath);
}

/**
 * The entry's `document`, narrowed by its `jmesPath` (none: the whole document), queried as Kyverno queries
 * it on the document alone.
 */
function narrowed(rc: RuleCompiler, name: string, document: Cel, jmesPath: JsonValue | undefined): Typed | Refusal {
  const path = typeof jmesPath === 'string' ? jmesPath : '';
  if (path === '') return { cel: document, type: T.dyn };
  // The query may read the document several times: it is bound once (a foreach's entry reads the element, so
  // the document cannot be a policy variable of its own).
  const bound = rc.fresh.next('response');
  const query = rc.queryOnDocument(path, bound);
  if (refused(query)) return query;
  return { cel: `[${document}].map(${bound}, ${query.cel})[0]`, type: query.type };
}

/**
 * An `imageRegistry` entry (loaders/imagedata.go over adapters/rclient.go ForRef): the reference substituted,
 * the registry client's data (image, resolvedImage, registry, repository, identifier, manifestList,
 * manifest, configData) made from the image library's metadata (`image.GetMetadata`: imageIndex, config),
 * the identifier from the reference as rclient.go makes it (the digest, prefixed by the text after the last
 * `:` before `@` when there is one: its quirk with a registry port included).
 */
function imageRegistryCel(rc: RuleCompiler, name: string, registry: JsonObject): Typed | Refusal {
  if (registry.imageRegistryCredentials !== undefined && registry.imageRegistryCredentials !== null) {
    return cannot(`the imageRegistryCredentials of the context entry ${name}: Kyverno's CEL image library reads registries with the controller's own credentials`);
  }
  const reference = substitutedText(rc, typeof registry.reference === 'string' ? registry.reference : '');
  if (refused(reference)) return reference;
  const [r, m, b] = [rc.fresh.next('ref'), rc.fresh.next('meta'), rc.fresh.next('before')];
  const tag = `${b}.substring(${b}.lastIndexOf(":") + 1)`;
  const identifier =
    `image(${r}).containsDigest() ? [${r}.substring(0, ${r}.indexOf("@"))].map(${b}, ${b}.lastIndexOf(":") >= 0 && ${tag} != "" ? ${tag} + "@" + image(${r}).digest() : image(${r}).digest())[0]` +
    ` : image(${r}).identifier()`;
  const data =
    `[${reference}].map(${r}, [image.GetMetadata(${r})].map(${m}, {"image": ${r}, "resolvedImage": ${m}.resolvedImage, "registry": ${m}.registry, "repository": ${m}.repository, ` +
    `"identifier": ${identifier}, "manifestList": ${m}.?imageIndex.orValue(null), "manifest": ${m}.?manifest.orValue(null), "configData": ${m}.?config.orValue(null)})[0])[0]`;
  return narrowed(rc, name, data, registry.jmesPath);
}

function configMapCel(rc: RuleCompiler, name: string, configMap: JsonObject): Typed | Refusal {
  // Kyverno reads the ConfigMap from its informer's cache by namespace and name (no path): a name the
  // substitution makes odd is not found there, as resource.Get does not find it.
  const cmName = substitutedText(rc, typeof configMap.name === 'string' ? configMap.name : '');
  if (refused(cmName)) return cmName;
  const namespace = substitutedText(rc, typeof configMap.namespace === 'string' ? configMap.namespace : '');
  if (refused(namespace)) return namespace;
  // loaders/configmap.go: an empty namespace (after substitution) reads the `default` namespace.
  const ns = namespace === '""' ? '"default"' : /^"[^"\\]+"$/.test(namespace) ? namespace : `[${namespace}].map(n, n == "" ? "default" : n)[0]`;
  const get = foundOrFail(`resource.Get("v1", "configmaps", ${ns}, ${cmName})`, `context entry ${name}: the ConfigMap is not found`);
  // The typed ConfigMap's `data` (null when it has none) and `metadata`.
  return { cel: `[${get}].map(cm, {"data": has(cm.data) ? cm.data : null, "metadata": cm.metadata})[0]`, type: T.dyn };
}

/**
 * `get`, a `resource.Get`, failing with `message` where the object is missing: Kyverno fails the entry there,
 * where the resource library answers null (kyverno/sdk #68).
 */
function foundOrFail(get: Cel, message: string): Cel {
  return `[${get}].map(found, found == null ? ${failWith(message)} : found)[0]`;
}

/** An API server path's parts as CEL strings (`name` undefined for a collection). */
interface ResourcePath {
  apiVersion: Cel;
  resource: Cel;
  namespace: Cel;
  name: Cel | undefined;
}

/**
 * `/api/<version>[/namespaces/<ns>]/<resource>[/<name>]` or `/apis/<group>/<version>/...` (as the replay's
 * API server reads it, conformance/runners/api-server.ts): the fixed parts constant, the namespace and name
 * constants or whole-segment holes.
 */
function resourcePath(rc: RuleCompiler, entry: string, urlPath: string): ResourcePath | Refusal {
  const segments = pathSegments(urlPath);
  if (segments === undefined) return notYet(`the urlPath ${JSON.stringify(urlPath)} of the context entry ${entry}, which is not a path of fixed segments from the root (it starts with a hole or without "/", has an empty segment, or an unclosed hole)`);
  const fixed = (i: number): string | undefined => (segments[i] !== undefined && !segments[i]!.includes('{{') ? segments[i] : undefined);
  let apiVersion: string;
  let rest: string[];
  if (fixed(0) === 'api' && fixed(1) !== undefined && segments.length >= 3) {
    apiVersion = segments[1]!;
    rest = segments.slice(2);
  } else if (fixed(0) === 'apis' && fixed(1) !== undefined && fixed(2) !== undefined && segments.length >= 4) {
    apiVersion = `${segments[1]}/${segments[2]}`;
    rest = segments.slice(3);
  } else {
    return cannot(`the context entry ${entry}, an apiCall of ${JSON.stringify(urlPath)}, which names no resource: Kyverno's CEL resource library reads resources only`);
  }
  let namespace: Cel = '""';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const ns = segmentCel(rc, entry, rest[1]!);
    if (refused(ns)) return ns;
    namespace = ns;
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 2 || rest[0]!.includes('{{') || urlPath.includes('?')) {
    return notYet(`the context entry ${entry}, an apiCall of ${JSON.stringify(urlPath)} (a subresource, a query or a resource named by a variable)`);
  }
  let name: Cel | undefined;
  if (rest.length === 2) {
    const n = segmentCel(rc, entry, rest[1]!);
    if (refused(n)) return n;
    name = n;
  }
  return { apiVersion: JSON.stringify(apiVersion), resource: JSON.stringify(rest[0]), namespace, name };
}

/**
 * A path segment as a CEL string: a constant, or Kyverno's substitution of its holes. The raw GET of a
 * substituted path that is empty there, or holds `/` or `?`, is of another path than the one the library's
 * arguments name: the CEL fails there (and a note says so).
 */
function segmentCel(rc: RuleCompiler, entry: string, segment: string): Cel | Refusal {
  const t = substitutedText(rc, segment);
  if (refused(t) || !segment.includes('{{')) return t;
  rc.notes.add(
    `the context entry ${entry} names a resource by a substituted path segment: where the substitution is empty or holds "/" or "?", Kyverno requests another path, and the CEL fails instead`,
  );
  const elsewhere = failWith(`context entry ${entry}: the substituted path segment ${segment} is empty or holds "/" or "?"`);
  return `[${paren(t)}].map(s, s == "" || s.contains("/") || s.contains("?") ? ${elsewhere} : s)[0]`;
}

/** A string that may hold `{{ }}` holes as the CEL of the text Kyverno substitutes. */
function substitutedText(rc: RuleCompiler, text: string): Cel | Refusal {
  return text.includes('{{') ? rc.templateText(text, rc.scope, { text: true }) : JSON.stringify(text);
}

/** The path's segments split on `/` outside `{{ }}` holes, without the empty first one; undefined when a hole is unclosed. */
function pathSegments(urlPath: string): string[] | undefined {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  for (let i = 0; i < urlPath.length; i++) {
    if (urlPath.startsWith('{{', i)) {
      depth++;
      current += '{{';
      i++;
      continue;
    }
    if (urlPath.startsWith('}}', i) && depth > 0) {
      depth--;
      current += '}}';
      i++;
      continue;
    }
    const c = urlPath[i]!;
    if (c === '/' && depth === 0) {
      out.push(current);
      current = '';
    } else current += c;
  }
  if (depth > 0) return undefined;
  out.push(current);
  if (out[0] !== '') return undefined;
  // An empty segment (a trailing slash too: the API server's routes may read it as an empty name) is refused.
  const segments = out.slice(1);
  return segments.includes('') ? undefined : segments;
}
