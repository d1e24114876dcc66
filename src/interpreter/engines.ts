/**
 * The contracts of the engines the interpreter delegates to (expression, template and merge engines, the typed
 * decoder). Engines are plain values held by a runtime (src/runtime); the interpreter takes each one from the
 * runtime of the evaluation it runs, never from a registry.
 */
import type { PatchSet } from '../jsonpatch/evanphx-v4-in-place.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { JsonValue } from '../ir/json.js';
import type { ExprSource, MergeOp, TemplatedValue } from '../ir/nodes.js';
import type { AdmissionRequest } from '../k8s/request.js';
import type { Runtime } from '../runtime/runtime.js';
import type { PatchShape } from '../merge/ssa/fused-plan.js';

/** What an opaque expression sees: the request's documents and the variables in scope. */
export interface ExprScope {
  object: JsonValue | null;
  oldObject: JsonValue | null;
  request: AdmissionRequest;
  params: JsonValue | null;
  namespaceObject: JsonValue | null;
  vars: Record<string, JsonValue>;
  /**
   * One variable's binding (innermost wins), read on access like `vars`; lets an engine that knows which
   * variables an expression names skip building `vars` (the interpreter builds `vars` only when read).
   */
  lookup?(name: string): { readonly value: JsonValue } | undefined;
  /** Computes the lazy bindings in scope not computed yet whose name `wanted` accepts (Scope.loadLazy). */
  loadLazy?(wanted: (name: string) => boolean): void;
  /** The runtime of the evaluation (request extras, data providers); a scope built by hand may leave it out. */
  readonly runtime?: Runtime;
  /**
   * The object Kyverno's policy context was made from, which its `images` are parsed from
   * (dialects/kyverno/context-images.ts); undefined: the scope's object (its old object on DELETE).
   */
  readonly imagesSource?: JsonValue | null;
  /** The evaluation's scratch space (see EvalMemo); absent outside an evaluation. */
  readonly memo?: EvalMemo;
}

export type ExprOutcome = { ok: true; value: JsonValue | undefined } | { ok: false; diagnostic: Diagnostic };

export type CompiledExpr = (scope: ExprScope) => ExprOutcome;

/** A language the IR keeps opaque (CEL, JMESPath): compiled once per expression, evaluated per request. */
export interface ExpressionEngine {
  compile(expr: ExprSource): { ok: true; fn: CompiledExpr; direct?: DirectExpr } | { ok: false; diagnostics: Diagnostic[] };
  /** Activations kept for several evaluations (see DirectExpr), where the engine offers them. */
  readonly direct?: DirectEngine;
}

/**
 * An expression evaluated against an activation its caller keeps for a run of evaluations (issue 17: a MAP
 * policy's mutations, src/compile/map-run-direct.ts), instead of one built from an ExprScope per evaluation.
 * Offered for expressions that read `variables` only as `variables.<name>` (no `has()`, no `.?`).
 */
export interface DirectExpr {
  /** The variable names the expression selects. */
  readonly variables: readonly string[];
  /** The request-derived activation entries it reads (an activation makes only those some expression reads). */
  readonly reads: DirectReads;
  /** The outcome CompiledExpr gives for a scope of the activation's documents and variables. */
  evaluate(act: DirectActivation): ExprOutcome;
  /**
   * evaluate's value alone, or its failure as a DirectFailure: for a caller that reads the value at once (a
   * run's mutation), without an outcome object per evaluation.
   */
  value(act: DirectActivation): JsonValue | undefined | DirectFailure;
}

/** A failed direct evaluation (DirectExpr.value): a class, so that no JSON value is taken for it. */
export class DirectFailure {
  constructor(readonly outcome: Extract<ExprOutcome, { ok: false }>) {}
}

/** An activation of DirectEngine.activation: the caller sets the object before each evaluation. */
export interface DirectActivation {
  setObject(object: JsonValue | null): void;
}

/** The variables of a direct activation, held by its caller. */
export interface DirectVariables {
  /**
   * The outcome of variable `i` (of the names the activation was made with) for the evaluation under way:
   * computed lazily by the caller; a failure surfaces in the reading expression as the variable's error.
   */
  variable(i: number): ExprOutcome;
}

