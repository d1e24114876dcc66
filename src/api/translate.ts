/**
 * The library's translation: what `transmute translate` runs (pipeline.ts translateDocuments: optimize, the
 * target's lowerings and generator, the Kyverno mutate-existing rules, then the target cluster's admission of
 * what was written).
 */
import type { Dialect, GenerateResult, MutationAnnotations } from '../dialects/dialect.js';
import type { Policy } from '../ir/nodes.js';
import type { SourceDoc } from '../io/source.js';
import { translateDocuments } from '../pipeline.js';

export interface TranslateOptions {
  /** The target: `kyverno`, `kyverno-mpol`, `gatekeeper`, `map`, `ir`, or a dialect of one's own. */
  to: string | Dialect;
  /** What a construct the target cannot express does (default `error`: nothing is written). */
  unsupported?: 'error' | 'warn' | 'ignore';
  /** The target API version (default: the newest the target has). */
  apiVersion?: string;
  /** The Gatekeeper mutators run with Gatekeeper's `--mutation-annotations`: the translation writes them too. */
  mutationAnnotations?: MutationAnnotations;
}

/** `loaded` as loadPolicies returns it: its policies, and the documents they came from. */
export function translate(loaded: { policies: readonly Policy[]; documents: readonly SourceDoc[] }, opts: TranslateOptions): GenerateResult {
  const settings = { ...(opts.apiVersion !== undefined ? { apiVersion: opts.apiVersion } : {}), ...(opts.mutationAnnotations ? { mutationAnnotations: opts.mutationAnnotations } : {}) };
  return translateDocuments(loaded.documents, loaded.policies, opts.to, opts.unsupported ?? 'error', settings);
}
