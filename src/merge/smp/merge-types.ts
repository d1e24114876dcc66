/** The result and failure shapes of the kyaml merge (shared by merge.ts and its reference form merge-full.ts). */
import type { JsonValue } from '../../ir/json.js';

export interface MergeFailure {
  /** `kind` = the patch and the resource disagree on a node's kind (kyaml ErrorIfInvalid). */
  kind: 'kind' | 'directive' | 'other';
  message: string;
  path: string[];
}

export type MergeOutcome = { ok: true; value: JsonValue } | { ok: false; error: MergeFailure };

export interface KyamlMergeOptions {
  /** The apiVersion/kind whose schema drives the merge; default: the resource's, else the patch's. */
  apiVersion?: string;
  kind?: string;
}

/** One walk step: the value to set (undefined = clear) and whether it is the resource node merged in place. */
export type Step = { ok: true; value: JsonValue | undefined; inPlace: boolean } | { ok: false; error: MergeFailure };
