/**
 * The Gatekeeper corpus' runners (listed in ../runners.ts): a case runner that applies with the case's
 * external-data stub and `--mutation-annotations` flag (what the default admission runner cannot pass to the
 * interpreter), and a row runner per `go-unit-tables/*.json` table (src/dialects/gatekeeper/unit-tables.ts).
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { mutationAnnotations } from '../../dialects/gatekeeper/annotations.js';
import type { MutationAnnotations } from '../../dialects/dialect.js';
import { TABLE_CHECKERS } from '../../dialects/gatekeeper/unit-tables.js';
import { apply, type ApplyEnv, type ExternalData, type TraceEvent } from '../../interpreter/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { compareObjects, describeDifference } from '../compare.js';
import { firstError, harnessAdmission, missingDialect, preparePolicies } from '../policies.js';
import { invalidForCelTarget } from '../runners/admission.js';
import type { RunContext } from '../runners/context.js';
import type { TableRowRunners } from '../runners/engines.js';
import { createRuntime } from '../../runtime/create.js';
import { deriveRuntime } from '../../runtime/runtime.js';
import type { AdmissionCase, CaseResult, Expectation } from '../types.js';

// ---------------------------------------------------------------------------------------------- external data

type Answer = JsonValue | { error: string } | undefined;

/** The e2e dummy provider (test/externaldata/dummy-provider/provider.go), gatekeeper.md §1.6. */
function dummyProvider(key: string): Answer {
  // A system error fails the provider's whole response; per key, every placeholder sent with it fails alike.
  if (key.endsWith('_systemError')) return { error: 'testing system error' };
  if (key.startsWith('error_')) return { error: `${key}_invalid` };
  if (key.endsWith('_valid')) return undefined;
  return `${key}_valid`;
}

/** A provider rule from the manifest's `externalDataStub` entry: the dummy-provider text, `value = key + "s"`, or `{table}`. */
function providerRule(stub: JsonValue): ((key: string) => Answer) | string {
  if (isJsonObject(stub) && isJsonObject(stub.table)) {
    const table = stub.table;
    return (key) => (Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined);
  }
  if (typeof stub === 'string') {
    if (stub.includes('_systemError')) return dummyProvider;
    const suffix = /^value = key \+ "([^"]*)"$/.exec(stub.trim());
    if (suffix) return (key) => key + suffix[1]!;
  }
  return `externalDataStub ${JSON.stringify(stub)} is not a provider rule this runner knows`;
}

/**
 * ApplyEnv.externalData is provider → key → answer; a stub answers any key, so each provider's table is a
 * view whose own properties are the rule's answers, computed when the interpreter looks a key up.
 */
function lazyTable(rule: (key: string) => Answer): Record<string, JsonValue | { error: string }> {
  return new Proxy({} as Record<string, JsonValue | { error: string }>, {
    getOwnPropertyDescriptor: (_t, key) => {
      const answer = typeof key === 'string' ? rule(key) : undefined;
      return answer === undefined ? undefined : { value: answer, writable: false, enumerable: true, configurable: true };
    },
    get: (_t, key) => (typeof key === 'string' ? rule(key) : undefined),
    has: (_t, key) => typeof key === 'string' && rule(key) !== undefined,
  });
}

function externalDataOf(hints: JsonObject): ExternalData | string | undefined {
  const stubs = hints.externalDataStub;
  if (!isJsonObject(stubs)) return undefined;
  const data: ExternalData = {};
  for (const [provider, stub] of Object.entries(stubs)) {
    const rule = providerRule(stub);
    if (typeof rule === 'string') return rule;
    data[provider] = lazyTable(rule);
  }
  return data;
}

/** The interpreter options a case's manifest asks for (external-data stub, mutation annotations), or why not. */
export function gatekeeperApplyEnv(hints: JsonObject): ApplyEnv | string {
  const env: ApplyEnv = {};
  const externalData = externalDataOf(hints);
  if (typeof externalData === 'string') return externalData;
  if (externalData) env.externalData = externalData;
  const annotations = mutationAnnotationsOf(hints);
  if (annotations) env.onFixpointConverged = mutationAnnotations(annotations);
  return env;
}

/** The case's `--mutation-annotations` flag, with the mutators' generation (1 unless the manifest says). */
function mutationAnnotationsOf(hints: JsonObject): MutationAnnotations | undefined {
  const flags = isJsonObject(hints.flags) ? hints.flags : {};
  if (flags.mutationAnnotations !== true) return undefined;
  return { generation: typeof flags.mutatorGeneration === 'number' ? flags.mutatorGeneration : 1 };
}

