/**
 * The conformance runner's data model: where a case was found (`CaseRef`), what it contains once loaded
 * (`ConformanceCase`, one variant per upstream format) and how it ended (`CaseOutcome`).
 */
import type { UnsupportedClass } from '../diagnostics/diagnostic.js';
import type { JsonObject, JsonValue } from '../ir/json.js';
import type { SourceDoc } from '../io/source.js';
import type { AdmissionRequest } from '../k8s/request.js';

export type CaseStatus = 'passed' | 'failed' | 'error' | 'unsupported' | 'skipped';

/** What a runner returns; the harness adds the id. `reason` is omitted for passed cases. */
export interface CaseResult {
  status: CaseStatus;
  reason?: string;
  /** For a case `unsupported` because its translation was refused: the target `cannot` express it, or not `yet`. */
  class?: UnsupportedClass;
}

export interface CaseOutcome extends CaseResult {
  id: string;
}

/**
 * Where one case lives. A folder with a `manifest.json`, one row of a Gatekeeper JSON table, one `results[]`
 * entry of a `kyverno-test.yaml`, or one structured-merge triplet.
 */
export type CaseRef =
  | { kind: 'manifest'; id: string; path: string }
  | { kind: 'table-row'; id: string; path: string; row: number }
  | { kind: 'suite-result'; id: string; path: string; result: number }
  | { kind: 'smd-triplet'; id: string; path: string; group: number; triplet: number }
  /** A file or folder discovery could not read (it becomes an `error` case, never a crash). */
  | { kind: 'unreadable'; id: string; path: string; message: string };

export type CaseFormat =
  | 'gatekeeper'
  | 'gatekeeper-table'
  | 'kyverno-cli'
  | 'kyverno-chainsaw'
  | 'kyverno-unit'
  | 'kyverno-suite'
  | 'map'
  | 'smd-triplet'
  | 'gator-expand';

/** How an expected object is compared with the actual one; each INDEX.md prescribes its own. */
export type CompareProfile =
  /** Deep equality after JSON normalisation of numbers (Gatekeeper; Kyverno unit `exact-json`, `yaml-equal`). */
  | 'exact'
  /** `exact`, and the string `<uuid>` in the expected object matches any UUID (Gatekeeper mutation annotations). */
  | 'gatekeeper'
  /** `kyverno test`: tidy both sides (drop nulls, empty maps and lists), then the JSON merge patch must be `{}`. */
  | 'kyverno-cli'
  /** MAP on a built-in Go-typed kind: drop nulls, creationTimestamp and (omitempty) empty maps and lists. */
  | 'map-typed'
  /** MAP on a custom resource: drop nulls and creationTimestamp only. */
  | 'map-untyped'
  /** MAP `k8s-integration/status-subresource`: only `status.conditions` is compared. */
  | 'map-status-conditions'
  /** Chainsaw assert semantics (MAP `expect.objectSubset`): the expected document is a subset of the result. */
  | 'subset';

/** Kyverno rule outcome as `kyverno test` reports it. */
export interface RuleExpectation {
  policy: string;
  rule?: string;
  result: string;
}

export type Expectation =
  | { kind: 'object'; object: JsonValue; profile: CompareProfile }
  /**
   * Values at JSON pointers (Kyverno unit `expected_partial`): `/a/b` exact, `/a/-` the last element,
   * `_byName:<ptr>` list elements selected by `name` (subset), `_allElements:<ptr>` every element (subset).
   */
  | { kind: 'partial'; checks: JsonObject }
  /** Every RFC 6902 op the evaluation emits must be one of these, and at least one is emitted (Kyverno unit). */
  | { kind: 'emitted-patch'; ops: JsonValue[] }
  /**
   * The result must equal running `reference` (plain strategic merge of the preprocessed patch) on the same
   * request; `reference` empty means the rule is skipped and the object is unchanged (Kyverno unit).
   */
  | { kind: 'same-as-reference'; reference: SourceDoc[] }
  /** The policies must be rejected (`parse`), the request denied (`apply`), or either (`any`). */
  | { kind: 'error'; stage: 'parse' | 'apply' | 'any'; contains?: string; detail?: string }
  /** The policies must be accepted with no error diagnostic. */
  | { kind: 'valid' }
  /** The object must differ from the input (a Kyverno `pass` result with no patched resource given). */
  | { kind: 'changed' }
  /** Only the rule statuses (`ruleResults`) are expected: a Kyverno `skip` of one rule says nothing of the object. */
  | { kind: 'rule-status' }
  /** Nothing the runner can check offline (a validation `fail` result); the case is `unsupported` with `reason`. */
  | { kind: 'unchecked'; reason: string };

