/**
 * The public API of transmute (`transmute-policies`): load policies from strings or objects, apply them,
 * translate them, read their diagnostics, build the runtime they run with. Imports no Node built-in, so it
 * bundles for a browser; the file-reading half (policy files, `test`) is `transmute-policies/node` (node.ts).
 * test/index.test.ts pins the export list.
 */
export { loadDocuments, loadPolicies } from './api/load.js';
export type { Input, LoadOptions, LoadedDocuments, LoadedPolicies } from './api/load.js';
export { parsePolicyDocs as parse } from './pipeline.js';
export type { ParsePolicyOptions } from './pipeline.js';
export { translate } from './api/translate.js';
export type { TranslateOptions } from './api/translate.js';
export { apply } from './interpreter/index.js';
export type { AdmissionRequest, ApplyEnv, ApplyResult, TraceEvent, Patch6902, ExternalData } from './interpreter/index.js';
export { createRuntime, deriveRuntime } from './runtime/index.js';
export type { Runtime, RuntimeOptions, SchemaEnvironment, RequestExtras } from './runtime/index.js';
export { hasErrors } from './diagnostics/diagnostic.js';
export type { Diagnostic, Phase, UnsupportedClass } from './diagnostics/diagnostic.js';
export type { DiagnosticCode, Severity } from './diagnostics/codes.js';
export { diagnosticsToJson, renderDiagnostic, renderDiagnosticLine, SourceRegistry } from './diagnostics/render.js';
export type { Span } from './diagnostics/span.js';
export { optimize } from './optimizer/index.js';
export { printPolicies } from './ir/print.js';
export { BUILT_IN_DIALECTS, dialectByName, dialects, dialectSet, withDialects } from './dialects/registry.js';
export type { DialectSet } from './dialects/registry.js';
export type { Dialect, GenerateOptions, GenerateResult, MutationAnnotations, ParseOptions, ParseResult } from './dialects/dialect.js';
export type { Policy, Rule, Op, Guard, Value } from './ir/nodes.js';
export type { JsonObject, JsonValue } from './ir/json.js';
export type { SourceDoc } from './io/source.js';
