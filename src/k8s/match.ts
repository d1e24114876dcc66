import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { spanOfOrigin } from '../diagnostics/span.js';
import type { MatchSpec } from '../ir/match.js';
import { compileClause, runClause, type ClauseContext, type CompiledClause, type Undecided, type Verdict } from './clause.js';
import { type MatchKind, type RequestFacts, requestFacts, requestMatchKind, requestOperation } from './facts.js';
import { kindIndexKeys } from './kind-index.js';
import { defaultProfile, type CompileMatchOptions, type MatchProfile } from './profile.js';
import type { AdmissionRequest } from './request.js';

export { defaultProfile, type CompileMatchOptions, type MatchProfile } from './profile.js';
export { kindIndexKeys, requestIndexKeys } from './kind-index.js';

export interface MatchOutcome {
  matched: boolean;
  /** Which clause or exclusion decided, for `--explain`. */
  reason: string;
  /** Set when matching could not be decided (Gatekeeper/Kubernetes: namespace missing, invalid selector). */
  error?: Diagnostic;
}

export interface CompiledMatch {
  readonly spec: MatchSpec;
  readonly profile: MatchProfile;
  /** Problems found while compiling (invalid label selectors), with the spec's origin as span. */
  readonly diagnostics: readonly Diagnostic[];
  /** The kind-index keys of the spec (see `kindIndexKeys`). */
  readonly indexKeys: readonly string[] | '*';
  test(req: AdmissionRequest): MatchOutcome;
  /** As `test`, for callers that already hold the request's facts. */
  testFacts(facts: RequestFacts): MatchOutcome;
}


/** Compiles a match block once; `test` then costs only the criteria the spec sets. */
export function compileMatch(spec: MatchSpec, options: CompileMatchOptions = {}): CompiledMatch {
  const profile = options.profile ?? defaultProfile(spec.globs);
  const span = spanOfOrigin(spec.origin);
  const diagnostics: Diagnostic[] = [];
  const ctx = (field: string, exclude: boolean): ClauseContext => ({
    profile,
    globs: spec.globs,
    exclude,
    field,
    span,
    dialect: spec.origin?.dialect,
    diagnostics,
  });
  const any = spec.any?.map((c, i) => compileClause(c, ctx(`any[${i}]`, false)));
  const all = spec.all?.map((c, i) => compileClause(c, ctx(`all[${i}]`, false)));
  const exAny = spec.exclude?.any?.map((c, i) => compileClause(c, ctx(`exclude.any[${i}]`, true)));
  const exAll = spec.exclude?.all?.length ? spec.exclude.all.map((c, i) => compileClause(c, ctx(`exclude.all[${i}]`, true))) : undefined;

  const undecided = (where: string, u: Undecided): MatchOutcome => {
    const message = `${where}: ${u.error}`;
    return {
      matched: false,
      reason: message,
      error: diagnostic('TM3003', { phase: 'eval', message: `match: ${message}`, span, ...(spec.origin ? { dialect: spec.origin.dialect } : {}) }),
    };
  };

  // Outcomes of a match are built once: matching runs per policy, object version and fix-point pass, and
  // only a miss needs a reason computed from the request.
  const matched = (reason: string): MatchOutcome => Object.freeze({ matched: true, reason });
  const allSuffix = all && all.length > 0;
  const byAny = any?.map((c) => matched(allSuffix ? `matched ${c.label} and all[*]` : `matched ${c.label}`));
  const noAny = matched(allSuffix ? 'matched all[*]' : 'matched (no match constraints)');

  // The outcome from the verdicts `run` gives each clause: over the whole facts, or over the kind facts alone.
  const outcomeOf = <F>(f: F, operation: string, run: (c: CompiledClause, f: F, operation: string) => Verdict): MatchOutcome => {
    let outcome = noAny;
    if (any) {
      let failures: string[] | undefined;
      let hit = -1;
      for (let i = 0; i < any.length; i++) {
        const c = any[i]!;
        const v = run(c, f, operation);
        if (v === null) {
          hit = i;
          break;
        }
        if (typeof v !== 'string') return undecided(c.label, v);
        (failures ??= []).push(`${c.label}: ${v}`);
      }
      if (hit < 0) {
        const reason =
          any.length === 0 ? 'match.any is empty' : any.length === 1 ? failures![0]! : `no clause matched (${failures!.join('; ')})`;
        return { matched: false, reason };
      }
      outcome = byAny![hit]!;
    }
    if (all) {
      for (const c of all) {
        const v = run(c, f, operation);
        if (v === null) continue;
        if (typeof v !== 'string') return undecided(c.label, v);
        return { matched: false, reason: `${c.label}: ${v}` };
      }
    }
    if (exAny) {
      for (const c of exAny) {
        const v = run(c, f, operation);
        if (v === null) return { matched: false, reason: `excluded by ${c.label}` };
        if (typeof v !== 'string') return undecided(c.label, v);
      }
    }
    if (exAll) {
      let every = true;
      for (const c of exAll) {
        const v = run(c, f, operation);
        if (v === null) continue;
        if (typeof v !== 'string') return undecided(c.label, v);
        every = false;
        break;
      }
      if (every) return { matched: false, reason: 'excluded by exclude.all[*]' };
    }
    return outcome;
  };
  const testFacts = (f: RequestFacts): MatchOutcome => outcomeOf(f, f.operation, runClause);
  // A block that tests nothing but kinds, resources and operations (the usual `kinds: [Pod]`, a MAP binding's
  // resourceRules) is decided by the kind facts and the operation alone: the other facts are not derived
  // (issue 17), the verdicts are the same clauses' over the same kind facts.
  const clauses = [...(any ?? []), ...(all ?? []), ...(exAny ?? []), ...(exAll ?? [])];
  const kindOnly = clauses.every((c) => c.onKindOnly !== undefined);
  const byKind = (c: CompiledClause, k: MatchKind, operation: string): Verdict => c.onKindOnly!(k, operation);

  return {
    spec,
    profile,
    diagnostics,
    indexKeys: kindIndexKeys(spec, { profile }),
    test: kindOnly ? byKindOnce((k, operation) => outcomeOf(k, operation, byKind)) : (req) => testFacts(requestFacts(req)),
    testFacts,
  };
}

/**
 * A kind-only match's test, deciding once per kind facts and operation: the kind facts of a stream of objects
 * of one kind are one object (facts.ts requestMatchKind), so a policy matched against each of them computes
 * its outcome once (issue 17). Outcomes are never changed by their readers; an undecided one is not kept.
 */
function byKindOnce(decide: (k: MatchKind, operation: string) => MatchOutcome): (req: AdmissionRequest) => MatchOutcome {
  let lastKind: MatchKind | undefined;
  let lastOperation = '';
  let lastOutcome: MatchOutcome | undefined;
  return (req) => {
    const k = requestMatchKind(req);
    const operation = requestOperation(req);
    if (k === lastKind && operation === lastOperation) return lastOutcome!;
    const outcome = decide(k, operation);
    if (outcome.error === undefined) {
      lastKind = k;
      lastOperation = operation;
      lastOutcome = outcome;
    }
    return outcome;
  };
}
