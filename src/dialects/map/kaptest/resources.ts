/**
 * The resources of a kaptest manifest and how a test names one (pfnet/kaptest internal/tester: loader.go
 * `LoadResources` / `GetResource`, manifest.go `NameWithGVK.Match`): kind and name must be equal; namespace,
 * group and version narrow only when the reference gives them (version only together with group). Two loaded
 * resources with the same group, version, kind, namespace and name are one entry, the later one winning
 * (kaptest keys a map by them); a reference that still matches several is an error, not a guess.
 */
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import { parseApiVersion } from '../../../k8s/resources.js';
import type { ObjectRef, ResourceDoc } from './model.js';

interface Entry {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  resource: ResourceDoc;
}

export type Lookup = { found: ResourceDoc } | { missing: true } | { ambiguous: number };

export interface RefQuery {
  group?: string;
  version?: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** `Kind:namespace/name` as kaptest prints a reference (NameWithGVK.String). */
export function refString(r: Pick<RefQuery, 'kind' | 'namespace' | 'name'>): string {
  return `${r.kind}:${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

export class ResourceIndex {
  private readonly entries: Entry[];
  private readonly byName = new Map<string, Entry[]>();

  constructor(resources: readonly ResourceDoc[]) {
    const byKey = new Map<string, Entry>();
    for (const resource of resources) {
      const e = entryOf(resource);
      byKey.set(JSON.stringify([e.group, e.version, e.kind, e.namespace, e.name]), e);
    }
    this.entries = [...byKey.values()];
    for (const e of this.entries) {
      const key = `${e.kind}\u0000${e.name}`;
      (this.byName.get(key) ?? this.byName.set(key, []).get(key)!).push(e);
    }
  }

  lookup(q: RefQuery | ObjectRef): Lookup {
    const candidates = this.byName.get(`${q.kind}\u0000${q.name}`) ?? [];
    const hits = candidates.filter(
      (e) =>
        (q.namespace === undefined || q.namespace === e.namespace) &&
        (q.group === undefined || (q.group === e.group && (q.version === undefined || q.version === e.version))),
    );
    if (hits.length === 0) return { missing: true };
    if (hits.length > 1) return { ambiguous: hits.length };
    return { found: hits[0]!.resource };
  }
}

function entryOf(resource: ResourceDoc): Entry {
  const v = resource.value;
  const { group, version } = typeof v.apiVersion === 'string' ? parseApiVersion(v.apiVersion) : { group: '', version: '' };
  const md: JsonObject = isJsonObject(v.metadata) ? v.metadata : {};
  return {
    group,
    version,
    kind: typeof v.kind === 'string' ? v.kind : '',
    namespace: typeof md.namespace === 'string' ? md.namespace : '',
    name: typeof md.name === 'string' ? md.name : '',
    resource,
  };
}
