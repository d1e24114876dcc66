/**
 * A policy document checked as a cluster admits it, in kube-apiserver's order: decoding with strict field
 * validation (unknown fields, and for built-in kinds JSON types), then the custom resource's schema and
 * ObjectMeta validation, then the engine's own admission webhook (the dialect's `validate` hook). Each stage
 * runs only when the previous one passed, as a request that fails one never reaches the next.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { SourceDoc, YamlPath } from '../io/source.js';
import { isJsonObject, type JsonValue } from '../ir/json.js';
import { fieldPath, goQuote, type FieldError } from './field-error.js';
import { OBJECT_META_ROOT, OBJECT_META_TABLE, validateObjectMeta } from './object-meta.js';
import { schemaFor, servedVersions, type ResolvedSchema } from './schema-table.js';
import { schemaErrors, unknownFields, jsonTypeName, type SchemaRef, type TypeErrorText } from './structural.js';

/** Go's json names for a decoded value's type (encoding/json UnmarshalTypeError). */
const GO_JSON_TYPE: Record<string, string> = { integer: 'number', number: 'number', string: 'string', boolean: 'bool', object: 'object', array: 'array', null: 'null' };
const GO_TYPE: Record<string, string> = { object: 'struct', array: 'slice', string: 'string', integer: 'int', number: 'float64', boolean: 'bool' };

/** encoding/json's error for a built-in kind's field of the wrong type, as strict decoding returns it. */
const decodeTypeError: TypeErrorText = (path, value, expected) =>
  `json: cannot unmarshal ${GO_JSON_TYPE[jsonTypeName(value)]} into Go struct field ${fieldPath(path)} of type ${GO_TYPE[expected] ?? expected}`;

const META_REF: SchemaRef = { table: OBJECT_META_TABLE, node: OBJECT_META_ROOT };
const metadataOverride = (path: YamlPath): SchemaRef | undefined => (path.length === 1 && path[0] === 'metadata' ? META_REF : undefined);

function toDiagnostics(doc: SourceDoc, errors: readonly FieldError[], code: DiagnosticCode, dialect: string | undefined): Diagnostic[] {
  const spanned = errors.map((e) => ({ e, span: e.at === 'key' ? doc.keySpanOf(e.path) : doc.spanOf(e.path) }));
  // kube-openapi reports in map order; a user reads them in file order.
  spanned.sort((a, b) => a.span.line - b.span.line || a.span.col - b.span.col);
  return spanned.map(({ e, span }) => diagnostic(code, { phase: 'parse', message: e.message, span, ...(dialect ? { dialect } : {}) }));
}

/** The schema of a document's kind, when transmute knows how a cluster would decode it. */
function schemaOfDoc(doc: SourceDoc): ResolvedSchema | undefined {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') return undefined;
  return schemaFor(v.apiVersion, v.kind);
}

/** A kind the API server knows, in a version it does not serve (kubectl: "no matches for kind"). */
function unservedVersion(doc: SourceDoc, dialect: string | undefined): Diagnostic[] {
  const v = doc.value;
  if (!isJsonObject(v) || typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') return [];
  const slash = v.apiVersion.indexOf('/');
  const served = servedVersions(slash < 0 ? '' : v.apiVersion.slice(0, slash), v.kind);
  if (served.length === 0) return [];
  const message = `no matches for kind ${goQuote(v.kind)} in version ${goQuote(v.apiVersion)} (served: ${served.join(', ')})`;
  return [diagnostic('TM2001', { phase: 'parse', message, span: doc.spanOf(['apiVersion']), ...(dialect ? { dialect } : {}) })];
}

/** Strict decoding and schema validation of one document; [] for kinds without a known schema. */
export function structuralDiagnostics(doc: SourceDoc, dialect?: string): Diagnostic[] {
  const schema = schemaOfDoc(doc);
  if (!schema) return unservedVersion(doc, dialect);
  const value = doc.value as JsonValue;
  const root: SchemaRef = { table: schema.table, node: schema.kind.root };
  const decode: FieldError[] = [];
  unknownFields(value, root, [], decode, metadataOverride);
  const meta = isJsonObject(value) ? value.metadata : undefined;
  if (meta !== undefined && meta !== null) schemaErrors(meta, META_REF, ['metadata'], decode, decodeTypeError);
  if (!schema.custom) schemaErrors(value, root, [], decode, decodeTypeError);
  if (decode.length > 0) return toDiagnostics(doc, decode, 'TM2008', dialect);

  const invalid: FieldError[] = [];
  if (schema.custom) schemaErrors(value, root, [], invalid);
  invalid.push(...validateObjectMeta(meta, schema.kind.scope === 'Namespaced'));
  return toDiagnostics(doc, invalid, 'TM2009', dialect);
}

/** The whole admission of one document: the structural stages, then the engine's webhook checks. */
export function admissionDiagnostics(doc: SourceDoc, engine?: (doc: SourceDoc) => Diagnostic[], dialect?: string): Diagnostic[] {
  const structural = structuralDiagnostics(doc, dialect);
  if (structural.some((d) => d.severity === 'error')) return structural;
  return [...structural, ...(engine ? engine(doc) : [])];
}
