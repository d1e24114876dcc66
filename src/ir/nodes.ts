/**
 * The intermediate representation: policies of guarded path operations. This file is the contract between
 * dialects, the optimizer, the interpreter and the backends; `schema.json` is generated from it.
 * Every node carries the `origin` of the source construct it came from.
 */
import type { Origin } from '../diagnostics/span.js';
import type { JsonValue } from './json.js';
import type { MatchSpec } from './match.js';
import type { Path } from './path.js';

export type { Origin } from '../diagnostics/span.js';
export type { JsonScalar, JsonValue, JsonObject } from './json.js';
export type { MatchSpec, MatchClause, GvkPattern, ResourcePattern, LabelSelector, LabelRequirement, UserMatch, GlobStyle } from './match.js';
export type { Path, PathRoot, Segment, SegmentTest } from './path.js';

/** An expression in a language the IR keeps opaque (CEL, JMESPath), with the span of its text. */
export interface ExprSource {
  text: string;
  origin: Origin;
}

// ---------------------------------------------------------------------------------------------- values

export type Value = LiteralValue | RefValue | FromMetadataValue | TemplateValue | TemplatedValue | CelValue | JmesValue | ExternalValue;

export interface LiteralValue {
  kind: 'literal';
  json: JsonValue;
  origin: Origin;
}

/** The value found at a path (the first one, for multi-paths); missing is an evaluation error. */
export interface RefValue {
  kind: 'ref';
  path: Path;
  origin: Origin;
}

/** The object's `metadata.name` or `metadata.namespace` (Gatekeeper `fromMetadata`). */
export interface FromMetadataValue {
  kind: 'fromMetadata';
  field: 'name' | 'namespace';
  origin: Origin;
}

/** A string assembled from text and JMESPath holes (Kyverno `{{ }}`). A single hole keeps the JSON type. */
export interface TemplateValue {
  kind: 'template';
  parts: TemplatePart[];
  origin: Origin;
}

export type TemplatePart = string | { jmes: string };

/**
 * A JSON tree whose strings (and map keys) may hold `{{ }}` variables, substituted by the registered template
 * engine as Kyverno substitutes them in a patch (`language: 'kyverno'`).
 */
export interface TemplatedValue {
  kind: 'templated';
  language: 'kyverno';
  json: JsonValue;
  origin: Origin;
}

export interface CelValue {
  kind: 'cel';
  expr: ExprSource;
  origin: Origin;
}

export interface JmesValue {
  kind: 'jmes';
  expr: ExprSource;
  origin: Origin;
}

/** A value fetched from an external data provider, keyed by the current value (`source`). */
export interface ExternalValue {
  kind: 'external';
  provider: string;
  source: 'ValueAtLocation' | 'Username';
  failurePolicy: 'Fail' | 'Ignore' | 'UseDefault';
  default?: string;
  origin: Origin;
}

// ---------------------------------------------------------------------------------------------- guards

/** Pure three-valued conditions: true, false, or undefined (a missing path), where undefined acts as false. */
export type Guard =
  | ExistsGuard
  | CompareGuard
  | MembershipGuard
  | MatchGuard
  | JunctionGuard
  | NotGuard
  | ConstGuard
  | CelGuard
  | JmesGuard;

export interface ExistsGuard {
  kind: 'exists' | 'notExists';
  path: Path;
  origin: Origin;
}

export interface CompareGuard {
  kind: 'eq' | 'neq';
  path: Path;
  value: Value;
  origin: Origin;
}

export interface MembershipGuard {
  kind: 'in' | 'notIn';
  path: Path;
  values: Value[];
  origin: Origin;
}

/** Wildcard match of the string at `path` (`*` any run, `?` one character, as Kyverno matches). */
export interface MatchGuard {
  kind: 'match';
  path: Path;
  pattern: string;
  origin: Origin;
}

export interface JunctionGuard {
  kind: 'and' | 'or';
  args: Guard[];
  origin: Origin;
}

export interface NotGuard {
  kind: 'not';
  arg: Guard;
  origin: Origin;
}

export interface ConstGuard {
  kind: 'const';
  value: boolean;
  origin: Origin;
}

export interface CelGuard {
  kind: 'cel';
  expr: ExprSource;
  /** The source's name for the condition (a matchCondition's `name`), kept so a translation writes it back. */
  name?: string;
  origin: Origin;
}

export interface JmesGuard {
  kind: 'jmes';
  expr: ExprSource;
  origin: Origin;
}

// ---------------------------------------------------------------------------------------------- ops

export type Op = SetOp | RemoveOp | SetMembersOp | MergeOp | ImageOp | JsonPatchOp | WhenOp | ForEachOp | LetOp | FailOp;

/**
 * Writes `value` at every place `path` reaches, creating missing maps, lists and keyed elements on the way
 * (never through a glob or an each segment). Segment tests on the path gate each branch.
 */
export interface SetOp {
  kind: 'set';
  path: Path;
  value: Value;
  origin: Origin;
}

/** Deletes the key or list element at `path`; a missing target is not an error. */
export interface RemoveOp {
  kind: 'remove';
  path: Path;
  origin: Origin;
}

