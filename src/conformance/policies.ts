/**
 * From a case's policy documents to IR policies: parse with the case's dialect and, with `--via D`, translate
 * as `transmute translate` does (pipeline.ts: optimize, lowerings, `generate` into D, admission), read the
 * generated YAML back and parse it with D. A translation that reports TM4001 makes the case `unsupported`; it
 * never counts as passed.
 */
import { hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../diagnostics/render.js';
import type { Dialect, GenerateResult, ParseOptions } from '../dialects/dialect.js';
import { BUILT_IN_DIALECTS, dialectByName, type DialectSet } from '../dialects/registry.js';
import type { JsonObject, JsonValue } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import type { SourceDoc } from '../io/source.js';
import type { CaseResult } from './types.js';
import { kindOf } from './kinds.js';
import { loadYamlText } from '../io/yaml-load.js';
import { MAP_CANNOT_MUTATE_EXISTING, translateMutateExistingRules } from '../dialects/kyverno-mpol/generate-existing.js';
import { admitDocs, type AdmitOptions } from '../validate/admit.js';
import { refusedGenerated } from '../validate/generated.js';
import { translateDocumentParts, type TranslateSettings } from '../pipeline.js';

/**
 * Parse options with the case data a dialect may need and the request cannot carry (Gatekeeper `flags`,
 * `externalDataStub`; Kyverno values). Not part of the shared `ParseOptions` contract yet: a dialect that wants
 * it reads `(opts as ConformanceParseOptions).conformance`.
 */
export interface ConformanceParseOptions extends ParseOptions {
  conformance?: JsonObject;
}

export type Prepared =
  /** `docs`: with `--via`, the translated documents the policies were read from; `text`, as translate writes them. */
  | { kind: 'ready'; policies: Policy[]; diagnostics: Diagnostic[]; docs?: SourceDoc[]; text?: string }
  /** The case's own dialect refused the policies (what a validation case may expect). */
  | { kind: 'rejected'; diagnostics: Diagnostic[] }
  /** No dialect, nothing it reads, or a translation that is unsupported or broken: the case ends here. */
  | { kind: 'stop'; result: CaseResult };

export interface PolicyInput {
  id: string;
  dialect: string;
  policyDocs: readonly SourceDoc[];
  siblingDocs: readonly SourceDoc[];
  hints?: JsonObject;
  /** How the case's upstream harness admitted its policies (engine checks only for unit-test harnesses). */
  admission?: AdmitOptions;
  /** Deployment flags of the source engine a translation must carry (Gatekeeper's --mutation-annotations). */
  settings?: TranslateSettings;
}

/**
 * How a case's upstream harness admitted its policies. Kyverno's engine unit tests hand a patch or a rule to
 * the engine directly (no admission at all); Gatekeeper's Go tests hand mutators to Gatekeeper's own
 * validation, never through an API server (only bats-e2e runs a cluster). Everything else was admitted whole.
 */
export function harnessAdmission(c: { format: string; source: string }): AdmitOptions | undefined {
  if (c.format === 'kyverno-unit') return { mode: 'ignore' };
  if (c.format === 'gatekeeper' && c.source !== 'bats-e2e') return { stages: 'engine' };
  return undefined;
}

/** Whether a cluster would admit the case's source policies (always so when its harness admitted them). */
function sourceAdmissible(source: Dialect, input: PolicyInput): boolean {
  if (input.admission === undefined) return true;
  const recognized = input.policyDocs.filter((d) => source.recognizes(d));
  return !hasErrors(admitDocs(source, recognized).diagnostics);
}

/** The dialects a run needs, checked before any case-specific work. */
export function missingDialect(dialect: string, via: string | undefined, dialects: DialectSet = BUILT_IN_DIALECTS): CaseResult | undefined {
  if (dialect === '' || !dialects.byName(dialect)) return { status: 'unsupported', reason: `no dialect: ${dialect || '(none)'}` };
  if (via !== undefined && !dialects.byName(via)) return { status: 'unsupported', reason: `no dialect: ${via}` };
  return undefined;
}

/** `dialects`: those the case's dialect and `via` are looked up in (RunContext.dialects). */
export function preparePolicies(input: PolicyInput, via?: string, admitted?: { documents: number }, dialects: DialectSet = BUILT_IN_DIALECTS): Prepared {
  const missing = missingDialect(input.dialect, via, dialects);
  if (missing) return { kind: 'stop', result: missing };
  const source = dialects.byName(input.dialect)!;
  const parsed = parseWith(source, input.policyDocs, input.siblingDocs, input.hints, input.admission);
  if (parsed.kind !== 'ready' || via === undefined) return parsed;

  const target = dialects.byName(via)!;
  // The cluster must admit what transmute writes: a refusal is a generator bug, so the case fails.
  // An admissible source must give an admissible translation; a source its harness never admitted is
  // judged by that harness's checks only, in either dialect.
  const strict = sourceAdmissible(source, input);
  const checks = strict ? {} : (input.admission ?? {});
  // The pipeline `transmute translate` runs, so `--via` checks what users get: optimize, the target's
  // lowerings and generator, the Kyverno mutate-existing rules (not in the admission IR), then admission.
  const t = translateDocumentParts(input.policyDocs, parsed.policies, target, 'error', input.settings, checks);
  // A mutate-existing rule refused decides first: it is what keeps the case from ever translating.
  const refusal = (t.existing.rules > 0 ? refusalOf(t.existing, via) : undefined) ?? refusalOf(t.admission, via);
  if (refusal) return refusal;
  if (hasErrors(t.result.diagnostics)) return stop('failed', `generated ${via} would not be admitted: ${firstError(t.result.diagnostics)}`);
  const docs = loadYamlText(`${input.id} (as ${via})`, t.result.text);
  if (!docs.ok) return stop('failed', `generated ${via} YAML does not load: ${firstError(docs.diagnostics)}`);
  if (!docs.value.some((d) => target.recognizes(d))) {
    // Nothing written, and the generator said why (the source policies never apply or write nothing, TM4003):
    // the translation is no policy. A generator that writes nothing silently fails the case.
    const generated = t.admission;
    const saidWhy = generated.documents.length === 0 && generated.diagnostics.some((d) => d.code === 'TM4003' || (d.code === 'TM4005' && d.severity === 'warning'));
    if (parsed.policies.length === 0 || saidWhy) return { kind: 'ready', policies: [], diagnostics: t.result.diagnostics, docs: [], text: t.result.text };
    return stop('failed', `translation to ${via} produced no ${via} policy document`);
  }
  if (admitted && strict) admitted.documents += docs.value.filter((d) => target.recognizes(d)).length;
  const reparsed = parseWith(target, docs.value, input.siblingDocs, input.hints, checks);
  if (reparsed.kind === 'rejected') return stop('failed', `generated ${via} does not parse: ${firstError(reparsed.diagnostics)}`);
  return reparsed.kind === 'ready' ? { ...reparsed, docs: docs.value, text: t.result.text } : reparsed;
}

/** A translation's TM4001 makes the case unsupported, with its class; any other error fails it. */
function refusalOf(g: GenerateResult, via: string): Stopped | undefined {
  const unsupported = g.diagnostics.find((d) => d.code === 'TM4001');
  if (unsupported) return halt('unsupported', `translation to ${via}: ${renderDiagnosticLine(unsupported)}`, unsupported.unsupported ?? 'yet');
  if (hasErrors(g.diagnostics)) return halt('failed', `translation to ${via} failed: ${firstError(g.diagnostics)}`);
  return undefined;
}

export { MAP_CANNOT_MUTATE_EXISTING };

/**
 * The Kyverno mutate-existing rules among `docs` translated into `via` (kyverno-mpol/generate-existing.ts):
 * MutatingPolicies for kyverno-mpol, a `cannot` for MAP and Gatekeeper (admission only), a `yet` for the others.
 */
function existingRulesTranslation(docs: readonly SourceDoc[], via: string): { kind: 'ready'; text: string; documents: JsonValue[] } | Stopped {
  const g = translateMutateExistingRules(docs, via, { unsupported: 'error' });
  if (g.rules === 0) return { kind: 'ready', text: '', documents: [] };
  return refusalOf(g, via) ?? { kind: 'ready', text: g.text, documents: g.documents };
}

/** A mutate-existing case's Kyverno policies as MutatingPolicies (its mutate-existing rules), read back. */
export function translateMutateExisting(docs: readonly SourceDoc[], id: string, admitted?: { documents: number }): { kind: 'ready'; docs: SourceDoc[] } | Stopped {
  const t = existingRulesTranslation(docs, 'kyverno-mpol');
  if (t.kind === 'stop') return t;
  if (t.text === '') return halt('unsupported', 'translation to kyverno-mpol: the case has no Kyverno mutate-existing rule', 'yet');
  const loaded = loadYamlText(`${id} (as kyverno-mpol)`, t.text);
  if (!loaded.ok) return halt('failed', `generated kyverno-mpol YAML does not load: ${firstError(loaded.diagnostics)}`);
  const refused = refusedGenerated(dialectByName('kyverno-mpol')!, loaded.value);
  if (refused.length > 0) return halt('failed', `generated kyverno-mpol would not be admitted: ${firstError(refused)}`);
  if (admitted) admitted.documents += loaded.value.length;
  return { kind: 'ready', docs: loaded.value };
}

function parseWith(dialect: Dialect, policyDocs: readonly SourceDoc[], siblingDocs: readonly SourceDoc[], hints: JsonObject | undefined, admission?: AdmitOptions): Prepared {
  const name = dialect.name;
  const recognized = policyDocs.filter((d) => dialect.recognizes(d));
  if (recognized.length === 0) {
    const kinds = [...new Set(policyDocs.map((d) => kindOf(d.value) || '(no kind)'))].join(', ');
    return stop('unsupported', `dialect ${name} reads none of the policy documents (${kinds || 'no documents'})`);
  }
  const siblings = [...policyDocs.filter((d) => !dialect.recognizes(d)), ...siblingDocs];
  // A case of the Kyverno CLI (its loaders say so) has its MutatingAdmissionPolicy params picked as the CLI picks them.
  const opts: ConformanceParseOptions = { siblings, ...(hints ? { conformance: hints } : {}), ...(hints?.['paramResolution'] === 'kyverno-cli' ? { paramResolution: 'kyverno-cli' } : {}) };
  const { admitted, diagnostics: refusals } = admitDocs(dialect, recognized, admission ?? {});
  if (hasErrors(refusals)) return { kind: 'rejected', diagnostics: refusals };
  const result = dialect.parse(admitted, opts);
  if (hasErrors(result.diagnostics)) return { kind: 'rejected', diagnostics: [...refusals, ...result.diagnostics] };
  return { kind: 'ready', policies: result.policies, diagnostics: [...refusals, ...result.diagnostics] };
}

export function firstError(diagnostics: readonly Diagnostic[]): string {
  const d = diagnostics.find((x) => x.severity === 'error') ?? diagnostics[0];
  return d ? renderDiagnosticLine(d) : 'no diagnostic';
}

type Stopped = Extract<Prepared, { kind: 'stop' }>;

function halt(status: CaseResult['status'], reason: string, cls?: CaseResult['class']): Stopped {
  return { kind: 'stop', result: { status, reason, ...(cls ? { class: cls } : {}) } };
}

function stop(status: CaseResult['status'], reason: string, cls?: CaseResult['class']): Prepared {
  return { kind: 'stop', result: { status, reason, ...(cls ? { class: cls } : {}) } };
}
