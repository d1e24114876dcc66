/**
 * OpenAPI v3 schemas → structured-merge schema, with the rules of kube-openapi pkg/schemaconv
 * (openapi.go ToSchemaFromOpenAPI, smd.go convertPrimitive / getListElementRelationship /
 * getMapElementRelationship), which kube-apiserver runs on `/openapi/v3/apis/<g>/<v>` components through
 * managedfields.NewTypeConverter(schemas, preserveUnknownFields=false) to type MAP apply configurations:
 *
 * - list: `x-kubernetes-list-type` atomic | set | map (+ `x-kubernetes-list-map-keys`); else the legacy
 *   `x-kubernetes-patch-strategy` merge / merge,retainKeys (+ `x-kubernetes-patch-merge-key`, none = set),
 *   retainKeys alone = atomic; no extension = atomic.
 * - map/struct: `x-kubernetes-map-type` atomic | granular, unset = granular; on a `$ref` it overrides the
 *   referred type's relationship.
 * - unknown keys: `additionalProperties` schema = typed map; `true`, no properties, or
 *   `x-kubernetes-preserve-unknown-fields: true` (inherited by inline descendants) = deduced; otherwise a
 *   closed struct.
 * - scalars: integer/number numeric, boolean, string (format "" or byte) string, any other string format
 *   untyped; no `type` = untyped scalar, list and map. Quantity and RawExtension are untyped scalars.
 * - `default` of a property is carried (it completes a map-list key an item omits).
 *
 * Types the models refer to but do not define (ObjectMeta in a trimmed document) are borrowed from a
 * fallback schema, the built-in table by default; upstream leaves such references dangling.
 */
import { diagnostic, fail, ok, type Diagnostic, type Result } from '../../../diagnostics/index.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../../io/source.js';
import { builtinSchema } from '../builtin-schema.js';
import { DEDUCED_SCHEMA, EMPTY_TYPE_REF, makeListType, makeMapType, Schema, UNTYPED_ATOMIC, UNTYPED_DEDUCED, type Atom, type ElementRelationship, type ListType, type MapType, type StructField, type TypeRef } from '../schema.js';
import { borrowTypes, referencedNames } from './closure.js';
import { KindSchemaTable, type KindSchema } from './kinds.js';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

const UNTYPED_REF: TypeRef = Object.freeze({ namedType: UNTYPED_ATOMIC });
const DEDUCED_REF: TypeRef = Object.freeze({ namedType: UNTYPED_DEDUCED });

export interface ConvertOptions {
  /** The document the models come from, to give diagnostics a span. */
  source?: SourceDoc;
  /** Where the models' map sits in `source` (e.g. `['components', 'schemas']`). */
  basePath?: YamlPath;
  /** NewTypeConverter's flag: every struct accepts unknown fields. MAP's type converter passes false. */
  preserveUnknownFields?: boolean;
  /** Where referenced but undefined types come from; default the built-in table, `null` for none. */
  fallback?: Schema | null;
}

/** A converted type set: the schema and the names of the types converted from the models (in order). */
export interface ConvertedModels {
  schema: Schema;
  names: string[];
}

interface Issue {
  message: string;
  /** The model the problem is in, and where inside the model's schema. */
  model: string;
  path: YamlPath;
}

interface Scope {
  model: string;
  /** The model being converted, "inlined in <parent>" inside inline schemas (upstream's error prefix). */
  name: string;
  /** Where this schema sits inside the model's schema. */
  path: YamlPath;
  preserveUnknownFields: boolean;
}

/** Reads an own member only: `constructor` or `__proto__` are property names like any other. */
function member(o: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(o, key) ? o[key] : undefined;
}

/** Go's `%v` of a decoded JSON value, for messages. */
function goV(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
}

class Converter {
  readonly issues: Issue[] = [];

  private report(scope: Scope, at: YamlPath, message: string): void {
    this.issues.push({ message: `${scope.name}: ${message}`, model: scope.model, path: [...scope.path, ...at] });
  }

  /** One entry of the models' map; undefined for a top-level reference, which upstream skips. */
  model(name: string, s: JsonValue, preserveUnknownFields: boolean): Atom | undefined {
    const scope: Scope = { model: name, name, path: [], preserveUnknownFields };
    if (!isJsonObject(s)) {
      this.report(scope, [], 'expected a schema (a mapping)');
      return undefined;
    }
    if (this.refOf(s, scope) !== '') return undefined;
    // openapi.go: "Hardcode both quantity and raw extension to use untyped schemas".
    if (name === QUANTITY || name === RAW_EXTENSION) return { scalar: 'untyped' };
    return this.visit(s, scope);
  }

