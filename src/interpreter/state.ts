import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { JsonValue } from '../ir/json.js';
import type { Policy } from '../ir/nodes.js';
import type { AdmissionRequest } from '../k8s/request.js';
import type { Runtime } from '../runtime/runtime.js';
import type { TraceEvent } from './api.js';
import type { EvalMemo } from './engines.js';
import type { Owned } from './walk.js';

/** External data offline: provider → key → value, or an error message the provider returns for that key. */
export type ExternalData = Record<string, Record<string, JsonValue | { error: string }>>;

/**
 * Called when a fix-point system converged after changing the object (pass > 1), with the policies whose ops
 * reached their place in some non-final pass; returns the object to keep. Gatekeeper's
 * `--mutation-annotations` is one (pkg/mutation/system.go Mutate → annotateMutations).
 */
export type FixpointConverged = (object: JsonValue, applied: readonly Policy[]) => JsonValue;

/** The mutable state of one evaluation. `object` is replaced (never mutated) whenever an op changes it. */
export interface EvalState {
  object: JsonValue | null;
  readonly request: AdmissionRequest;
  /** The engines, schemas and outside data this evaluation runs with. */
  readonly runtime: Runtime;
  readonly trace: TraceEvent[] | undefined;
  readonly diagnostics: Diagnostic[];
  readonly externalData: ExternalData | undefined;
  /** How many external-data placeholders were written; resolution is skipped when none. */
  placeholders: number;
  /** How many times an op reached its target place, changed or not (Gatekeeper counts a setter call as a mutation). */
  writes: number;
  readonly onFixpointConverged: FixpointConverged | undefined;
  /** The request rebuilt around the current object, for matching (see run-policy.ts currentRequest). */
  matchRequest: AdmissionRequest | undefined;
  /** The last request currentRequest built, kept across in-place writes: its object is still `object` then. */
  matchRequestKept: AdmissionRequest | undefined;
  /**
   * Maps and lists created by this evaluation since the last snapshot point (policy, rule, op when tracing):
   * referenced from nowhere else, so later writes change them in place. Reset whenever a snapshot is taken or
   * a value read from the object could be stored twice, so identity still tells "changed since the snapshot".
   */
  owned: Owned;
  /**
   * The maps root merges created (MergeOwnership), written in place by later merges. Valid only while `owned`
   * is still `epoch`: every snapshot point and every value read from the object and stored starts a new
   * epoch, and so ends them too (ops/merge.ts).
   */
  merges: { epoch: Owned; owned: Owned } | undefined;
  policyId: string;
  ruleName: string | undefined;
  /** Kyverno's context is made once per policy (ApplyOptions.kyvernoContext `cli`): a Kyverno policy's start sets imagesSource. */
  readonly kyvernoContextPerPolicy: boolean;
  /** The object Kyverno's context was made from, its `images`' (ExprScope.imagesSource). */
  imagesSource: JsonValue | null;
  /** Engines' facts about this evaluation's documents, created on first use (see EvalMemo). */
  memo: EvalMemo | undefined;
}

export function evalMemo(st: EvalState): EvalMemo {
  return (st.memo ??= new SmallMemo());
}

/**
 * An EvalMemo for the few keys an evaluation has (one per engine that keeps facts: two or three), in fields;
 * a Map is made past them. One is made per evaluation, and a Map with its table cost more than the look-ups
 * it serves (issue 17).
 */
export class SmallMemo implements EvalMemo {
  private k0: unknown = undefined;
  private v0: unknown = undefined;
  private k1: unknown = undefined;
  private v1: unknown = undefined;
  private k2: unknown = undefined;
  private v2: unknown = undefined;
  private rest: Map<unknown, unknown> | undefined = undefined;

  get(key: unknown): unknown {
    if (key === this.k0) return this.v0;
    if (key === this.k1) return this.v1;
    if (key === this.k2) return this.v2;
    return this.rest?.get(key);
  }

  has(key: unknown): boolean {
    return (key === this.k0 && this.k0 !== undefined) || (key === this.k1 && this.k1 !== undefined) || (key === this.k2 && this.k2 !== undefined) || this.rest?.has(key) === true;
  }

  set(key: unknown, value: unknown): this {
    if (key === undefined) throw new TypeError('transmute: an evaluation memo key may not be undefined');
    if (key === this.k0 || this.k0 === undefined) {
      this.k0 = key;
      this.v0 = value;
    } else if (key === this.k1 || this.k1 === undefined) {
      this.k1 = key;
      this.v1 = value;
    } else if (key === this.k2 || this.k2 === undefined) {
      this.k2 = key;
      this.v2 = value;
    } else (this.rest ??= new Map()).set(key, value);
    return this;
  }
}
