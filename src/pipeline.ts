/**
 * The steps every command shares: read inputs, hand each document to the dialect that recognizes it, parse,
 * optimize, translate. Each step returns values and diagnostics; nothing here prints or exits.
 */
import { diagnostic, hasErrors, type Diagnostic } from './diagnostics/diagnostic.js';
import type { Dialect, GenerateOptions, GenerateResult } from './dialects/dialect.js';
import { BUILT_IN_DIALECTS, type DialectSet } from './dialects/registry.js';
import { isJsonObject, type JsonObject } from './ir/json.js';
import type { Policy } from './ir/nodes.js';
import type { SourceDoc } from './io/source.js';
import { optimize } from './optimizer/index.js';
import { translateMutateExistingRules, type ExistingGeneration } from './dialects/kyverno-mpol/generate-existing.js';
import { withoutRewritten } from './dialects/kyverno-mpol/existing-passthrough.js';
import { toYamlDocuments } from './io/yaml-dump.js';
import { admitDocs, type AdmitOptions } from './validate/admit.js';
import { refusedGenerated } from './validate/generated.js';
import { loadYamlText } from './io/yaml-load.js';
import { expansionRefusals } from './dialects/gatekeeper/expansion/translate.js';
import { pushAll } from './util/arrays.js';
import type { Runtime } from './runtime/runtime.js';

function describeKind(doc: SourceDoc): string {
  const v = doc.value;
  if (!isJsonObject(v)) return 'a document that is not a mapping';
  const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : '<no apiVersion>';
  const kind = typeof v.kind === 'string' ? v.kind : '<no kind>';
  return `${apiVersion}, Kind=${kind}`;
}

export interface ParsePolicyOptions extends AdmitOptions {
  /** cli.kyverno.io Values (`apply -f/--set`). */
  values?: JsonObject;
  /** The dialects that read the documents (default: the built-in ones). */
  dialects?: DialectSet;
  /** The environment the policies will run in (custom kinds a MAP paramKind resolves against). */
  runtime?: Runtime;
}

/**
 * A CustomResourceDefinition among the policies is cluster state, not a policy: it makes its kind served (a
 * MAP paramKind resolves against it), and the dialects see it as a sibling document.
 */
function isCustomResourceDefinition(doc: SourceDoc): boolean {
  const v = doc.value;
  return isJsonObject(v) && v.kind === 'CustomResourceDefinition' && typeof v.apiVersion === 'string' && v.apiVersion.startsWith('apiextensions.k8s.io/');
}

/**
 * Parses policy documents with the dialects that recognize them; policies keep document order. Each document
 * is first admitted as a cluster would admit it (`validate`, strict by default).
 */
export function parsePolicyDocs(docs: readonly SourceDoc[], opts: ParsePolicyOptions = {}): { policies: Policy[]; diagnostics: Diagnostic[] } {
  const known = opts.dialects ?? BUILT_IN_DIALECTS;
  const diagnostics: Diagnostic[] = [];
  const byDialect = new Map<string, SourceDoc[]>();
  const order = new Map<SourceDoc, number>();
  docs.forEach((d, i) => order.set(d, i));
  for (const doc of docs) {
    const dialect = known.for(doc);
    if (!dialect && isCustomResourceDefinition(doc)) continue;
    if (!dialect) {
      diagnostics.push(
        diagnostic('TM2001', {
          phase: 'parse',
          message: `no dialect reads ${describeKind(doc)} (known: ${known.names().join(', ')})`,
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
    const dialect = known.byName(name)!;
    const { admitted, diagnostics: refusals } = admitDocs(dialect, group, opts);
    pushAll(diagnostics, refusals);
    if (admitted.length === 0) continue;
    // cli.kyverno.io Values (`apply -f/--set`) reach the Kyverno dialects as the test runner passes them.
    const r = dialect.parse(admitted, { siblings: docs, ...(opts.runtime ? { runtime: opts.runtime } : {}), ...(opts.values ? { conformance: { values: opts.values } } : {}) } as Parameters<typeof dialect.parse>[1]);
    pushAll(diagnostics, r.diagnostics);
    pushAll(policies, r.policies);
  }
  return { policies, diagnostics };
}

/** A target dialect: a built-in one by name, or a dialect value (one of a caller's own DialectSet). */
export type Target = string | Dialect;

function targetDialect(to: Target): Dialect | undefined {
  return typeof to === 'string' ? BUILT_IN_DIALECTS.byName(to) : to;
}

const targetName = (to: Target): string => (typeof to === 'string' ? to : to.name);

/** Translates policies into a dialect: optimize, the target's lowerings, then its generator. */
/** What a translation writes besides the policies' meaning: the target API version, deployment flags of the source. */
export type TranslateSettings = Pick<GenerateOptions, 'apiVersion' | 'mutationAnnotations'>;

function settingsOf(s: string | TranslateSettings | undefined): TranslateSettings {
  return typeof s === 'string' ? { apiVersion: s } : (s ?? {});
}

export function translate(policies: readonly Policy[], to: Target, unsupported: 'ignore' | 'warn' | 'error' = 'error', settings?: string | TranslateSettings): GenerateResult {
  const target = targetDialect(to);
  if (!target) {
    return {
      documents: [],
      text: '',
      diagnostics: [diagnostic('TM4004', { phase: 'emit', message: `no dialect named "${targetName(to)}" (known: ${BUILT_IN_DIALECTS.names().join(', ')})` })],
    };
  }
  let lowered = optimize(policies);
  for (const lower of target.lowerings) lowered = lower(lowered);
  const { apiVersion, mutationAnnotations } = settingsOf(settings);
  return target.generate(lowered, { unsupported, ...(apiVersion ? { apiVersion } : {}), ...(mutationAnnotations ? { mutationAnnotations } : {}) });
}

/**
 * `translate` of the documents' policies, plus their Kyverno mutate-existing rules and MutatingPolicies with
 * evaluation.mutateExisting, which the admission IR does not hold (they run in Kyverno's background
 * controller): MutatingPolicies that mutate existing resources for kyverno-mpol, a refusal for the targets
 * that mutate only admission requests.
 */
export function translateDocuments(docs: readonly SourceDoc[], policies: readonly Policy[], to: Target, unsupported: 'ignore' | 'warn' | 'error' = 'error', settings?: string | TranslateSettings): GenerateResult {
  return translateDocumentParts(docs, policies, to, unsupported, settings).result;
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
export function translateDocumentParts(docs: readonly SourceDoc[], policies: readonly Policy[], to: Target, unsupported: 'ignore' | 'warn' | 'error' = 'error', settings?: string | TranslateSettings, admission: AdmitOptions = {}): DocumentsTranslation {
  const translated = translate(policies, to, unsupported, settings);
  const { apiVersion } = settingsOf(settings);
  const generated = { ...translated, diagnostics: [...translated.diagnostics, ...expansionRefusals(docs, targetName(to), unsupported)] };
  const existing = translateMutateExistingRules(docs, targetName(to), { unsupported, ...(apiVersion ? { apiVersion } : {}) });
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
export function admitted(result: GenerateResult, to: Target, opts: AdmitOptions = {}): GenerateResult {
  const target = targetDialect(to);
  if (!target || result.text === '') return result;
  const loaded = loadYamlText(`<generated ${target.name}>`, result.text);
  const refused = loaded.ok ? refusedGenerated(target, loaded.value, opts) : loaded.diagnostics.filter((d) => d.severity === 'error');
  if (refused.length === 0) return result;
  return { documents: [], text: '', diagnostics: [...result.diagnostics, ...refused] };
}

export { hasErrors };
