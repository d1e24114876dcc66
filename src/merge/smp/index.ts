/**
 * Kyverno's patchStrategicMerge (pkg/engine/mutate/patch/strategicMergePatch.go `ProcessStrategicMergePatch`):
 * (a) anchor preprocessing of the pattern against the resource (anchors.ts; common pattern shapes compiled
 * once by anchors-fast.ts), then (b) kyaml's strategic merge with Kyverno's settings (merge.ts, with its
 * step-by-step reference merge-full.ts). A failed condition or global condition does not stop the merge:
 * upstream merges an empty patch instead (which still normalises the resource's associative lists) and the
 * rule is skipped when nothing changed; `skipped` carries the condition's message.
 */
import { diagnostic, fail, ok, type Result } from '../../diagnostics/index.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import { needsPreprocessing, preprocessPattern } from './anchors.js';
import { compileFastPattern, runFastPattern, type FastPattern } from './anchors-fast.js';
import { compileMerge, runCompiledMerge, type CompiledMerge } from './compiled-merge.js';
import { kyamlMerge, type MergeFailure, type MergeOwnership, type NormalForms } from './merge.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface StrategicMergeOptions {
  /** The kind whose Kubernetes 1.21.2 schema drives list merging; default: the resource's apiVersion/kind. */
  kind?: GroupVersionKind;
  /** See KyamlMergeOptions.normalForms. */
  normalForms?: NormalForms;
  /** See KyamlMergeOptions.owned. */
  owned?: MergeOwnership;
  /** Always the general path, never the pattern's specialised merge (its reference, for differential tests). */
  reference?: boolean;
}

export interface StrategicMergeValue {
  value: JsonValue;
  /** Set when a condition anchor failed: the patch was reduced to `{}` (rule skip unless the merge changed anything). */
  skipped?: string;
  /** Maps handed over in `owned` were changed in place (`value` may then be the resource itself). */
  inPlace?: boolean;
}

const NO_OPTIONS = {};
const EMPTY_PATCH: JsonValue = Object.freeze({}) as JsonValue;

/**
 * What stage (a) needs for one pattern: nothing, the compiled form (anchors-fast.ts), or anchors.ts; and the
 * pattern's specialised merge (compiled-merge.ts), built when the pattern is met a second time (a pattern
 * substituted per resource is a fresh object each time and would pay for a compilation it never reuses).
 */
interface PatternPlan {
  stageA: boolean;
  fast: FastPattern | undefined;
  /** null: the pattern has no specialised form; undefined: not compiled yet. */
  compiled: CompiledMerge | null | undefined;
  uses: number;
}

const ALWAYS_STAGE_A: PatternPlan = { stageA: true, fast: undefined, compiled: null, uses: 0 };

// Patterns are usually the same object for many resources (compile once, evaluate many); one entry per
// pattern, as substituted patterns are fresh objects every time.
const plans = new WeakMap<object, PatternPlan>();

function planOf(patch: JsonValue): PatternPlan {
  if (!isJsonObject(patch)) return ALWAYS_STAGE_A;
  let plan = plans.get(patch);
  if (plan === undefined) {
    const stageA = needsPreprocessing(patch);
    plan = { stageA, fast: stageA ? compileFastPattern(patch) : undefined, compiled: undefined, uses: 0 };
    plans.set(patch, plan);
  }
  return plan;
}

/** The pattern's specialised merge (compiled-merge.ts), compiled now if it has one; shared with strategicMerge. */
export function compiledPattern(patch: JsonValue): CompiledMerge | undefined {
  const plan = planOf(patch);
  if (plan.compiled === undefined) plan.compiled = compileMerge(patch) ?? null;
  return plan.compiled ?? undefined;
}

/**
 * The pattern's specialised merge if strategicMerge has built it (at the pattern's second use), without
 * counting a use: a caller that takes the general path otherwise leaves the counting to strategicMerge.
 */
export function compiledPatternIfBuilt(patch: JsonValue): CompiledMerge | undefined {
  if (!isJsonObject(patch)) return undefined;
  return plans.get(patch)?.compiled ?? undefined;
}

/** Applies a patchStrategicMerge pattern to a resource as Kyverno does. Neither input is modified (but see `owned`). */
export function strategicMerge(resource: JsonValue, patch: JsonValue, opts: StrategicMergeOptions = {}): Result<StrategicMergeValue> {
  let plainPatch = patch;
  let skipped: string | undefined;
  const plan = planOf(patch);
  if (plan.compiled !== null && opts.kind === undefined && opts.reference !== true) {
    const compiled = plan.compiled ?? (++plan.uses >= 2 ? (plan.compiled = compileMerge(patch) ?? null) : undefined);
    const outcome = compiled ? runCompiledMerge(compiled, resource, opts.normalForms, opts.owned) : undefined;
    if (outcome !== undefined) return ok(outcome);
  }
  if (plan.stageA) {
    const pre = (plan.fast !== undefined ? runFastPattern(plan.fast, resource) : undefined) ?? preprocessPattern(patch, resource);
    if (pre.ok) plainPatch = pre.patch;
    else if (pre.error.kind === 'error') return failure(`failed to preProcess rule: ${pre.error.message}`);
    else {
      plainPatch = EMPTY_PATCH;
      skipped = pre.error.message;
    }
  }
  const gvk = opts.kind;
  const merged = kyamlMerge(
    resource,
    plainPatch,
    gvk
      ? { apiVersion: gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`, kind: gvk.kind, normalForms: opts.normalForms, owned: opts.owned }
      : opts.normalForms !== undefined || opts.owned !== undefined
        ? { normalForms: opts.normalForms, owned: opts.owned }
        : NO_OPTIONS,
  );
  if (!merged.ok) return failure(`failed to apply patchStrategicMerge: ${describe(merged.error)}`, merged.error.kind === 'kind');
  const value: StrategicMergeValue = { value: merged.value };
  if (skipped !== undefined) value.skipped = skipped;
  if (merged.inPlace === true) value.inPlace = true;
  return ok(value);
}

function describe(e: MergeFailure): string {
  return e.path.length > 0 && e.kind !== 'kind' ? `${e.message} (at ${e.path.join('.')})` : e.message;
}

function failure(message: string, shape = false): Result<StrategicMergeValue> {
  return fail(diagnostic(shape ? 'TM3001' : 'TM3004', { phase: 'eval', dialect: 'kyverno', message }));
}

export { preprocessPattern, type PreprocessOutcome, type PreprocessError } from './anchors.js';
export { CompiledMergeRun, type CompiledMerge } from './compiled-merge.js';
export { fuseMerges, writtenPlaces, type WrittenPlaces } from './fused-merge.js';
export { kyamlMerge, NormalForms, type KyamlMergeOptions, type MergeOutcome, type MergeFailure, type MergeOwnership } from './merge.js';
export { matchPattern, type MatchError } from './pattern-match.js';
export { schemaForResourceType, knownResourceTypes } from './schema.js';
