/**
 * GETs of API server paths answered by a replayed cluster (runners/chainsaw.ts): what a Kyverno apiCall
 * (a GlobalContextEntry's, global-context-entries.ts, or a context entry's, dialects/kyverno/context-cluster.ts)
 * and a configMap context entry read. A path names a collection (`/api/v1/namespaces/<ns>/configmaps`: the
 * server's `<Kind>List`) or one object; query strings and subresources are not answered.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';

/** What the reads need of the replayed cluster. */
export interface ReplayedCluster {
  /** Every stored object. */
  objects(): Iterable<JsonObject>;
  /** Stored objects of an apiVersion and plural resource, in a namespace ('' for all). */
  list(apiVersion: string, resource: string, namespace: string): JsonObject[];
  /** The kind of a resource's objects, for the name of its list; undefined when unknown. */
  kindOf(apiVersion: string, resource: string): string | undefined;
}

/** An API server GET urlPath: a collection (no name) or one object. */
interface ApiPath {
  apiVersion: string;
  resource: string;
  namespace: string;
  name: string | undefined;
}

/** `/api/v1[/namespaces/<ns>]/<resource>[/<name>]` or `/apis/<group>/<version>/...`; undefined for anything else. */
export function parseApiPath(urlPath: string): ApiPath | undefined {
  if (urlPath.includes('?')) return undefined;
  const parts = urlPath.split('/').filter((p) => p !== '');
  let apiVersion: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiVersion = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else return undefined;
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  if (rest.length === 1) return { apiVersion, resource: rest[0]!, namespace, name: undefined };
  if (rest.length === 2) return { apiVersion, resource: rest[0]!, namespace, name: rest[1]! };
  return undefined;
}

/**
 * The API server's answer to a GET of `urlPath` over the cluster: an object or a `<Kind>List` (`found`),
 * `missing` for an object that is not there, undefined for a path this cluster cannot answer.
 */
export function apiGet(cluster: ReplayedCluster, urlPath: string): { found: JsonValue } | 'missing' | undefined {
  const path = parseApiPath(urlPath);
  if (path === undefined) return undefined;
  const stored = cluster.list(path.apiVersion, path.resource, path.namespace);
  if (path.name !== undefined) {
    const found = stored.find((o) => isJsonObject(o.metadata) && o.metadata.name === path.name && String(o.metadata.namespace ?? '') === path.namespace);
    return found === undefined ? 'missing' : { found };
  }
  const kind = cluster.kindOf(path.apiVersion, path.resource);
  return kind === undefined ? undefined : { found: { apiVersion: path.apiVersion, kind: `${kind}List`, metadata: {}, items: stored } };
}
