/**
 * Loads an SMD schema from its YAML/JSON form (`types: [{name, scalar|list|map}]`, the format of
 * client-go's applyconfigurations/internal schemaYAML and of structured-merge-diff's tests) into a Schema.
 * Unknown keys (e.g. `unions`) are ignored: the merge does not use them.
 */
import { parse as parseYaml } from 'yaml';
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../../diagnostics/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { makeListType, makeMapType, Schema, type Atom, type ElementRelationship, type ListType, type MapType, type StructField, type TypeRef } from './schema.js';

const RELATIONSHIPS: ReadonlySet<string> = new Set(['associative', 'atomic', 'separable']);

class SchemaShapeError extends Error {}

/** Builds a Schema from an already-parsed `{types: [...]}` document. */
export function loadSmdSchema(doc: unknown, file?: string): Result<Schema> {
  try {
    if (!isJsonObject(doc as JsonValue)) throw new SchemaShapeError('schema: expected a mapping with a `types` list');
    const types = (doc as JsonObject)['types'];
    if (!Array.isArray(types)) throw new SchemaShapeError('schema.types: expected a list');
    const entries: [string, Atom][] = [];
    const seen = new Set<string>();
    types.forEach((t, i) => {
      const where = `types[${i}]`;
      const obj = expectObject(t, where);
      const name = obj['name'];
      if (typeof name !== 'string' || name === '') throw new SchemaShapeError(`${where}.name: expected a non-empty string`);
      if (seen.has(name)) throw new SchemaShapeError(`${where}.name: duplicate type name "${name}"`);
      seen.add(name);
      entries.push([name, readAtom(obj, `${where}`)]);
    });
    return ok(new Schema(entries));
  } catch (e) {
    if (e instanceof SchemaShapeError) return fail(shapeDiagnostic(e.message, file));
    throw e;
  }
}

/** Parses SMD schema YAML text (or JSON) and builds the Schema. */
export function parseSmdSchemaYaml(text: string, file?: string): Result<Schema> {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    const d: Diagnostic = diagnostic('TM1001', {
      phase: 'parse',
      message: `SMD schema: ${(e as Error).message}`,
      span: file === undefined ? undefined : { file, line: 1, col: 1, endLine: 1, endCol: 1 },
    });
    return fail(d);
  }
  return loadSmdSchema(doc, file);
}

function shapeDiagnostic(message: string, file: string | undefined): Diagnostic {
  return diagnostic('TM2002', {
    phase: 'parse',
    message: `SMD schema: ${message}`,
    span: file === undefined ? undefined : { file, line: 1, col: 1, endLine: 1, endCol: 1 },
  });
}

function expectObject(v: unknown, where: string): JsonObject {
  if (!isJsonObject(v as JsonValue)) throw new SchemaShapeError(`${where}: expected a mapping`);
  return v as JsonObject;
}

function readAtom(obj: JsonObject, where: string): Atom {
  const atom: { scalar?: string; list?: ListType; map?: MapType } = {};
  const scalar = obj['scalar'];
  if (scalar !== undefined && scalar !== null) {
    if (typeof scalar !== 'string') throw new SchemaShapeError(`${where}.scalar: expected a string`);
    atom.scalar = scalar;
  }
  const list = obj['list'];
  if (list !== undefined && list !== null) atom.list = readList(expectObject(list, `${where}.list`), `${where}.list`);
  const map = obj['map'];
  if (map !== undefined && map !== null) atom.map = readMap(expectObject(map, `${where}.map`), `${where}.map`);
  return atom;
}

function readRelationship(v: JsonValue | undefined, where: string): ElementRelationship | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !RELATIONSHIPS.has(v)) {
    throw new SchemaShapeError(`${where}: expected one of associative, atomic, separable`);
  }
  return v as ElementRelationship;
}

function readTypeRef(v: JsonValue | undefined, where: string): TypeRef {
  if (v === undefined || v === null) return {};
  const obj = expectObject(v, where);
  const ref: { namedType?: string; inlined?: Atom; elementRelationship?: ElementRelationship } = {};
  const named = obj['namedType'];
  if (named !== undefined && named !== null) {
    if (typeof named !== 'string') throw new SchemaShapeError(`${where}.namedType: expected a string`);
    ref.namedType = named;
  }
  const inlined = readAtom(obj, where);
  if (inlined.scalar !== undefined || inlined.list !== undefined || inlined.map !== undefined) ref.inlined = inlined;
  const er = readRelationship(obj['elementRelationship'], `${where}.elementRelationship`);
  if (er !== undefined) ref.elementRelationship = er;
  return ref;
}

function readList(obj: JsonObject, where: string): ListType {
  const keysRaw = obj['keys'];
  let keys: string[] = [];
  if (keysRaw !== undefined && keysRaw !== null) {
    if (!Array.isArray(keysRaw) || !keysRaw.every((k) => typeof k === 'string')) {
      throw new SchemaShapeError(`${where}.keys: expected a list of strings`);
    }
    keys = keysRaw as string[];
  }
  return makeListType({
    elementType: readTypeRef(obj['elementType'], `${where}.elementType`),
    elementRelationship: readRelationship(obj['elementRelationship'], `${where}.elementRelationship`),
    keys,
  });
}

function readMap(obj: JsonObject, where: string): MapType {
  const fieldsRaw = obj['fields'];
  const fields: StructField[] = [];
  if (fieldsRaw !== undefined && fieldsRaw !== null) {
    if (!Array.isArray(fieldsRaw)) throw new SchemaShapeError(`${where}.fields: expected a list`);
    fieldsRaw.forEach((f, i) => {
      const fw = `${where}.fields[${i}]`;
      const fo = expectObject(f, fw);
      const name = fo['name'];
      if (typeof name !== 'string') throw new SchemaShapeError(`${fw}.name: expected a string`);
      const field: { name: string; type: TypeRef; default?: JsonValue } = { name, type: readTypeRef(fo['type'], `${fw}.type`) };
      // Go decodes `default: null` as nil, i.e. "no default".
      const def = fo['default'];
      if (def !== undefined && def !== null) field.default = def;
      fields.push(field);
    });
  }
  return makeMapType({
    fields,
    elementType: readTypeRef(obj['elementType'], `${where}.elementType`),
    elementRelationship: readRelationship(obj['elementRelationship'], `${where}.elementRelationship`),
  });
}
