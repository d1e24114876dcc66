/**
 * The steps every command shares: read inputs, hand each document to the dialect that recognizes it, parse,
 * optimize, translate. Each step returns values and diagnostics; nothing here prints or exits.
 */
import { diagnostic, hasErrors, type Diagnostic } from './diagnostics/diagnostic.js';
import type { SourceRegistry } from './diagnostics/render.js';
import type { GenerateResult } from './dialects/dialect.js';
import { dialectByName, dialectFor, dialects } from './dialects/registry.js';
import { isJsonObject, type JsonObject } from './ir/json.js';
import type { Policy } from './ir/nodes.js';
import { loadInputs } from './io/inputs.js';
import { expandLists } from './io/lists.js';
import type { SourceDoc } from './io/source.js';
import { optimize } from './optimizer/index.js';
import { translateMutateExistingRules, type ExistingGeneration } from './dialects/kyverno-mpol/generate-existing.js';
import { withoutRewritten } from './dialects/kyverno-mpol/existing-passthrough.js';
import { toYamlDocuments } from './io/yaml-dump.js';
import { admitDocs, type AdmitOptions } from './validate/admit.js';
import { refusedGenerated } from './validate/generated.js';
import { loadYamlText } from './io/yaml-load.js';

export interface Loaded {
  docs: SourceDoc[];
  sources: SourceRegistry;
  diagnostics: Diagnostic[];
}

export function readInputs(paths: string[], stdin?: () => string): Loaded | { docs?: undefined; diagnostics: Diagnostic[]; sources?: SourceRegistry } {
  const r = loadInputs(paths, stdin ? { stdin } : {});
  if (!r.ok) return { diagnostics: r.diagnostics };
  return { docs: r.value.docs, sources: r.value.sources, diagnostics: r.diagnostics };
}

function describeKind(doc: SourceDoc): string {
  const v = doc.value;
  if (!isJsonObject(v)) return 'a document that is not a mapping';
  const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : '<no apiVersion>';
  const kind = typeof v.kind === 'string' ? v.kind : '<no kind>';
  return `${apiVersion}, Kind=${kind}`;
}

/**
 * Parses policy documents with the dialects that recognize them; policies keep document order. Each document
 * is first admitted as a cluster would admit it (`validate`, strict by default).
 */