// ---------------------------------------------------------------------------------------------- cases

/**
 * An error expectation: some error (diagnostic or trace) contains the expected text. After a translation
 * (`translated`) any error satisfies it; its wording is the target's.
 */
function errorResult(expect: Extract<Expectation, { kind: 'error' }>, diagnostics: readonly Diagnostic[], trace: readonly TraceEvent[], translated: boolean): CaseResult {
  const messages = [
    ...diagnostics.filter((d) => d.severity === 'error').map((d) => d.message),
    ...trace.filter((t) => t.outcome === 'error' && t.reason).map((t) => t.reason!),
  ];
  if (messages.length === 0) return { status: 'failed', reason: 'expected an error, but no error was reported' };
  if (!expect.contains || translated || messages.some((m) => m.includes(expect.contains!))) return { status: 'passed' };
  return { status: 'failed', reason: `expected an error containing "${expect.contains}", got: ${messages[0]}` };
}

/** Gatekeeper case folders: parse (or translate with --via), apply as the mutation system would, compare. */
export function runGatekeeperCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  const missing = missingDialect(c.dialect, ctx.via, ctx.dialects);
  if (missing) return missing;
  const expect = c.expect;
  const admission = harnessAdmission(c);
  // --mutation-annotations is a flag of Gatekeeper's deployment, not of any mutator: a translation is asked
  // to carry it (and says when it cannot), and a translation back to Gatekeeper runs under it again.
  const annotations = mutationAnnotationsOf(c.hints);
  const settings = annotations ? { mutationAnnotations: annotations } : undefined;
  const prepared = preparePolicies(
    { id: c.id, dialect: c.dialect, policyDocs: c.policyDocs, siblingDocs: c.siblingDocs, hints: c.hints, ...(admission ? { admission } : {}), ...(settings ? { settings } : {}) },
    ctx.via,
    ctx.admitted,
    ctx.dialects,
  );
  if (prepared.kind === 'stop') return prepared.result;
  if (prepared.kind === 'rejected') {
    if (expect.kind === 'error' && expect.stage !== 'apply') return errorResult(expect, prepared.diagnostics, [], false);
    return { status: 'failed', reason: `mutators rejected: ${firstError(prepared.diagnostics)}` };
  }
  if (expect.kind === 'valid') return { status: 'passed' };
  if (expect.kind === 'error' && expect.stage === 'parse') {
    return { status: 'failed', reason: `expected the mutators to be rejected${expect.contains ? ` with "${expect.contains}"` : ''}, but they were accepted` };
  }
  if (!c.request) return { status: 'error', reason: 'TM7003: the case has no request to apply' };
  const invalid = invalidForCelTarget(c, ctx);
  if (invalid) return invalid;
  const env = gatekeeperApplyEnv(c.hints);
  if (typeof env === 'string') return { status: 'error', reason: `TM7003: ${env}` };

  const { externalData, ...options } = env;
  const runtime = externalData ? deriveRuntime(ctx.runtime ?? createRuntime(), { externalData }) : ctx.runtime;
  // The request of a cluster's admission: the API server gives each one a UUID (a webhook's request.uid).
  const request = c.request.uid === undefined ? { ...c.request, uid: globalThis.crypto.randomUUID() } : c.request;
  const result = apply(prepared.policies, request, { ...options, ...(runtime ? { runtime } : {}) });
  if (expect.kind === 'error') {
    if (result.allowed) return { status: 'failed', reason: `expected an error${expect.contains ? ` containing "${expect.contains}"` : ''}, but the request was allowed` };
    return errorResult(expect, result.diagnostics, result.trace, ctx.via !== undefined);
  }
  if (!result.allowed) return { status: 'failed', reason: `request denied: ${firstError(result.diagnostics)}` };
  if (expect.kind !== 'object') return { status: 'error', reason: `TM7003: expectation ${expect.kind} is not a Gatekeeper one` };
  const d = compareObjects(expect.profile, expect.object, result.object ?? undefined);
  return d ? { status: 'failed', reason: describeDifference(d) } : { status: 'passed' };
}

/** A row runner per Gatekeeper Go test table the dialect checks. */
export const GATEKEEPER_TABLE_RUNNERS: TableRowRunners = Object.freeze(
  Object.fromEntries(
    Object.entries(TABLE_CHECKERS).map(([table, check]) => [
      table,
      (row: JsonObject) => {
        const why = check(row);
        return why === undefined ? { status: 'passed' as const } : { status: 'failed' as const, reason: why };
      },
    ]),
  ),
);
