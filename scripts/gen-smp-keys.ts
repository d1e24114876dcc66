/**
 * Generates src/merge/smp/merge-keys.json: the strategic-merge facts kyaml (kustomize kyaml v0.21.1, the
 * version Kyverno pins) holds for Kubernetes 1.21.2, reduced to what the Kyverno merge needs: for every
 * apiVersion/kind kyaml's embedded OpenAPI knows, the fields leading to lists whose
 * `x-kubernetes-patch-strategy` contains `merge`, with their merge keys.
 *
 *   npx tsx scripts/gen-smp-keys.ts [merge-keys.tsv] [smd-schema.yaml]
 *
 * Inputs (read at generation time, never copied):
 * - ../shared/reference/smp_merge_keys_k8s_v1.21.2.tsv — the patch strategies and merge keys of every
 *   k8s.io/api v0.21.2 struct field (one row per struct field);
 * - ../shared/conformance/map/k8s-schema/smd-schema-builtin.yaml — the field → type graph of the built-in
 *   types (a newer Kubernetes; only its structure is used, every strategy comes from the 1.21.2 table).
 *
 * Facts the TSV does not carry, stated here with their source:
 * - apimachinery ObjectMeta (k8s.io/apimachinery v0.21.2 pkg/apis/meta/v1/types.go): `finalizers`
 *   patchStrategy merge (a primitive set), `ownerReferences` patchStrategy merge, patchMergeKey uid;
 * - the apiVersion/kinds present in kyaml's kubernetesapi/v1_21_2 swagger (served APIs of 1.21 with every
 *   group enabled); kinds the newer type graph lacks get a root holding only `metadata`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** The generated table (format 1). Type ids are SMD type names without the `io.k8s.api.` prefix. */
export interface MergeKeyTable {
  format: 1;
  source: string;
  /** `apiVersion/Kind` (core group: `v1/Pod`) → root type id. */
  kinds: Record<string, string>;
  /** type id → field → entry. Only fields that lead to a merge list are present. */
  types: Record<string, Record<string, FieldEntry>>;
}

/**
 * A field entry: a type id (an object whose own fields lead to merge lists), or a list/map description.
 * `merge`: the list is associative with these keys ([] = a primitive set such as finalizers); `items`: the
 * element type id when elements hold merge lists themselves; `values`: the value type id of a map field.
 */
export type FieldEntry = string | { merge: string[]; items?: string } | { values: string };