  /** visitSpec: a schema opts itself and its inline descendants into preserve-unknown-fields. */
  private visit(s: JsonObject, scope: Scope): Atom {
    if (member(s, 'x-kubernetes-preserve-unknown-fields') === true && !scope.preserveUnknownFields) {
      scope = { ...scope, preserveUnknownFields: true };
    }
    return this.parse(s, scope);
  }

  private parse(s: JsonObject, scope: Scope): Atom {
    const typ = this.typeOf(s, scope);
    switch (typ) {
      case '':
        // "If no type is specified, it is equivalent to accepting any type."
        return { scalar: 'untyped', list: this.list(s, scope, typ), map: this.object(s, scope) };
      case 'object':
        return { map: this.object(s, scope) };
      case 'array':
        return { list: this.list(s, scope, typ) };
      case 'integer':
      case 'number':
      case 'boolean':
      case 'string':
        return primitive(typ, this.formatOf(s, scope));
      default:
        this.report(scope, ['type'], `unrecognized type: '${typ}'`);
        return { scalar: 'untyped' };
    }
  }

  /** The first of `type` (a string, or a list of strings in older documents); "" when absent. */
  private typeOf(s: JsonObject, scope: Scope): string {
    const t = member(s, 'type');
    if (t === undefined || t === null) return '';
    if (typeof t === 'string') return t;
    if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return (t[0] as string | undefined) ?? '';
    this.report(scope, ['type'], `type: expected a string, got ${goV(t)}`);
    return '';
  }

  private formatOf(s: JsonObject, scope: Scope): string {
    const f = member(s, 'format');
    if (f === undefined || f === null) return '';
    if (typeof f === 'string') return f;
    this.report(scope, ['format'], `format: expected a string, got ${goV(f)}`);
    return '';
  }

