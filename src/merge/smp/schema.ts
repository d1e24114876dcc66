/**
 * The schema facts kyaml's merge walker consults (kyaml/openapi ResourceSchema: SchemaForResourceType, Field,
 * Elements, PatchStrategyAndKeyList), read from our generated table merge-keys.json (scripts/gen-smp-keys.ts).
 *
 * A schema is `null` where kyaml has none (unknown kinds such as CRDs, kinds newer than Kubernetes 1.21.2):
 * there every list is replaced. `KNOWN` stands for a known type with no merge list below it; the table only
 * spells out the fields that lead to a merge list.
 */
import table from './merge-keys.json' with { type: 'json' };

export interface SmpSchema {
  /** Fields that lead to merge lists; any other field of a known type is `KNOWN`. */
  readonly fields?: ReadonlyMap<string, SmpSchema>;
  /** The value schema of a map field (OpenAPI additionalProperties). */
  readonly values?: SmpSchema;
  /** Present on a list whose patch strategy contains `merge`: its merge keys ([] = a set of primitives). */
  readonly merge?: readonly string[];
  /** The element schema of a merge list. */
  readonly items?: SmpSchema;
}

export type SchemaRef = SmpSchema | null;

export const KNOWN: SmpSchema = Object.freeze({});

type FieldEntry = string | { merge: string[]; items?: string } | { values: string };
interface Table {
  kinds: Record<string, string>;
  types: Record<string, Record<string, FieldEntry>>;
}

const data = table as unknown as Table;
const built = new Map<string, SmpSchema>();

function typeSchema(id: string): SmpSchema {
  const hit = built.get(id);
  if (hit) return hit;
  const fields = new Map<string, SmpSchema>();
  const schema: SmpSchema = { fields };
  built.set(id, schema); // before the fields: recursive types terminate
  for (const [name, entry] of Object.entries(data.types[id] ?? {})) fields.set(name, entrySchema(entry));
  return schema;
}

function entrySchema(entry: FieldEntry): SmpSchema {
  if (typeof entry === 'string') return typeSchema(entry);
  if ('values' in entry) return { values: typeSchema(entry.values) };
  return entry.items ? { merge: entry.merge, items: typeSchema(entry.items) } : { merge: entry.merge, items: KNOWN };
}

/** kyaml openapi.SchemaForResourceType: exact apiVersion and kind, as kyaml's embedded 1.21.2 OpenAPI knows them. */
export function schemaForResourceType(apiVersion: string, kind: string): SmpSchema | null {
  const id = data.kinds[`${apiVersion}/${kind}`];
  return id === undefined ? null : typeSchema(id);
}

/** ResourceSchema.Field: a known type's field is known even when no merge list lies below it. */
export function fieldSchema(schema: SchemaRef, name: string): SchemaRef {
  if (schema === null) return null;
  return schema.fields?.get(name) ?? schema.values ?? KNOWN;
}

/** Whether a field of a known type can hold a merge list (dest-only fields elsewhere are left untouched). */
export function fieldMayHoldMergeList(schema: SchemaRef, name: string): boolean {
  return schema !== null && (schema.fields?.has(name) === true || schema.values !== undefined);
}

/** ResourceSchema.Elements of a list. */
export function elementSchema(schema: SchemaRef): SchemaRef {
  return schema === null ? null : (schema.items ?? KNOWN);
}

/** The apiVersion/kind pairs the table knows (for tests and diagnostics). */
export function knownResourceTypes(): string[] {
  return Object.keys(data.kinds);
}
