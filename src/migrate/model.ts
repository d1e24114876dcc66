/**
 * The data `transmute migrate` passes between its steps: the library found under DIR (discover.ts), what each
 * source policy became (translate.ts), the rewritten suites (suites.ts), the rows that prove a migration
 * (prove.ts) and the report (report.ts).
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import type { JsonObject } from '../ir/json.js';
import type { SourceDoc } from '../io/source.js';
import type { RowStatus } from '../io/test-row.js';

/** The dialects `migrate` writes. */
export type MigrateTarget = 'kyverno-mpol' | 'map';

export const MIGRATE_TARGETS: readonly MigrateTarget[] = ['kyverno-mpol', 'map'];

/** One file under DIR. `rel` is relative to DIR with `/` separators; `path` is DIR as the user spelled it + rel. */
export interface LibraryFile {
  rel: string;
  path: string;
  /** Absolute path, for reading. */
  abs: string;
  /** `suite`: a kyverno-test.yaml; `policies`: holds a source policy; `other`: copied byte for byte. */
  role: 'suite' | 'policies' | 'other';
  /** The YAML documents of a suite or policy file. */
  docs?: SourceDoc[];
}

/** What a rule of a Kyverno policy does; a Gatekeeper mutator is one `mutate` rule. */
export type RuleKind = 'mutate' | 'mutate-existing' | 'validate' | 'generate' | 'verifyImages' | 'unknown';

export interface RuleInfo {
  name: string;
  kind: RuleKind;
  /** Where the rule is (its `mutate.targets` for a mutate-existing rule). */
  span: Span;
}

/** A Kyverno ClusterPolicy / Policy or a Gatekeeper mutator found under DIR. */
export interface SourcePolicy {
  /** `<rel>#<document index>`: unique in the library (names are not). */
  key: string;
  file: LibraryFile;
  doc: SourceDoc;
  dialect: 'kyverno' | 'gatekeeper';
  kind: string;
  name: string;
  namespace?: string;
  /** Where the document starts (its first line). */
  span: Span;
  rules: RuleInfo[];
}

/** A policy document under DIR that is not a source of `migrate` (already CEL, or not a mutation language). */
export interface OtherPolicy {
  file: LibraryFile;
  doc: SourceDoc;
  kind: string;
  name: string;
  span: Span;
}

export interface Library {
  /** DIR as the user spelled it. */
  dir: string;
  files: LibraryFile[];
  policies: SourcePolicy[];
  others: OtherPolicy[];
  /** Files that could not be read as YAML (copied unchanged) and other notes about the input. */
  warnings: Diagnostic[];
}

/** A construct that kept a policy from being migrated. `invalid`: the source itself did not parse. */
export interface Refusal {
  code: string;
  class: 'cannot' | 'yet' | 'invalid';
  message: string;
  span?: Span;
}

/** A policy migrate wrote, as suite rows name it (`name`, or `namespace/name`), with its kind. */
export interface MigratedTarget {
  kind: string;
  name: string;
  namespace?: string;
  ref: string;
}

/** What translation made of one source policy. */
export type Outcome =
  | {
      status: 'translated';
      /** The documents written in place of the source (policy, binding), in order; empty for all but the first of a group. */
      documents: JsonObject[];
      /** The source with only its non-mutating rules, written after `documents`; absent when nothing is left. */
      residue?: JsonObject;
      /** The migrated policy (the one of the admission rules, when the source also mutates existing resources) and the row flag. */
      target: MigratedTarget;
      /**
       * A source whose translation is several policies (admission rules beside mutate-existing rules, or several
       * mutate-existing rules: Kyverno's MutatingPolicy mutates existing resources as a policy of its own): the
       * policy written for each mutate-existing rule, by rule name. See targetOf.
       */
      ruleTargets?: Record<string, MigratedTarget>;
      flag: 'isMutatingPolicy' | 'isMutatingAdmissionPolicy';
      /** Gatekeeper mutators translated together (one file's mutators form one fix-point): names and keys. */
      group?: string[];
      groupKeys?: string[];
      notes: Refusal[];
    }
  | { status: 'refused'; refusals: Refusal[]; notes: Refusal[] }
  | { status: 'left'; reason: string };

/** The policy a suite row about `rule` of a translated source names now (an autogen rule stands for its Pod rule, as in the CLI). */
export function targetOf(outcome: Extract<Outcome, { status: 'translated' }>, rule: string | undefined): MigratedTarget {
  const byRule = outcome.ruleTargets;
  if (byRule === undefined || rule === undefined) return outcome.target;
  for (const name of ruleNames(rule)) {
    if (Object.prototype.hasOwnProperty.call(byRule, name)) return byRule[name]!;
  }
  return outcome.target;
}

/** The rule names a suite entry's `rule` may stand for: itself, or the Pod rule an autogen rule was made from (as in the CLI). */
export function ruleNames(rule: string): string[] {
  return [rule, rule.replace(/^autogen-cronjob-/, ''), rule.replace(/^autogen-/, '')];
}

/** One checked row: an original result entry against one resource, and the same entry in the migrated suite. */
export interface ProofRow {
  /** The suite as reached from DIR (`DIR/.../kyverno-test.yaml`). */
  suite: string;
  /** Index in the suite's `results`. */
  entry: number;
  resource: string;
  original: RowResult;
  migrated: RowResult;
  /**
   * Policies the suite applies before this one that are not of the migrated kind in OUT (sources that were
   * not migrated, other languages): `transmute test` runs a row with the policies of its own kind only.
   */
  before?: string[];
  /**
   * Why the row proves nothing: one side could not run it (it needed data no offline run has, such as a
   * registry's image metadata). Such a row is reported, and left out of the status and the counts.
   */
  notRun?: string;
  /**
   * The row is an example object of the library (prove-samples.ts), admitted through the source and the
   * migration and the two results compared: `suite` is its file, `entry` its document index.
   */
  sample?: true;
}

export interface RowResult {
  policy: string;
  rule: string;
  status: RowStatus;
  reason: string;
  diff?: string;
}

export type PolicyStatus = 'proven' | 'differences' | 'untested' | 'not-migrated' | 'left-as-is';

export const STATUS_LABEL: Record<PolicyStatus, string> = {
  proven: 'migrated and proven',
  differences: 'migrated with differences',
  untested: 'migrated, untested',
  'not-migrated': 'not migrated',
  'left-as-is': 'left as is',
};

/** A rewritten or copied suite. */
export interface SuiteOutcome {
  /** Relative to DIR. */
  rel: string;
  /** Result entries rewritten for a migrated policy. */
  rewritten: number;
  /** Of those, entries merged into another one (several rules of one policy on the same resources). */
  merged: number;
  /** Why the suite was copied unchanged, or what in it points outside DIR. */
  problems: string[];
}