/** One more request of a case, with its own expectation and, when the case says so, its own policy variant. */
export interface Subject {
  label: string;
  request: AdmissionRequest;
  expect: Expectation;
  policyDocs?: SourceDoc[];
  ruleResults?: RuleExpectation[];
}

interface CaseBase {
  id: string;
  /** Absolute path of the case folder, table file, suite file or triplet file. */
  path: string;
  /** `gatekeeper`, `kyverno` or `map`: the corpus folder the case came from. */
  corpus: string;
  /** The source folder inside the corpus (`go-unit`, `kyverno-cli`, ...). */
  source: string;
  /** Registry name of the dialect that reads the case's policies (`gatekeeper`, `kyverno`, `map`); '' when none. */
  dialect: string;
  /** Set when the manifest says the case needs a cluster or an external service: the case is skipped. */
  needsCluster?: string;
}

/**
 * A case that is one admission request against a policy set (Gatekeeper, MAP, Kyverno CLI, Kyverno unit,
 * kyverno-test.yaml results): parse `policyDocs` (with `siblingDocs` such as params), apply, compare.
 */
export interface AdmissionCase extends CaseBase {
  format: 'gatekeeper' | 'map' | 'kyverno-cli' | 'kyverno-unit' | 'kyverno-suite';
  policyDocs: SourceDoc[];
  siblingDocs: SourceDoc[];
  /** Absent for validation-only cases (the mutator must be accepted or rejected). */
  request?: AdmissionRequest;
  expect: Expectation;
  /** Kyverno rule outcomes the case also asserts; checked where the trace reports rule outcomes. */
  ruleResults?: RuleExpectation[];
  /** More requests the case checks, all of which must pass (a kyverno-test result naming several resources). */
  extraSubjects?: Subject[];
  /** Kyverno `mutate-existing` cases: the trigger is `request.object`, the targets are these. */
  mutateExisting?: {
    targets: SourceDoc[];
    /** Suite cases, whose `request` is a target: the resources that trigger the rules (absent: `request` is the trigger). */
    triggers?: SourceDoc[];
  };
  /**
   * Case data a dialect may need that the request cannot carry (Gatekeeper `flags`, `externalDataStub`,
   * `expectedConflicts`; Kyverno values). Passed to `Dialect.parse` as `ParseOptions.conformance`.
   */
  hints: JsonObject;
}

export type ChainsawStep =
  | { op: 'policy' | 'apply' | 'create' | 'update' | 'patch'; file: string; docs: SourceDoc[] }
  | { op: 'assert' | 'error'; file: string; docs: SourceDoc[]; nonResource: boolean }
  | { op: 'delete'; ref: JsonObject }
  | { op: 'wait-policy-ready' | 'sleep' };

/** A chainsaw test replayed against an in-memory cluster (Kyverno `kyverno-chainsaw`). */
export interface ChainsawCase extends CaseBase {
  format: 'kyverno-chainsaw';
  /** The namespace chainsaw runs the test in: the Test's `spec.namespace`, else its ephemeral one. */
  namespace: string;
  steps: ChainsawStep[];
  features: string[];
}

/** One row of a Gatekeeper Go test table (`go-unit-tables/<file>.json`). */
export interface TableRowCase extends CaseBase {
  format: 'gatekeeper-table';
  /** The table file name without `.json` (`parser`, `image_split`, ...): the key runners register under. */
  table: string;
  row: JsonObject;
  tableSource: JsonObject;
}

/** One structured-merge triplet: `out = merge(schema, rootTypeName, lhs, rhs)`. */
export interface SmdTripletCase extends CaseBase {
  format: 'smd-triplet';
  name: string;
  schema: JsonValue;
  rootTypeName: string;
  lhs: JsonValue;
  rhs: JsonValue;
  out: JsonValue;
}

/**
 * A `gator expand` case (manifest `runner: "gator-expand"`): every document of `input/`, and the documents of
 * `output/output.yaml`, each of which must equal one printed resultant; `expectedError` when gator must fail.
 */
export interface GatorExpandCase extends CaseBase {
  format: 'gator-expand';
  inputDocs: SourceDoc[];
  expectedDocs: SourceDoc[];
  expectedError?: { contains?: string };
}

export type ConformanceCase = AdmissionCase | ChainsawCase | TableRowCase | SmdTripletCase | GatorExpandCase;