/**
 * Treats the list at `path` as a set (Gatekeeper ModifySet): `merge` appends the values not yet present,
 * `prune` removes every element equal to one of them. Equality is deep and type-sensitive.
 */
export interface SetMembersOp {
  kind: 'setMembers';
  path: Path;
  values: Value[];
  mode: 'merge' | 'prune';
  origin: Origin;
}

/**
 * Merges `value` into the map at `path`. `json` is RFC 7386 merge patch; `smp` (Kyverno strategic merge)
 * and `ssa` (structured merge of an apply configuration) are provided by their merge engines.
 */
export interface MergeOp {
  kind: 'merge';
  path: Path;
  value: Value;
  strategy: 'json' | 'smp' | 'ssa';
  origin: Origin;
}

/** Replaces components of the image reference string at `path` (Gatekeeper AssignImage). */
export interface ImageOp {
  kind: 'image';
  path: Path;
  domain?: string;
  repo?: string;
  tag?: string;
  origin: Origin;
}

export interface JsonPatchStep {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: Value;
  origin: Origin;
}

/**
 * RFC 6902 operations with no structured form. `profile` names the engine whose quirks apply:
 * `rfc6902` strict, `kyverno` (add creates parents, remove of a missing path is ignored),
 * `evanphx-v4` (kube-apiserver: replace of a missing key adds, a failed test is a silent no-op).
 */
export interface JsonPatchOp {
  kind: 'jsonPatch';
  steps: JsonPatchStep[];
  /** Steps computed at evaluation time (a MAP JSONPatch expression): a list of `{op, path, from?, value?}`, applied after `steps`. */
  stepsFrom?: Value;
  profile: 'rfc6902' | 'kyverno' | 'evanphx-v4';
  origin: Origin;
}

export interface WhenOp {
  kind: 'when';
  guard: Guard;
  then: Op[];
  else?: Op[];
  origin: Origin;
}

/** Runs `body` once per element of `list`, with the element bound to `vars.<bind>` and its index to `vars.<indexBind>`. */
export interface ForEachOp {
  kind: 'forEach';
  list: Path | Value;
  bind: string;
  indexBind?: string;
  order: 'asc' | 'desc';
  body: Op[];
  origin: Origin;
}

/**
 * Fails where it runs, with `message` as the engine words it: a configuration error the engine raises instead
 * of evaluating the policy (a MAP paramKind that resolves to no resource, a binding's missing params under
 * `parameterNotFoundAction: Deny`). The failure policy decides what the failure does, as for any other error.
 */
export interface FailOp {
  kind: 'fail';
  message: string;
  origin: Origin;
}

/** Binds `vars.<name>` to a value for the rest of the enclosing block. */
export interface LetOp {
  kind: 'let';
  name: string;
  value: Value;
  /** Evaluated at first use, so an error surfaces only where the variable is read (MAP `variables`). */
  lazy?: boolean;
  origin: Origin;
}

// ---------------------------------------------------------------------------------------------- policies

/**
 * How a policy runs relative to the others of its set:
 * - `sequential`: once, in order (Kyverno);
 * - `fixpoint`: all fix-point policies of the set run together, in order, repeatedly until a pass changes
 *   nothing, at most `maxPasses` passes (default: number of such policies + 1), else an error (Gatekeeper);
 * - `ordered`: once, in order; then, if a later policy changed the object, the `reinvocation: ifNeeded`
 *   policies run once more (MutatingAdmissionPolicy).
 */
export interface Semantics {
  order: 'sequential' | 'fixpoint' | 'ordered';
  maxPasses?: number;
  reinvocation?: 'never' | 'ifNeeded';
  failurePolicy?: 'fail' | 'ignore';
  /**
   * Rules of a sequential policy: `all` (default) runs every rule; `one` stops after the first rule that
   * applied, i.e. changed the object (Kyverno `spec.applyRules: One`, engine mutation.go RulesAppliedCount).
   */
  applyRules?: 'all' | 'one';
  /**
   * `implied`: a namespaced policy whose source names no namespace (a Kyverno `Policy` without
   * metadata.namespace). It applies in the namespace it is created in; its match and id read that namespace as
   * `default`, as Kyverno's CLI does, and a translation leaves it to whoever installs the policy, or says
   * where it cannot.
   */
  namespace?: 'implied';
}

export interface Rule {
  name: string;
  match?: MatchSpec;
  guards: Guard[];
  body: Op[];
  origin: Origin;
}

export interface Policy {
  id: string;
  match: MatchSpec;
  /**
   * Bindings made once the policy matches, before its guards: the guards and every rule see them (the
   * `params` of one MutatingAdmissionPolicy invocation, which its matchConditions read too).
   */
  lets?: LetOp[];
  guards: Guard[];
  rules: Rule[];
  semantics: Semantics;
  origin: Origin;
}

/** A whole IR document: the policies parsed from one or more sources, in order. */
export interface PolicySet {
  policies: Policy[];
}

export type Node = Policy | Rule | Op | Guard | Value;
