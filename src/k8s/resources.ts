import { hasOwn, isJsonObject, type JsonValue } from '../ir/json.js';
import type { GroupVersionKind, GroupVersionResource } from './request.js';
import { BUILTIN_RESOURCES } from './resource-table.js';

export interface ResourceInfo {
  group: string;
  /** The preferred served version. */
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
}

/** Nested maps (group → name → info) so lookups never build a key string on the hot path. */
type ByGroup = Map<string, Map<string, ResourceInfo>>;

interface Tables {
  all: ResourceInfo[];
  byGroupKind: ByGroup;
  byGroupResource: ByGroup;
}

function put(index: ByGroup, group: string, name: string, info: ResourceInfo): void {
  let inner = index.get(group);
  if (!inner) index.set(group, (inner = new Map()));
  inner.set(name, info);
}

let tables: Tables | undefined;

function load(): Tables {
  if (tables) return tables;
  const all: ResourceInfo[] = [];
  const byGroupKind: ByGroup = new Map();
  const byGroupResource: ByGroup = new Map();
  for (const line of BUILTIN_RESOURCES.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 5) continue;
    const [group, version, kind, resource, scope] = parts as [string, string, string, string, string];
    const info: ResourceInfo = { group: group === 'core' ? '' : group, version, kind, resource, namespaced: scope === 'N' };
    all.push(info);
    put(byGroupKind, info.group, kind, info);
    put(byGroupResource, info.group, resource, info);
  }
  tables = { all, byGroupKind, byGroupResource };
  return tables;
}

/** Every built-in kind in the table (read-only). */
export function builtinResources(): readonly ResourceInfo[] {
  return load().all;
}

/** Splits `apiVersion` into group and version: `v1` is the core group, `apps/v1` is group `apps`. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The object's group/version/kind from `apiVersion` and `kind`; absent or non-string fields read as ''. */
export function gvkOf(object: JsonValue | null | undefined): GroupVersionKind {
  if (!isJsonObject(object)) return { group: '', version: '', kind: '' };
  const av = hasOwn(object, 'apiVersion') ? object['apiVersion'] : undefined;
  const k = hasOwn(object, 'kind') ? object['kind'] : undefined;
  const apiVersion = typeof av === 'string' ? av : '';
  const kind = typeof k === 'string' ? k : '';
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion, kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** The built-in entry for a group and kind (any version), if known. */
export function lookupKind(group: string, kind: string): ResourceInfo | undefined {
  return load().byGroupKind.get(group)?.get(kind);
}

/** The built-in entry for a group and resource (plural), if known. */
export function lookupResource(group: string, resource: string): ResourceInfo | undefined {
  return load().byGroupResource.get(group)?.get(resource);
}

/**
 * The plural resource name apimachinery guesses for an unknown kind (`meta.UnsafeGuessKindToResource`):
 * lowercase, then `s` → `ses`, `y` → `ies`, otherwise `+s`; `endpoints` stays as it is.
 */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === '' || singular === 'endpoints') return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** The resource of a kind, keeping the kind's group and version; unknown kinds get the guessed plural. */
export function resourceOf(gvk: GroupVersionKind): GroupVersionResource {
  const info = lookupKind(gvk.group, gvk.kind);
  return { group: gvk.group, version: gvk.version, resource: info ? info.resource : guessResource(gvk.kind) };
}

/** The kind served at a resource, keeping the resource's group and version; undefined when unknown. */
export function kindOfResource(gvr: GroupVersionResource): GroupVersionKind | undefined {
  const info = lookupResource(gvr.group, gvr.resource);
  return info ? { group: gvr.group, version: gvr.version, kind: info.kind } : undefined;
}

/** Whether a built-in kind is namespaced; undefined for kinds the table does not know (CRDs). */
export function isNamespacedKind(gvk: Pick<GroupVersionKind, 'group' | 'kind'>): boolean | undefined {
  return lookupKind(gvk.group, gvk.kind)?.namespaced;
}