/** Served apiVersions and kinds of Kubernetes 1.21 (api/openapi-spec with api/all=true). */
const KINDS_1_21: Readonly<Record<string, readonly string[]>> = {
  v1: [
    'Binding', 'ComponentStatus', 'ConfigMap', 'Endpoints', 'EphemeralContainers', 'Event', 'LimitRange', 'Namespace', 'Node',
    'PersistentVolume', 'PersistentVolumeClaim', 'Pod', 'PodTemplate', 'ReplicationController', 'ResourceQuota', 'Secret',
    'Service', 'ServiceAccount',
  ],
  'admissionregistration.k8s.io/v1': ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  'admissionregistration.k8s.io/v1beta1': ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  'internal.apiserver.k8s.io/v1alpha1': ['StorageVersion'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'apiextensions.k8s.io/v1beta1': ['CustomResourceDefinition'],
  'apiregistration.k8s.io/v1': ['APIService'],
  'apiregistration.k8s.io/v1beta1': ['APIService'],
  'apps/v1': ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  'authentication.k8s.io/v1': ['TokenRequest', 'TokenReview'],
  'authentication.k8s.io/v1beta1': ['TokenReview'],
  'authorization.k8s.io/v1': ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  'authorization.k8s.io/v1beta1': ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'],
  'autoscaling/v1': ['HorizontalPodAutoscaler', 'Scale'],
  'autoscaling/v2beta1': ['HorizontalPodAutoscaler'],
  'autoscaling/v2beta2': ['HorizontalPodAutoscaler'],
  'batch/v1': ['CronJob', 'Job'],
  'batch/v1beta1': ['CronJob'],
  'certificates.k8s.io/v1': ['CertificateSigningRequest'],
  'certificates.k8s.io/v1beta1': ['CertificateSigningRequest'],
  'coordination.k8s.io/v1': ['Lease'],
  'coordination.k8s.io/v1beta1': ['Lease'],
  'discovery.k8s.io/v1': ['EndpointSlice'],
  'discovery.k8s.io/v1beta1': ['EndpointSlice'],
  'events.k8s.io/v1': ['Event'],
  'events.k8s.io/v1beta1': ['Event'],
  'extensions/v1beta1': ['Ingress'],
  'flowcontrol.apiserver.k8s.io/v1alpha1': ['FlowSchema', 'PriorityLevelConfiguration'],
  'flowcontrol.apiserver.k8s.io/v1beta1': ['FlowSchema', 'PriorityLevelConfiguration'],
  'networking.k8s.io/v1': ['Ingress', 'IngressClass', 'NetworkPolicy'],
  'networking.k8s.io/v1beta1': ['Ingress', 'IngressClass'],
  'node.k8s.io/v1': ['RuntimeClass'],
  'node.k8s.io/v1alpha1': ['RuntimeClass'],
  'node.k8s.io/v1beta1': ['RuntimeClass'],
  'policy/v1': ['PodDisruptionBudget'],
  'policy/v1beta1': ['Eviction', 'PodDisruptionBudget', 'PodSecurityPolicy'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'rbac.authorization.k8s.io/v1alpha1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'rbac.authorization.k8s.io/v1beta1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'scheduling.k8s.io/v1alpha1': ['PriorityClass'],
  'scheduling.k8s.io/v1beta1': ['PriorityClass'],
  'storage.k8s.io/v1': ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
  'storage.k8s.io/v1alpha1': ['CSIStorageCapacity', 'VolumeAttachment'],
  'storage.k8s.io/v1beta1': ['CSIDriver', 'CSINode', 'CSIStorageCapacity', 'StorageClass', 'VolumeAttachment'],
};

/** API group → Go package under k8s.io/api (the SMD type names use the package). */
const PACKAGE_OF_GROUP: Readonly<Record<string, string>> = {
  '': 'core',
  'internal.apiserver.k8s.io': 'apiserverinternal',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol',
  'rbac.authorization.k8s.io': 'rbac',
};

function packageOfGroup(group: string): string {
  return PACKAGE_OF_GROUP[group] ?? group.replace(/\.k8s\.io$/, '');
}

/** Go structs embedded inline (their fields appear on the outer type in the OpenAPI). */
const INLINE_STRUCTS: Readonly<Record<string, string>> = {
  'core.v1.EphemeralContainerCommon': 'core.v1.EphemeralContainer',
};

const OBJECT_META = 'meta.v1.ObjectMeta';
const SYNTHETIC_PREFIX = 'kind:';

/** Facts from apimachinery v0.21.2 (not in the k8s.io/api table). */
const APIMACHINERY_FACTS: ReadonlyArray<[string, string, string[]]> = [
  [OBJECT_META, 'finalizers', []],
  [OBJECT_META, 'ownerReferences', ['uid']],
];

/** The 1.21 core/v1 EphemeralContainers kind (removed later, so absent from the newer type graph). */
const SYNTHETIC_FIELDS: Readonly<Record<string, Record<string, FieldEntry>>> = {
  'v1/EphemeralContainers': { ephemeralContainers: { merge: ['name'], items: 'core.v1.EphemeralContainer' } },
};

type SmdType = { named: string } | { list: SmdType } | { map: SmdType } | { scalar: true };

function typeId(smdName: string): string {
  return smdName.replace(/^io\.k8s\.api\./, '').replace(/^io\.k8s\.apimachinery\.pkg\.apis\./, '');
}

function readSmdType(t: unknown): SmdType {
  const o = (t ?? {}) as Record<string, unknown>;
  if (typeof o.namedType === 'string') return { named: typeId(o.namedType) };
  const list = o.list as Record<string, unknown> | undefined;
  if (list) return { list: readSmdType(list.elementType) };
  const map = o.map as Record<string, unknown> | undefined;
  if (map && map.elementType !== undefined && map.fields === undefined) return { map: readSmdType(map.elementType) };
  return { scalar: true };
}

function readSmd(text: string): Map<string, Map<string, SmdType>> {
  const doc = parseYaml(text) as { types: Array<{ name: string; map?: { fields?: Array<{ name: string; type: unknown }> } }> };
  const types = new Map<string, Map<string, SmdType>>();
  for (const t of doc.types) {
    const fields = new Map<string, SmdType>();
    for (const f of t.map?.fields ?? []) fields.set(f.name, readSmdType(f.type));
    types.set(typeId(t.name), fields);
  }
  return types;
}

/** TSV rows whose strategy contains `merge` → type id → field → keys (list-map keys win, else the merge key). */
function readMergeFacts(tsv: string): Map<string, Map<string, string[]>> {
  const facts = new Map<string, Map<string, string[]>>();
  const add = (type: string, field: string, keys: string[]) => {
    let m = facts.get(type);
    if (!m) facts.set(type, (m = new Map()));
    m.set(field, keys);
  };
  const lines = tsv.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines.slice(1)) {
    const [gv, struct, field, strategy, mergeKey, listType, listMapKeys] = line.split('\t');
    if (!gv || !struct || !field || !(strategy ?? '').split(',').includes('merge')) continue;
    const [group, version] = gv.split('/');
    const id = `${group}.${version}.${struct}`;
    // kyaml PatchStrategyAndKeyList: x-kubernetes-list-map-keys when present, else the patch merge key.
    const keys = listType === 'map' && listMapKeys ? listMapKeys.split(',') : mergeKey ? [mergeKey] : [];
    add(INLINE_STRUCTS[id] ?? id, field, keys);
  }
  for (const [type, field, keys] of APIMACHINERY_FACTS) add(type, field, keys);
  return facts;
}

export function generateMergeKeyTable(tsv: string, smdYaml: string): MergeKeyTable {
  const smd = readSmd(smdYaml);
  const facts = readMergeFacts(tsv);
  for (const [type, fields] of facts) {
    const t = smd.get(type);
    if (!t) continue; // a 1.21 struct the newer graph no longer has (its kinds are synthesised below)
    for (const field of fields.keys()) {
      const ft = t.get(field);
      if (!ft || !('list' in ft)) throw new Error(`merge fact ${type}.${field} is not a list field of the type graph`);
    }
  }

  // Which types lead to a merge list (memoised depth-first search; recursive types resolve to false).
  const relevant = new Map<string, boolean>();
  const isRelevant = (id: string): boolean => {
    const known = relevant.get(id);
    if (known !== undefined) return known;
    relevant.set(id, false);
    const fields = smd.get(id);
    let result = false;
    if (fields) {
      for (const [name, ft] of fields) {
        if (facts.get(id)?.has(name) || entryFor(ft) !== undefined) {
          result = true;
          break;
        }
      }
    }
    relevant.set(id, result);
    return result;
  };
  // Non-associative lists are replaced wholesale by kyaml, so only object and map fields lead further.
  const entryFor = (ft: SmdType): FieldEntry | undefined => {
    if ('named' in ft) return isRelevant(ft.named) ? ft.named : undefined;
    if ('map' in ft && 'named' in ft.map && isRelevant(ft.map.named)) return { values: ft.map.named };
    return undefined;
  };

  const types: Record<string, Record<string, FieldEntry>> = {};
  const emit = (id: string): void => {
    if (types[id] || !isRelevant(id)) return;
    const out: Record<string, FieldEntry> = {};
    types[id] = out;
    for (const [name, ft] of [...smd.get(id)!].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const keys = facts.get(id)?.get(name);
      if (keys) {
        const elem = 'list' in ft && 'named' in ft.list && isRelevant(ft.list.named) ? ft.list.named : undefined;
        out[name] = elem ? { merge: keys, items: elem } : { merge: keys };
        if (elem) emit(elem);
        continue;
      }
      const entry = entryFor(ft);
      if (entry === undefined) continue;
      out[name] = entry;
      emit(typeof entry === 'string' ? entry : 'values' in entry ? entry.values : entry.items!);
    }
  };

  const kinds: Record<string, string> = {};
  for (const [apiVersion, names] of Object.entries(KINDS_1_21)) {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    for (const kind of names) {
      const key = `${apiVersion}/${kind}`;
      const id = `${packageOfGroup(group!)}.${version}.${kind}`;
      if (smd.has(id) && !SYNTHETIC_FIELDS[key]) {
        emit(id);
        kinds[key] = isRelevant(id) ? id : `${SYNTHETIC_PREFIX}metadata-only`;
        continue;
      }
      // Not in the newer graph: every 1.21 kind has ObjectMeta; EphemeralContainers also its list.
      const synthetic = `${SYNTHETIC_PREFIX}${SYNTHETIC_FIELDS[key] ? key : 'metadata-only'}`;
      if (!types[synthetic]) {
        types[synthetic] = { metadata: OBJECT_META, ...(SYNTHETIC_FIELDS[key] ?? {}) };
        emit(OBJECT_META);
        for (const e of Object.values(SYNTHETIC_FIELDS[key] ?? {})) if (typeof e === 'object' && 'items' in e && e.items) emit(e.items);
      }
      kinds[key] = synthetic;
    }
  }
  const metadataOnly = `${SYNTHETIC_PREFIX}metadata-only`;
  types[metadataOnly] ??= { metadata: OBJECT_META };
  // Roots whose only merge lists are in metadata share one entry, which keeps the table small.
  const isMetadataOnly = (fields: Record<string, FieldEntry>) => {
    const keys = Object.keys(fields);
    return keys.length === 1 && fields.metadata === OBJECT_META;
  };
  for (const [key, id] of Object.entries(kinds)) if (isMetadataOnly(types[id]!)) kinds[key] = metadataOnly;
  const referenced = new Set<string>();
  const pending = [...new Set(Object.values(kinds))];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (referenced.has(id)) continue;
    referenced.add(id);
    for (const e of Object.values(types[id] ?? {})) {
      const next = typeof e === 'string' ? e : 'values' in e ? e.values : e.items;
      if (next) pending.push(next);
    }
  }

  const sortedTypes: Record<string, Record<string, FieldEntry>> = {};
  for (const id of Object.keys(types).sort()) if (referenced.has(id)) sortedTypes[id] = types[id]!;
  return {
    format: 1,
    source:
      'kyaml v0.21.1 / Kubernetes 1.21.2 strategic-merge facts: ../shared/reference/smp_merge_keys_k8s_v1.21.2.tsv ' +
      '+ apimachinery ObjectMeta, over the type graph of ../shared/conformance/map/k8s-schema/smd-schema-builtin.yaml ' +
      '(generated by scripts/gen-smp-keys.ts)',
    kinds,
    types: sortedTypes,
  };
}

