/**
 * A CustomResourceDefinition → the schema of each served version, as kube-apiserver publishes it
 * (apiextensions-apiserver pkg/controller/openapi/builder/builder.go buildKubeNative, for OpenAPI v3) and
 * then converts it for MAP (kube-openapi schemaconv, convert.ts):
 *
 * - the version's `openAPIV3Schema`, with `metadata` replaced by a reference to ObjectMeta (typed by the
 *   built-in table) and `apiVersion`/`kind` by strings;
 * - every `x-kubernetes-embedded-resource: true` node gets the same three properties (addEmbeddedProperties);
 * - a version without a schema is `{type: object}` with nothing else: every field deduced, metadata too;
 * - the type is named like the builder's definition: reversed group, version, kind
 *   (`com.example.stable.v1.CronTab`).
 *
 * Not reproduced: the builder drops a schema that is not structural (it then publishes `{type: object}`);
 * kube-apiserver never accepts such a v1 CRD, so a CRD taken from a cluster always has a structural schema.
 */
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../../../diagnostics/index.js';
import { copyObject, defineOwn, hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../../io/source.js';
import type { GroupVersionKind } from '../../../k8s/request.js';
import { convertOpenApiSchema } from './convert.js';
import { KindSchemaTable } from './kinds.js';

const OBJECT_META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** One served version of a CRD: its kind and the name of its type in the converted schema. */
export interface CrdVersionKind {
  gvk: GroupVersionKind;
  typeName: string;
}

export interface CrdKinds {
  kinds: KindSchemaTable;
  versions: CrdVersionKind[];
}

function member(o: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(o, key) ? o[key] : undefined;
}

/** The builder's definition name for group/version.Kind (kube-openapi util.ToRESTFriendlyName). */
export function crdTypeName(gvk: GroupVersionKind): string {
  return [...gvk.group.split('.').reverse(), gvk.version, gvk.kind].join('.');
}

function typeMetaProperties(s: JsonObject): JsonObject {
  const out = copyObject(s);
  const props = isJsonObject(member(s, 'properties')) ? copyObject(member(s, 'properties') as JsonObject) : {};
  defineOwn(props, 'apiVersion', { type: 'string' });
  defineOwn(props, 'kind', { type: 'string' });
  defineOwn(props, 'metadata', { $ref: OBJECT_META_REF });
  defineOwn(out, 'properties', props);
  return out;
}

/** addEmbeddedProperties over a schema tree; returns `s` itself where nothing changes (no deep copy). */
function withEmbeddedProperties(s: JsonValue): JsonValue {
  if (!isJsonObject(s)) return s;
  let out: JsonObject | undefined;
  const replace = (key: string, value: JsonValue): void => {
    out ??= copyObject(s);
    defineOwn(out, key, value);
  };
  const props = member(s, 'properties');
  if (isJsonObject(props)) {
    let newProps: JsonObject | undefined;
    for (const k of Object.keys(props)) {
      const v = withEmbeddedProperties(props[k]!);
      if (v === props[k]) continue;
      newProps ??= copyObject(props);
      defineOwn(newProps, k, v);
    }
    if (newProps) replace('properties', newProps);
  }
  for (const key of ['items', 'additionalProperties']) {
    const child = member(s, key);
    if (!isJsonObject(child)) continue;
    const v = withEmbeddedProperties(child);
    if (v !== child) replace(key, v);
  }
  const current: JsonObject = out ?? s;
  return member(s, 'x-kubernetes-embedded-resource') === true ? typeMetaProperties(current) : current;
}

/** buildKubeNative for OpenAPI v3: the published schema of one CRD version. */
export function publishedCrdSchema(openAPIV3Schema: JsonValue | undefined): JsonValue {
  if (openAPIV3Schema === undefined || !isJsonObject(openAPIV3Schema)) return { type: 'object' };
  const root = withEmbeddedProperties(openAPIV3Schema) as JsonObject;
  // The root's own TypeMeta and ObjectMeta win over whatever the CRD declares for them.
  return typeMetaProperties(root);
}

/**
 * The kinds a CustomResourceDefinition (apiextensions.k8s.io/v1) serves, each typed by its version's schema.
 * `at` is where the CRD sits in `source` (a `List` item), for spans.
 */
export function crdKindSchemas(doc: JsonValue, source?: SourceDoc, at: YamlPath = []): Result<CrdKinds> {
  const span = (p: YamlPath) => source?.spanOf([...at, ...p]);
  const bad = (p: YamlPath, message: string, code: 'TM2001' | 'TM2002' | 'TM2005' = 'TM2002'): Result<CrdKinds> =>
    fail(diagnostic(code, { phase: 'parse', message: `CustomResourceDefinition: ${message}`, span: span(p) }));
  if (!isJsonObject(doc)) return bad([], 'expected a mapping');
  if (member(doc, 'kind') !== 'CustomResourceDefinition') return bad(['kind'], `expected kind CustomResourceDefinition, got ${JSON.stringify(member(doc, 'kind') ?? null)}`, 'TM2001');
  if (member(doc, 'apiVersion') !== 'apiextensions.k8s.io/v1') {
    return bad(['apiVersion'], `expected apiVersion apiextensions.k8s.io/v1, got ${JSON.stringify(member(doc, 'apiVersion') ?? null)}`, 'TM2001');
  }
  const spec = member(doc, 'spec');
  if (!isJsonObject(spec)) return bad(['spec'], 'spec: expected a mapping', 'TM2005');
  const group = member(spec, 'group');
  if (typeof group !== 'string' || group === '') return bad(['spec', 'group'], 'spec.group: expected a non-empty string', 'TM2005');
  const names = member(spec, 'names');
  const kind = isJsonObject(names) ? member(names, 'kind') : undefined;
  if (typeof kind !== 'string' || kind === '') return bad(['spec', 'names'], 'spec.names.kind: expected a non-empty string', 'TM2005');
  const versions = member(spec, 'versions');
  if (!Array.isArray(versions)) return bad(['spec', 'versions'], 'spec.versions: expected a list', 'TM2005');

  const kinds = new KindSchemaTable();
  const served: CrdVersionKind[] = [];
  const diagnostics: Diagnostic[] = [];
  versions.forEach((v, i) => {
    const where: YamlPath = ['spec', 'versions', i];
    if (!isJsonObject(v)) {
      diagnostics.push(...bad(where, `spec.versions[${i}]: expected a mapping`).diagnostics);
      return;
    }
    const version = member(v, 'name');
    if (typeof version !== 'string' || version === '') {
      diagnostics.push(...bad([...where, 'name'], `spec.versions[${i}].name: expected a non-empty string`, 'TM2005').diagnostics);
      return;
    }
    if (member(v, 'served') !== true) return;
    const schemaBlock = member(v, 'schema');
    const openAPIV3Schema = isJsonObject(schemaBlock) ? member(schemaBlock, 'openAPIV3Schema') : undefined;
    const gvk: GroupVersionKind = { group, version, kind };
    const typeName = crdTypeName(gvk);
    const opts: Parameters<typeof convertOpenApiSchema>[1] = { name: typeName, basePath: [...at, ...where, 'schema', 'openAPIV3Schema'] };
    if (source) opts.source = source;
    const r = convertOpenApiSchema(publishedCrdSchema(openAPIV3Schema), opts);
    diagnostics.push(...r.diagnostics);
    if (!r.ok) return;
    kinds.set(gvk, { ...r.value, namespaced: member(spec, 'scope') !== 'Cluster' });
    served.push({ gvk, typeName });
  });
  if (diagnostics.some((d) => d.severity === 'error')) return fail(...diagnostics);
  return ok({ kinds, versions: served }, diagnostics);
}
