/** The result and failure shapes of the kyaml merge (shared by merge.ts and its reference form merge-full.ts). */
import type { JsonValue } from '../../ir/json.js';
import type { NormalForms } from './normal-forms.js';

export interface MergeFailure {
  /** `kind` = the patch and the resource disagree on a node's kind (kyaml ErrorIfInvalid). */
  kind: 'kind' | 'directive' | 'other';
  message: string;
  path: string[];
}

/** `inPlace`: containers of the resource the caller handed over as owned (KyamlMergeOptions.owned) were changed. */
export type MergeOutcome = { ok: true; value: JsonValue; inPlace?: boolean } | { ok: false; error: MergeFailure };

/**
 * The maps an earlier merge of the same evaluation created and handed to the caller, which guarantees that
 * each is referenced only from the current document (once) and by no snapshot, variable or other engine.
 */
export interface MergeOwnership {
  has(v: object): boolean;
  add(v: object): void;
}

export interface KyamlMergeOptions {
  /** The apiVersion/kind whose schema drives the merge; default: the resource's, else the patch's. */
  apiVersion?: string;
  kind?: string;
  /**
   * Containers already known to be in normal form (see merge.ts isNormal), with the schema they were checked
   * under. Only for callers that guarantee no container in it is ever changed in place afterwards (the
   * interpreter's EvalMemo: one evaluation, copy-on-write); the merge adds what it verifies.
   */
  normalForms?: NormalForms;
  /**
   * Copy-on-write across merges: the merge writes in place into the maps in this set (and reports it with
   * `inPlace`), and adds every map it creates. Writes are applied only once the whole merge succeeded.
   */
  owned?: MergeOwnership;
}

/** One walk step: the value to set (undefined = clear) and whether it is the resource node merged in place. */
export type Step = { ok: true; value: JsonValue | undefined; inPlace: boolean } | { ok: false; error: MergeFailure };