/** The committed text form: stable, one type per line, so a diff reads well. */
export function renderMergeKeyTable(table: MergeKeyTable): string {
  const lines: string[] = ['{', `  "format": ${table.format},`, `  "source": ${JSON.stringify(table.source)},`, '  "kinds": {'];
  const kindEntries = Object.entries(table.kinds);
  kindEntries.forEach(([k, v], i) => lines.push(`    ${JSON.stringify(k)}: ${JSON.stringify(v)}${i < kindEntries.length - 1 ? ',' : ''}`));
  lines.push('  },', '  "types": {');
  const typeEntries = Object.entries(table.types);
  typeEntries.forEach(([k, v], i) => lines.push(`    ${JSON.stringify(k)}: ${JSON.stringify(v)}${i < typeEntries.length - 1 ? ',' : ''}`));
  lines.push('  }', '}');
  return lines.join('\n') + '\n';
}

export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.TRANSMUTE_SHARED ?? resolve(REPO_DIR, '../shared');
export const DEFAULT_TSV = resolve(SHARED, 'reference/smp_merge_keys_k8s_v1.21.2.tsv');
export const DEFAULT_SMD = resolve(SHARED, 'conformance/map/k8s-schema/smd-schema-builtin.yaml');
export const OUTPUT = resolve(REPO_DIR, 'src/merge/smp/merge-keys.json');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tsvPath = process.argv[2] ?? DEFAULT_TSV;
  const smdPath = process.argv[3] ?? DEFAULT_SMD;
  const table = generateMergeKeyTable(readFileSync(tsvPath, 'utf8'), readFileSync(smdPath, 'utf8'));
  const text = renderMergeKeyTable(table);
  writeFileSync(OUTPUT, text);
  console.log(`${OUTPUT}: ${Object.keys(table.kinds).length} kinds, ${Object.keys(table.types).length} types, ${text.length} bytes`);
}
