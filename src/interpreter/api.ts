import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Origin } from '../diagnostics/span.js';
import type { JsonValue } from '../ir/json.js';
import type { AdmissionRequest } from '../k8s/request.js';

/** One step of an evaluation, for `--explain` and tests: what ran or was skipped, and what decided it. */
export interface TraceEvent {
  policy: string;
  rule?: string;
  /** `policy`, `rule`, the op kind, or `pass` for fix-point passes. */
  node: string;
  outcome: 'applied' | 'unchanged' | 'skipped' | 'error' | 'not-matched';
  /** Why: the guard or match that decided, or the error. */
  reason?: string;
  origin?: Origin;
  pass?: number;
}

export interface Patch6902 {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

export interface ApplyResult {
  /**
   * The object after every policy ran; the input object when nothing changed. It shares what did not change
   * with the input and with constant values of the policies (some of them frozen): treat it as read-only.
   */
  object: JsonValue | null;
  patch: Patch6902[];
  trace: TraceEvent[];
  diagnostics: Diagnostic[];
  /** False when an error stopped the request (the admission would be denied). */
  allowed: boolean;
}

export type { AdmissionRequest };

export interface ApplyOptions {
  /** Upper bound on fix-point passes when the policy does not set one. */
  maxPasses?: number;
  /** Record a trace (costs a little time per op). Default true. */
  trace?: boolean;
  /** Compute the RFC 6902 patch. Default true. */
  patch?: boolean;
  /**
   * Run every policy with the closure interpreter, the reference, instead of the code generated per policy
   * (src/compile). Both give the same results (test/compile/); this exists for that comparison. Default false.
   */
  interpret?: boolean;
  /**
   * How Kyverno's policy context is made, which decides the object its `images` are parsed from: the loader is
   * registered once, on the context's resource (pkg/engine/context AddImageInfos), so a rule after one that
   * rewrote an image still reads the image the object had.
   * - `webhook` (default): once per admission request, shared by the policies (webhooks/resource/mutation
   *   applyMutations): every policy reads the request object's images; a DELETE, whose request has no object,
   *   has none.
   * - `cli`: once per policy, as `kyverno apply` and `kyverno test` do (processor ApplyPoliciesOnResource): a
   *   policy reads the images of the object it starts from (the old object on DELETE).
   */
  kyvernoContext?: 'webhook' | 'cli';
  /**
   * The object Kyverno's context was made from, where it is not the request's (a mutate-existing target, whose
   * context is its trigger's: background/common NewBackgroundContext); overrides `kyvernoContext`.
   */
  kyvernoContextObject?: JsonValue | null;
}
