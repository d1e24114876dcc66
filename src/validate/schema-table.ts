/**
 * The compact structural schemas of the custom resources transmute reads (generated into crd-schemas.json by
 * scripts/gen-crd-schemas.ts from the upstream CRDs) and of the built-in kinds it reads (transcribed in
 * builtin-schemas.ts). A node refers to its children by index into `nodes`.
 */
import generated from './crd-schemas.json' with { type: 'json' };
import type { CompactSchemaTable, KindSchema } from './schema-node.js';
import { BUILTIN_SCHEMAS } from './builtin-schemas.js';

export { NodeInterner, type CompactSchemaTable, type KindSchema, type SchemaNode } from './schema-node.js';

/** A schema resolved for one kind: its table and root, and whether kube-apiserver serves it as a custom resource. */
export interface ResolvedSchema {
  table: CompactSchemaTable;
  kind: KindSchema;
  /** Custom resources are validated by the CRD's OpenAPI schema; built-in kinds by decoding into Go types. */
  custom: boolean;
}

const CRDS = generated as CompactSchemaTable;

export function schemaFor(apiVersion: string, kind: string): ResolvedSchema | undefined {
  const key = `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}/${kind}`;
  const crd = CRDS.kinds[key];
  if (crd) return { table: CRDS, kind: crd, custom: true };
  const builtin = BUILTIN_SCHEMAS.kinds[key];
  if (builtin) return { table: BUILTIN_SCHEMAS, kind: builtin, custom: false };
  return undefined;
}

/** The API versions a kind is served in (for "no matches for kind ... in version ..."). */
export function servedVersions(group: string, kind: string): string[] {
  const out: string[] = [];
  for (const t of [CRDS, BUILTIN_SCHEMAS]) {
    for (const key of Object.keys(t.kinds)) {
      const [g, v, k] = key.split('/');
      if (g === group && k === kind) out.push(v!);
    }
  }
  return out;
}
