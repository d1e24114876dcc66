/**
 * Generates src/validate/crd-schemas.json, the compact structural schemas that kube-apiserver validates
 * transmute's policy kinds against, from the upstream CustomResourceDefinitions in the shared reference
 * folder (../shared/reference/crds, Apache-2.0; never committed here). Re-run when a CRD changes:
 *
 *   npx tsx scripts/gen-crd-schemas.ts [path/to/crds]
 *
 * Descriptions are dropped and identical subschemas shared, so the table stays small.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { NodeInterner, type CompactSchemaTable, type SchemaNode } from '../src/validate/schema-node.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const input = process.argv[2] ?? resolve(process.env.TRANSMUTE_SHARED ?? resolve(repo, '../shared'), 'reference/crds');
const output = resolve(repo, 'src/validate/crd-schemas.json');

/**
 * Kinds served from another kind's schema: Kyverno's Policy is ClusterPolicy's schema, namespaced
 * (kyverno api/kyverno/v1 policy_types.go); NamespacedMutatingPolicy is MutatingPolicy's (policies.kyverno.io).
 */
const SAME_SCHEMA: Record<string, { kind: string; scope: 'Namespaced' | 'Cluster' }> = {
  ClusterPolicy: { kind: 'Policy', scope: 'Namespaced' },
  MutatingPolicy: { kind: 'NamespacedMutatingPolicy', scope: 'Namespaced' },
};

type Raw = Record<string, unknown>;
const interner = new NodeInterner();
const nodes = interner.nodes;
const intern = (node: SchemaNode): number => interner.intern(node);

function compact(s: Raw): number {
  const n: SchemaNode = {};
  if (typeof s.type === 'string') n.type = s.type as SchemaNode['type'];
  if (s['x-kubernetes-preserve-unknown-fields'] === true) n.preserve = true;
  if (s['x-kubernetes-int-or-string'] === true) n.intOrString = true;
  if (s.nullable === true) n.nullable = true;
  if (s.properties && typeof s.properties === 'object') {
    n.properties = {};
    for (const k of Object.keys(s.properties as Raw).sort()) n.properties[k] = compact((s.properties as Raw)[k] as Raw);
  }
  if (s.additionalProperties !== undefined) {
    n.additionalProperties = typeof s.additionalProperties === 'object' ? compact(s.additionalProperties as Raw) : (s.additionalProperties as boolean);
  }
  if (s.items && typeof s.items === 'object') n.items = compact(s.items as Raw);
  if (Array.isArray(s.required) && s.required.length > 0) n.required = [...(s.required as string[])];
  if (Array.isArray(s.enum)) n.enum = s.enum as SchemaNode['enum'];
  if (s.default !== undefined) n.hasDefault = true;
  for (const k of ['pattern', 'format'] as const) if (typeof s[k] === 'string') n[k] = s[k] as string;
  for (const k of ['maxLength', 'minLength', 'maxItems', 'minItems', 'minimum', 'maximum', 'maxProperties', 'minProperties'] as const) {
    if (typeof s[k] === 'number') n[k] = s[k] as number;
  }
  if (Array.isArray(s.oneOf)) n.oneOf = (s.oneOf as Raw[]).map(compact);
  if (Array.isArray(s.anyOf)) n.anyOf = (s.anyOf as Raw[]).map(compact);
  if (Array.isArray(s.allOf)) n.allOf = (s.allOf as Raw[]).map(compact);
  if (s.not && typeof s.not === 'object') n.not = compact(s.not as Raw);
  if (typeof s['x-kubernetes-list-type'] === 'string') n.listType = s['x-kubernetes-list-type'] as SchemaNode['listType'];
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) n.listMapKeys = s['x-kubernetes-list-map-keys'] as string[];
  if (Array.isArray(s['x-kubernetes-validations']) && (s['x-kubernetes-validations'] as unknown[]).length > 0) {
    throw new Error('x-kubernetes-validations (CEL rules) are not supported by the generated validator yet');
  }
  return intern(n);
}

const table: CompactSchemaTable = { source: 'upstream CustomResourceDefinitions (../shared/reference/crds, Apache-2.0)', nodes, kinds: {} };
for (const file of readdirSync(input).filter((f) => f.endsWith('.yaml')).sort()) {
  for (const d of parseAllDocuments(readFileSync(join(input, file), 'utf8'))) {
    const crd = d.toJS() as Raw;
    if (crd?.kind !== 'CustomResourceDefinition') continue;
    const spec = crd.spec as Raw;
    const group = spec.group as string;
    const names = spec.names as Raw;
    const kind = names.kind as string;
    const scope = spec.scope as 'Namespaced' | 'Cluster';
    for (const v of spec.versions as Raw[]) {
      if (v.served === false) continue;
      const root = compact(((v.schema as Raw).openAPIV3Schema as Raw) ?? {});
      const entry = { root, scope, ...(v.deprecated === true ? { deprecated: true } : {}) };
      table.kinds[`${group}/${v.name as string}/${kind}`] = entry;
      const alias = SAME_SCHEMA[kind];
      if (alias) table.kinds[`${group}/${v.name as string}/${alias.kind}`] = { ...entry, scope: alias.scope };
    }
  }
}
const json = JSON.stringify(table);
writeFileSync(output, json + '\n');
console.log(`${output}: ${Object.keys(table.kinds).length} kinds, ${nodes.length} schema nodes, ${json.length} bytes`);