export function parsePolicyDocs(docs: readonly SourceDoc[], opts: AdmitOptions = {}): { policies: Policy[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const byDialect = new Map<string, SourceDoc[]>();
  const order = new Map<SourceDoc, number>();
  docs.forEach((d, i) => order.set(d, i));
  for (const doc of docs) {
    const dialect = dialectFor(doc);
    if (!dialect) {
      diagnostics.push(
        diagnostic('TM2001', {
          phase: 'parse',
          message: `no dialect reads ${describeKind(doc)} (known: ${dialects().map((d) => d.name).join(', ')})`,
          span: doc.spanOf(isJsonObject(doc.value) && 'kind' in doc.value ? ['kind'] : []),
        }),
      );
      continue;
    }
    (byDialect.get(dialect.name) ?? byDialect.set(dialect.name, []).get(dialect.name)!).push(doc);
  }
  // Each dialect orders its own policies (Gatekeeper sorts mutators by kind and name); between dialects,
  // the document order decides, by each dialect's first document.
  const policies: Policy[] = [];
  for (const [name, group] of byDialect) {
    const dialect = dialectByName(name)!;
    const { admitted, diagnostics: refusals } = admitDocs(dialect, group, opts);
    diagnostics.push(...refusals);
    if (admitted.length === 0) continue;
    const r = dialect.parse(admitted, { siblings: docs });
    diagnostics.push(...r.diagnostics);
    policies.push(...r.policies);
  }
  return { policies, diagnostics };
}

export function loadPolicies(paths: string[], stdin?: () => string, opts: AdmitOptions = {}): { policies: Policy[]; diagnostics: Diagnostic[]; sources?: SourceRegistry; docs?: SourceDoc[] } {
  const loaded = readInputs(paths, stdin);
  if (!loaded.docs) return { policies: [], diagnostics: loaded.diagnostics };
  // As the CLI reads them (src/cli/inputs.ts): a List of policies stands for its items.
  const docs = expandLists(loaded.docs);
  const parsed = parsePolicyDocs(docs, opts);
  return { policies: parsed.policies, diagnostics: [...loaded.diagnostics, ...parsed.diagnostics], sources: loaded.sources, docs };
}

/** Translates policies into a dialect: optimize, the target's lowerings, then its generator. */
export function translate(policies: readonly Policy[], to: string, unsupported: 'ignore' | 'warn' | 'error' = 'error', apiVersion?: string): GenerateResult {
  const target = dialectByName(to);
  if (!target) {
    return {
      documents: [],
      text: '',
      diagnostics: [diagnostic('TM4004', { phase: 'emit', message: `no dialect named "${to}" (known: ${dialects().map((d) => d.name).join(', ')})` })],
    };
  }
  let lowered = optimize(policies);
  for (const lower of target.lowerings) lowered = lower(lowered);
  return target.generate(lowered, { unsupported, ...(apiVersion ? { apiVersion } : {}) });
}

/**
 * `translate` of the documents' policies, plus their Kyverno mutate-existing rules and MutatingPolicies with
 * evaluation.mutateExisting, which the admission IR does not hold (they run in Kyverno's background
 * controller): MutatingPolicies that mutate existing resources for kyverno-mpol, a refusal for the targets
 * that mutate only admission requests.
 */
export function translateDocuments(docs: readonly SourceDoc[], policies: readonly Policy[], to: string, unsupported: 'ignore' | 'warn' | 'error' = 'error', apiVersion?: string): GenerateResult {
  return translateDocumentParts(docs, policies, to, unsupported, apiVersion).result;
}

/** `translateDocuments`, with the two translations it merged, as they were before the merge and the admission. */
export interface DocumentsTranslation {
  result: GenerateResult;
  /** `translate` of the policies (the admission IR). */
  admission: GenerateResult;
  /** The mutate-existing rules' translation; `rules` is 0 when the documents hold none. */
  existing: ExistingGeneration;
}

/**
 * `translateDocuments` for a caller that reports on each part (the conformance runner: a mutate-existing rule
 * refused decides the case before the admission part does). `admission` narrows the checks of the generated
 * documents for a source its harness never admitted (see `admitted`).
 */
export function translateDocumentParts(docs: readonly SourceDoc[], policies: readonly Policy[], to: string, unsupported: 'ignore' | 'warn' | 'error' = 'error', apiVersion?: string, admission: AdmitOptions = {}): DocumentsTranslation {
  const generated = translate(policies, to, unsupported, apiVersion);
  const existing = translateMutateExistingRules(docs, to, { unsupported, ...(apiVersion ? { apiVersion } : {}) });
  if (existing.rules === 0) return { result: admitted(generated, to, admission), admission: generated, existing };
  // A MutatingPolicy that mutates existing resources is written whole; its admission part is not repeated.
  const documents = [...withoutRewritten(generated.documents, existing.documents), ...existing.documents];
  // The admission part's "nothing to write" no longer holds when the mutate-existing rules wrote something.
  const diagnostics = [...generated.diagnostics.filter((d) => !(d.code === 'TM4005' && existing.documents.length > 0 && d.severity !== 'error')), ...existing.diagnostics];
  const merged = { documents, text: documents.length > 0 ? toYamlDocuments(documents as JsonObject[]) : '', diagnostics };
  return { result: admitted(merged, to, admission), admission: generated, existing };
}

/**
 * A translation checked as the cluster would admit it before anything is written: a generated document the
 * cluster would refuse is a generator bug (TM4006), and then nothing is output. `opts` narrows the checks only
 * for a source that was never admitted itself (refusedGenerated).
 */
export function admitted(result: GenerateResult, to: string, opts: AdmitOptions = {}): GenerateResult {
  const target = dialectByName(to);
  if (!target || result.text === '') return result;
  const loaded = loadYamlText(`<generated ${to}>`, result.text);
  const refused = loaded.ok ? refusedGenerated(target, loaded.value, opts) : loaded.diagnostics.filter((d) => d.severity === 'error');
  if (refused.length === 0) return result;
  return { documents: [], text: '', diagnostics: [...result.diagnostics, ...refused] };
}

export { hasErrors };
