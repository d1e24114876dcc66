/**
 * The schema facts kyaml's merge walker consults (kyaml/openapi ResourceSchema: SchemaForResourceType, Field,
 * Elements, PatchStrategyAndKeyList), read from our generated table merge-keys.json (scripts/gen-smp-keys.ts).
 *
 * A schema is `null` where kyaml has none (unknown kinds such as CRDs, kinds newer than Kubernetes 1.21.2):
 * there every list is replaced. `KNOWN` stands for a known type with no merge list below it; the table only
 * spells out the fields that lead to a merge list.
 */
import { hasOwn } from '../../ir/json.js';
import table from './merge-keys.json' with { type: 'json' };

export interface SmpSchema {
  /** Fields that lead to merge lists; any other field of a known type is `KNOWN`. */
  readonly fields?: ReadonlyMap<string, SmpSchema>;
  /** `fields` as parallel arrays, for the merge's hot loops (no iterator per visit). */
  readonly fieldNames?: readonly string[];
  readonly fieldSchemas?: readonly SmpSchema[];
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
  const fieldNames: string[] = [];
  const fieldSchemas: SmpSchema[] = [];
  const entries = Object.entries(data.types[id] ?? {});
  const schema: SmpSchema = { fields, fieldNames, fieldSchemas };
  built.set(id, schema); // before the fields: recursive types terminate
  for (const [name, entry] of entries) {
    const sub = entrySchema(entry);
    fields.set(name, sub);
    fieldNames.push(name);
    fieldSchemas.push(sub);
  }
  return schema;
}

function entrySchema(entry: FieldEntry): SmpSchema {
  if (typeof entry === 'string') return typeSchema(entry);
  if ('values' in entry) return { values: typeSchema(entry.values) };
  return entry.items ? { merge: entry.merge, items: typeSchema(entry.items) } : { merge: entry.merge, items: KNOWN };
}

/** kyaml openapi.SchemaForResourceType: exact apiVersion and kind, as kyaml's embedded 1.21.2 OpenAPI knows them. */
export function schemaForResourceType(apiVersion: string, kind: string): SmpSchema | null {
  // Every merge asks for its resource's schema: answer from a map per apiVersion, not a string key per call.
  let byKind = byApiVersion.get(apiVersion);
  if (byKind === undefined) {
    if (byApiVersion.size >= LOOKUP_LIMIT) byApiVersion.clear();
    byApiVersion.set(apiVersion, (byKind = new Map()));
  }
  let hit = byKind.get(kind);
  if (hit === undefined) {
    const id = hasOwn(data.kinds, `${apiVersion}/${kind}`) ? data.kinds[`${apiVersion}/${kind}`] : undefined;
    hit = id === undefined ? null : typeSchema(id);
    if (byKind.size >= LOOKUP_LIMIT) byKind.clear();
    byKind.set(kind, hit);
  }
  return hit;
}

/** Lookups are keyed by the resource's own text, so a stream of odd kinds must not grow the cache forever. */
const LOOKUP_LIMIT = 1000;
const byApiVersion = new Map<string, Map<string, SmpSchema | null>>();

/** ResourceSchema.Field: a known type's field is known even when no merge list lies below it. */
export function fieldSchema(schema: SchemaRef, name: string): SchemaRef {
  if (schema === null) return null;
  return schema.fields?.get(name) ?? schema.values ?? KNOWN;
}

/** Whether a field of a known type can hold a merge list (dest-only fields elsewhere are left untouched). */
export function fieldMayHoldMergeList(schema: SchemaRef, name: string): boolean {
  return schema !== null && (schema.fields?.has(name) === true || schema.values !== undefined);
}

/** Lists at most this long whose elements hold no merge list are checked again rather than remembered (unmemoized). */
export const UNMEMOIZED_LIST_MAX = 16;

/**
 * Whether a merge list's elements can hold no merge list (a Pod's container ports, env, mounts): checking
 * a short one again costs less than remembering it (NormalForms), and nothing below it needs remembering.
 */
export function isLeafMergeList(schema: SmpSchema): boolean {
  const items = schema.items;
  return items === undefined || (items.merge === undefined && items.values === undefined && (items.fieldNames === undefined || items.fieldNames.length === 0));
}

/** ResourceSchema.Elements of a list. */
export function elementSchema(schema: SchemaRef): SchemaRef {
  return schema === null ? null : (schema.items ?? KNOWN);
}

/** The apiVersion/kind pairs the table knows (for tests and diagnostics). */
export function knownResourceTypes(): string[] {
  return Object.keys(data.kinds);
}
