import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Policy } from '../ir/nodes.js';
import type { SourceDoc } from '../io/source.js';
import type { Runtime } from '../runtime/runtime.js';

export interface ParseOptions {
  /** Documents of the same input that are not this dialect's policies (bindings, params) are passed along. */
  siblings?: readonly SourceDoc[];
  /**
   * The environment the policies will run in, for what a cluster decides when it reads a policy: the custom
   * kinds it serves (a MutatingAdmissionPolicy's paramKind resolves against them).
   */
  runtime?: Runtime;
  /**
   * Who picks a MutatingAdmissionPolicy binding's params: kube-apiserver (the default: one invocation per
   * param the paramRef selects), or the Kyverno CLI (`kyverno test`, `kyverno apply`), which evaluates once with
   * every param a selector matches in one list (src/dialects/map/params.ts kyvernoCliVariants).
   */
  paramResolution?: 'apiserver' | 'kyverno-cli';
}

export interface ParseResult {
  policies: Policy[];
  diagnostics: Diagnostic[];
}

export interface GenerateOptions {
  unsupported?: 'ignore' | 'warn' | 'error';
  /** The API version to write (`v1`, `v1beta1`, ...); each dialect lists its own and defaults to the newest. */
  apiVersion?: string;
  /**
   * The Gatekeeper mutators translated run with `--mutation-annotations` (a flag of Gatekeeper's deployment):
   * the translation writes the annotations too, or says why it cannot.
   */
  mutationAnnotations?: MutationAnnotations;
}

/** Gatekeeper's `--mutation-annotations`: the mutators' `metadata.generation` (1 for one created once, never changed). */
export interface MutationAnnotations {
  generation: number;
}

export interface GenerateResult {
  documents: unknown[];
  text: string;
  diagnostics: Diagnostic[];
}

export interface Dialect {
  name: string;
  /** True when the document is one this dialect reads (by apiVersion and kind). */
  recognizes(doc: SourceDoc): boolean;
  /**
   * The engine's own admission checks of one document (its webhook's policy validation), run after the API
   * server's structural checks have passed; absent when the engine adds none.
   */
  validate?(doc: SourceDoc): Diagnostic[];
  /** Parses every recognized document of one input together (a MAP policy needs its bindings). */
  parse(docs: readonly SourceDoc[], opts?: ParseOptions): ParseResult;
  /** IR-to-IR rewrites run before `generate`. */
  lowerings: ReadonlyArray<(policies: Policy[]) => Policy[]>;
  generate(policies: readonly Policy[], opts?: GenerateOptions): GenerateResult;
  /** The API versions `generate` can write, newest (the default) first; absent when the dialect has one. */
  apiVersions?: readonly string[];
}