  /** The `$ref` of a schema, or of its only `allOf` member (how v3 documents attach a description to a ref). */
  private refOf(s: JsonObject, scope: Scope): string {
    const ref = member(s, '$ref');
    if (ref !== undefined && ref !== null) {
      if (typeof ref !== 'string') {
        this.report(scope, ['$ref'], `$ref: expected a string, got ${goV(ref)}`);
        return '';
      }
      if (ref !== '') return ref;
    }
    const allOf = member(s, 'allOf');
    if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0])) {
      const inner = member(allOf[0], '$ref');
      if (typeof inner === 'string') return inner;
    }
    return '';
  }

  /** makeOpenAPIRef: a named type (by the last segment of its reference) or an inline atom. */
  private ref(s: JsonValue, scope: Scope, at: YamlPath): TypeRef {
    if (!isJsonObject(s)) {
      this.report(scope, at, 'expected a schema (a mapping)');
      return EMPTY_TYPE_REF;
    }
    const refString = this.refOf(s, { ...scope, path: [...scope.path, ...at] });
    const name = refString.slice(refString.lastIndexOf('/') + 1);
    if (name !== '') {
      const er = this.mapRelationship(s, scope, at);
      return er === undefined ? { namedType: name } : { namedType: name, elementRelationship: er };
    }
    const inner: Scope = { ...scope, name: `inlined in ${scope.name}`, path: [...scope.path, ...at] };
    return { inlined: this.visit(s, inner) };
  }

  private object(s: JsonObject, scope: Scope): MapType {
    const fields: StructField[] = [];
    const props = member(s, 'properties');
    let propertyCount = 0;
    if (props !== undefined && props !== null) {
      if (!isJsonObject(props)) this.report(scope, ['properties'], 'properties: expected a mapping');
      else {
        for (const name of Object.keys(props)) {
          propertyCount++;
          const p = props[name]!;
          const field: { name: string; type: TypeRef; default?: JsonValue } = { name, type: this.ref(p, scope, ['properties', name]) };
          // Go decodes `default: null` as nil, i.e. "no default".
          const def = isJsonObject(p) ? member(p, 'default') : undefined;
          if (def !== undefined && def !== null) field.default = def;
          fields.push(field);
        }
      }
    }
    return makeMapType({ fields, elementType: this.unknownKeys(s, scope, propertyCount), elementRelationship: this.mapRelationship(s, scope, []) });
  }

  /** The element type of keys `properties` does not name (parseObject's elementType). */
  private unknownKeys(s: JsonObject, scope: Scope, propertyCount: number): TypeRef {
    const ap = member(s, 'additionalProperties');
    if (ap === undefined || ap === null) {
      // "an object without properties and without additionalProperties is assumed to be a free-form object."
      return scope.preserveUnknownFields || propertyCount === 0 ? DEDUCED_REF : EMPTY_TYPE_REF;
    }
    if (ap === true) return DEDUCED_REF;
    if (ap === false) return EMPTY_TYPE_REF;
    return this.ref(ap, scope, ['additionalProperties']);
  }

  private list(s: JsonObject, scope: Scope, typ: string): ListType {
    const { relationship, keys } = this.listRelationship(s, scope);
    const items = member(s, 'items');
    let elementType: TypeRef;
    if (items === undefined || items === null) {
      if (typ !== '') this.report(scope, ['items'], '`items` must be specified on arrays');
      // "A list with no items specified is treated as untyped."
      elementType = UNTYPED_REF;
    } else if (!isJsonObject(items)) {
      this.report(scope, ['items'], 'structural schema arrays must have exactly one member subtype');
      elementType = DEDUCED_REF;
    } else {
      elementType = this.ref(items, scope, ['items']);
    }
    return makeListType({ elementType, elementRelationship: relationship, keys });
  }

  private listRelationship(s: JsonObject, scope: Scope): { relationship: ElementRelationship; keys: string[] } {
    if (hasOwn(s, 'x-kubernetes-list-type')) {
      const val = s['x-kubernetes-list-type'];
      const at = ['x-kubernetes-list-type'];
      if (val === 'atomic') return { relationship: 'atomic', keys: [] };
      if (val === 'set') return { relationship: 'associative', keys: [] };
      if (val === 'map') {
        if (!hasOwn(s, 'x-kubernetes-list-map-keys')) {
          this.report(scope, at, 'missing map keys');
          return { relationship: 'associative', keys: [] };
        }
        const keys = s['x-kubernetes-list-map-keys'];
        if (!Array.isArray(keys)) {
          this.report(scope, ['x-kubernetes-list-map-keys'], `uninterpreted map keys: ${goV(keys)}`);
          return { relationship: 'associative', keys: [] };
        }
        // toStringSlice keeps the string members and drops the rest.
        return { relationship: 'associative', keys: keys.filter((k): k is string => typeof k === 'string') };
      }
      this.report(scope, at, `unknown list type ${goV(val)}`);
      return { relationship: 'atomic', keys: [] };
    }
    if (hasOwn(s, 'x-kubernetes-patch-strategy')) {
      const val = s['x-kubernetes-patch-strategy'];
      if (val === 'merge' || val === 'merge,retainKeys') {
        if (!hasOwn(s, 'x-kubernetes-patch-merge-key')) return { relationship: 'associative', keys: [] };
        const key = s['x-kubernetes-patch-merge-key'];
        if (typeof key !== 'string') {
          this.report(scope, ['x-kubernetes-patch-merge-key'], `uninterpreted merge key: ${goV(key)}`);
          return { relationship: 'associative', keys: [] };
        }
        return { relationship: 'associative', keys: [key] };
      }
      if (val === 'retainKeys') return { relationship: 'atomic', keys: [] };
      this.report(scope, ['x-kubernetes-patch-strategy'], `unknown patch strategy ${goV(val)}`);
      return { relationship: 'atomic', keys: [] };
    }
    // "Treat as atomic by default".
    return { relationship: 'atomic', keys: [] };
  }

  private mapRelationship(s: JsonObject, scope: Scope, at: YamlPath): ElementRelationship | undefined {
    if (!hasOwn(s, 'x-kubernetes-map-type')) return undefined;
    const val = s['x-kubernetes-map-type'];
    if (val === 'atomic') return 'atomic';
    if (val === 'granular') return 'separable';
    this.report(scope, [...at, 'x-kubernetes-map-type'], `unknown map type ${goV(val)}`);
    return undefined;
  }
}

/** convertPrimitive. */
function primitive(typ: string, format: string): Atom {
  switch (typ) {
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      // "byte really means []byte and is encoded as a string"; int-or-string, date-time and the rest are untyped.
      return { scalar: format === '' || format === 'byte' ? 'string' : 'untyped' };
    default:
      return { scalar: 'untyped' };
  }
}

/** Where a model's schema sits in the source document. */
type Locate = (model: string) => YamlPath;

function issueDiagnostics(issues: readonly Issue[], source: SourceDoc | undefined, locate: Locate): Diagnostic[] {
  return issues.map((i) =>
    diagnostic('TM2002', { phase: 'parse', message: `OpenAPI schema: ${i.message}`, span: source?.spanOf([...locate(i.model), ...i.path]) }),
  );
}

function defaultFallback(): Schema | undefined {
  const b = builtinSchema();
  return b.ok ? b.value.schema : undefined;
}

/**
 * Converts a map of named OpenAPI schemas (`components.schemas`) into one schema, plus the two untyped
 * types every converted schema carries (addCommonTypes).
 */
export function convertOpenApiModels(models: JsonObject, opts: ConvertOptions = {}): Result<ConvertedModels> {
  const base = opts.basePath ?? [];
  return convertModels(models, opts, (model) => [...base, model]);
}

