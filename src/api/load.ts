/**
 * The library's reading step: policy documents given as YAML or JSON text, or as objects, read exactly as the
 * command line reads a file (the same size cap, control-character refusal, YAML 1.1 conversion, `List`
 * expansion, admission checks and dialects), with no file system: it runs in a browser.
 */
import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { SourceRegistry } from '../diagnostics/render.js';
import type { DialectSet } from '../dialects/registry.js';
import type { JsonObject, JsonValue } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import { loadSourceText } from '../io/load-text.js';
import { expandLists } from '../io/lists.js';
import type { SourceDoc } from '../io/source.js';
import { toYaml } from '../io/yaml-dump.js';
import { parsePolicyDocs } from '../pipeline.js';
import { pushAll } from '../util/arrays.js';
import type { ValidateMode } from '../validate/admit.js';

/**
 * One input: YAML or JSON text (any number of documents), a named text (`name` is the file diagnostics point
 * at), or one document as an object (a `List` stands for its items, as kubectl reads it).
 */
export type Input = string | { name: string; text: string } | JsonObject;

export interface LoadOptions {
  /** How the cluster's admission checks treat a policy (default `strict`: a policy the cluster refuses is not read). */
  validate?: ValidateMode;
  /** cli.kyverno.io Values for Kyverno policies (`transmute apply -f`). */
  values?: JsonObject;
  /** The dialects that read the documents (default: every built-in dialect). */
  dialects?: DialectSet;
  /** Largest text, in UTF-8 bytes (default 64 MiB, as the command line). */
  maxBytes?: number;
}

export interface LoadedDocuments {
  documents: SourceDoc[];
  diagnostics: Diagnostic[];
  /** The texts read, for `renderDiagnostic(d, sources)` with the line and a caret. */
  sources: SourceRegistry;
}

export interface LoadedPolicies extends LoadedDocuments {
  policies: Policy[];
  /** False when a diagnostic is an error (something was not read). */
  ok: boolean;
}

function isNamedText(input: Input): input is { name: string; text: string } {
  const v = input as { name?: unknown; text?: unknown };
  return typeof input === 'object' && typeof v.name === 'string' && typeof v.text === 'string' && Object.keys(input).length === 2;
}

/** Documents of the inputs, in order; an unnamed text is `<input N>`, an object `<object N>` (N from 1). */
export function loadDocuments(input: Input | readonly Input[], opts: Pick<LoadOptions, 'maxBytes'> = {}): LoadedDocuments {
  const inputs: readonly Input[] = Array.isArray(input) ? input : [input as Input];
  const sources = new SourceRegistry();
  const documents: SourceDoc[] = [];
  const diagnostics: Diagnostic[] = [];
  inputs.forEach((item, i) => {
    const [name, text] =
      typeof item === 'string' ? [`<input ${i + 1}>`, item] : isNamedText(item) ? [item.name, item.text] : [`<object ${i + 1}>`, toYaml(item as JsonValue)];
    const r = loadSourceText(name, text, { sources, requireMapping: true, ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}) });
    pushAll(diagnostics, r.diagnostics);
    pushAll(documents, r.docs);
  });
  return { documents: expandLists(documents), diagnostics, sources };
}

/** The policies of the inputs, parsed by the dialect of each document after the cluster's admission checks. */
export function loadPolicies(input: Input | readonly Input[], opts: LoadOptions = {}): LoadedPolicies {
  const loaded = loadDocuments(input, opts);
  const parsed = parsePolicyDocs(loaded.documents, {
    ...(opts.validate ? { mode: opts.validate } : {}),
    ...(opts.values ? { values: opts.values } : {}),
    ...(opts.dialects ? { dialects: opts.dialects } : {}),
  });
  const diagnostics = [...loaded.diagnostics, ...parsed.diagnostics];
  return { ...loaded, policies: parsed.policies, diagnostics, ok: !hasErrors(diagnostics) };
}