export interface DirectEngine {
  /**
   * An activation with `scope`'s request, old object, params and namespace (those `reads` says are read), and
   * variables `names` read through `variables`. `names` is the caller's, kept per policy: the engine may key on it.
   */
  activation(scope: ExprScope, names: readonly string[], variables: DirectVariables, reads: DirectReads): DirectActivation;
}

/** Which request-derived entries some expression of a run reads. */
export interface DirectReads {
  readonly params: boolean;
  readonly request: boolean;
  readonly namespace: boolean;
}

/**
 * Scratch space of one evaluation (one `apply` call) where engines keep what they derived from the documents,
 * each under a key of its own. Documents are copy-on-write and the interpreter never writes in place into a
 * container it handed to an engine, so facts about a container stay true for the whole evaluation.
 */
export interface EvalMemo {
  get(key: unknown): unknown;
  set(key: unknown, value: unknown): unknown;
  has(key: unknown): boolean;
}

/** What an engine is told about the evaluation it serves. */
export interface EngineContext {
  request: AdmissionRequest;
  runtime: Runtime;
  memo?: EvalMemo;
}

/**
 * The maps earlier merges of this evaluation created (copy-on-write across merges): each is referenced once,
 * from the current object only, never by a snapshot, a variable or the patch. An engine may change them in
 * place (and says so with `inPlace`); it adds the maps it creates, which the interpreter then keeps out of
 * every other hand until the next snapshot point (ops/merge.ts).
 */
export interface MergeOwnership {
  has(v: object): boolean;
  add(v: object): void;
}

/**
 * A merge strategy provided outside the core (strategic merge for Kyverno, structured merge for MAP).
 * `identityExact`: the engine returns the target itself whenever the merge leaves it equal, so a result that
 * is not the target is a change and the interpreter skips its deep comparison. `writesOwned`: the engine
 * takes `owned` (MergeOwnership); its `inPlace` says maps of it were changed in place (the result may then
 * be the target itself, changed). `patchShape`: the keys of the patch's maps, when the op's expression says
 * them (src/compile/apply-template.ts), for the engine to plan its walk by; valid for the patch as given only.
 */
export type MergeEngine = ((
  target: JsonValue | undefined,
  patch: JsonValue,
  context: EngineContext & { op: MergeOp; owned?: MergeOwnership; patchShape?: PatchShape },
) => { ok: true; value: JsonValue; inPlace?: boolean } | { ok: false; diagnostic: Diagnostic }) & { readonly identityExact?: boolean; readonly writesOwned?: boolean };

/** Substitutes variables throughout a templated JSON tree (Kyverno `{{ }}` in patches). */
export interface TemplateEngine {
  compile(value: TemplatedValue): { ok: true; fn: CompiledExpr } | { ok: false; diagnostics: Diagnostic[] };
}

/**
 * The strict decode kube-apiserver runs on a JSONPatch result before it accepts it (MAP patch/json_patch.go:
 * the patched JSON is decoded into the kind's Go type; unknown fields fail the request as an InternalError,
 * whatever the failure policy). Returns the error message, or undefined when the object decodes. `before`: the
 * document the patch was applied to, when known (what the result shares with it decoded before).
 */
export type TypedDecoder = ((object: JsonValue, context: EngineContext & { edit?: DocumentEdit; patched?: PatchedDocument; before?: JsonValue }) => string | undefined) & {
  /**
   * The decoder takes `patched` (a patch that may have written in place into the maps earlier merges
   * created, ops/json-patch.ts); without it, every JSONPatch copies what it changes and ends their ownership.
   */
  readonly inPlaceEdits?: boolean;
};

/**
 * How a JSONPatch result was made from `from` by src/jsonpatch/evanphx-v4-in-place.ts: `changed`, the
 * containers of `from` changed in place (what a decoder knows about them by identity is stale), `sets` the
 * places set; every other container is `from`'s own or a copy of one with only those places set.
 */
export interface PatchedDocument {
  readonly from: JsonValue;
  readonly changed: readonly object[];
  readonly sets: readonly PatchSet[];
}

/**
 * How a JSONPatch result was made from the document the patch was applied to (`from`), when one step did
 * it: `at` the object members from the root down to the one member set (added or replaced), every other
 * member of the containers along it being `from`'s own; or, `removed`, a member or item taken out. A decoder
 * that knows `from` decodes may then look at that path only.
 */
export interface DocumentEdit {
  readonly from: JsonValue;
  readonly at: readonly string[];
  readonly removed: boolean;
}