function convertModels(models: JsonObject, opts: ConvertOptions, locate: Locate): Result<ConvertedModels> {
  const c = new Converter();
  const entries: [string, Atom][] = [];
  for (const name of Object.keys(models)) {
    const atom = c.model(name, models[name]!, opts.preserveUnknownFields ?? false);
    if (atom !== undefined) entries.push([name, atom]);
  }
  if (c.issues.length > 0) return fail(...issueDiagnostics(c.issues, opts.source, locate));

  const defined = new Set(entries.map(([n]) => n));
  defined.add(UNTYPED_ATOMIC).add(UNTYPED_DEDUCED);
  const wanted = new Set<string>();
  for (const [, atom] of entries) referencedNames(atom, wanted);
  const fallback = opts.fallback === null ? undefined : (opts.fallback ?? defaultFallback());
  const { borrowed, missing } = borrowTypes(fallback, wanted, defined);
  const warnings = missing.map((name) =>
    diagnostic('TM2002', {
      phase: 'parse',
      severity: 'warning',
      message: `OpenAPI schema: type ${name} is referenced but not defined; values of it cannot be typed ("no type found matching")`,
      span: opts.source?.spanOf(opts.basePath ?? []),
    }),
  );
  const common: [string, Atom][] = [UNTYPED_ATOMIC, UNTYPED_DEDUCED].map((n) => [n, DEDUCED_SCHEMA.resolve({ namedType: n })!]);
  const schema = new Schema([...entries, ...borrowed, ...common]);
  return ok({ schema, names: entries.map(([n]) => n) }, warnings);
}

/** Converts one schema (a CRD's `openAPIV3Schema`, a hand-written schema) as the model named `name`. */
export function convertOpenApiSchema(s: JsonValue, opts: ConvertOptions & { name?: string } = {}): Result<KindSchema> {
  const name = opts.name ?? 'root';
  const base = opts.basePath ?? [];
  // The models' map is synthetic: the schema itself sits at basePath.
  const r = convertModels({ [name]: s }, opts, () => base);
  if (!r.ok) return r;
  if (!r.value.names.includes(name)) {
    return fail(diagnostic('TM2002', { phase: 'parse', message: 'OpenAPI schema: a top-level $ref is not a schema to convert', span: opts.source?.spanOf(base) }));
  }
  return ok({ schema: r.value.schema, typeRef: { namedType: name } }, r.diagnostics);
}

/** The kinds of an OpenAPI v3 document (`/openapi/v3/apis/<g>/<v>`), found by `x-kubernetes-group-version-kind`. */
export function convertOpenApiDocument(doc: JsonValue, opts: Omit<ConvertOptions, 'basePath'> = {}): Result<{ schema: Schema; kinds: KindSchemaTable }> {
  const components = isJsonObject(doc) ? member(doc, 'components') : undefined;
  const models = isJsonObject(components) ? member(components, 'schemas') : undefined;
  if (!isJsonObject(models)) {
    return fail(
      diagnostic('TM2005', {
        phase: 'parse',
        message: 'OpenAPI v3 document: expected components.schemas (the document of /openapi/v3/apis/<group>/<version>)',
        span: opts.source?.spanOf(isJsonObject(components) ? ['components'] : []),
      }),
    );
  }
  const basePath = ['components', 'schemas'];
  const r = convertOpenApiModels(models, { ...opts, basePath });
  if (!r.ok) return r;
  const kinds = new KindSchemaTable();
  const diagnostics = [...r.diagnostics];
  for (const name of r.value.names) {
    const gvks = member(models[name] as JsonObject, 'x-kubernetes-group-version-kind');
    if (gvks === undefined) continue;
    const list = Array.isArray(gvks) ? gvks : [gvks];
    list.forEach((g, i) => {
      const group = isJsonObject(g) ? member(g, 'group') : undefined;
      const version = isJsonObject(g) ? member(g, 'version') : undefined;
      const kind = isJsonObject(g) ? member(g, 'kind') : undefined;
      if (typeof version !== 'string' || typeof kind !== 'string' || (group !== undefined && typeof group !== 'string')) {
        const at = Array.isArray(gvks) ? [i] : [];
        diagnostics.push(
          diagnostic('TM2002', {
            phase: 'parse',
            message: 'x-kubernetes-group-version-kind: expected {group, version, kind} strings',
            span: opts.source?.spanOf([...basePath, name, 'x-kubernetes-group-version-kind', ...at]),
          }),
        );
        return;
      }
      kinds.set({ group: group ?? '', version, kind }, { schema: r.value.schema, typeRef: { namedType: name } });
    });
  }
  if (diagnostics.some((d) => d.severity === 'error')) return fail(...diagnostics);
  return ok({ schema: r.value.schema, kinds }, diagnostics);
}
