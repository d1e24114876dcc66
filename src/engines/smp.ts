/**
 * The `smp` merge engine: Kyverno's patchStrategicMerge (src/merge/smp) behind the interpreter's merge op.
 * A failed condition anchor is not an error: upstream merges an empty patch instead and the rule is skipped
 * when nothing changed (strategicMergePatch.go), which is what `strategicMerge` returns.
 */
import { diagnostic } from '../diagnostics/diagnostic.js';
import type { EvalMemo, MergeEngine } from '../interpreter/engines.js';
import { NormalForms, strategicMerge } from '../merge/smp/index.js';

const NORMAL_FORMS = Symbol('smp normal forms');

/**
 * The containers of this evaluation's documents the merge verified to be in normal form: later rules' merges
 * meet the same untouched subtrees and skip them. Sound because the interpreter never writes in place into a
 * container it handed to an engine (EvalMemo), and the memo lives no longer than the evaluation.
 */
export function smpNormalForms(memo: EvalMemo): NormalForms;
export function smpNormalForms(memo: EvalMemo | undefined): NormalForms | undefined;
export function smpNormalForms(memo: EvalMemo | undefined): NormalForms | undefined {
  if (memo === undefined) return undefined;
  let forms = memo.get(NORMAL_FORMS) as NormalForms | undefined;
  if (forms === undefined) memo.set(NORMAL_FORMS, (forms = new NormalForms()));
  return forms;
}

const strategicMergeEngine: MergeEngine = (target, patch, { op, memo, owned }) => {
  const r = strategicMerge(target ?? {}, patch, { normalForms: smpNormalForms(memo), owned });
  if (r.ok) return r.value.inPlace === true ? { ok: true, value: r.value.value, inPlace: true } : { ok: true, value: r.value.value };
  const first = r.diagnostics[0];
  return {
    ok: false,
    diagnostic: diagnostic(first?.code ?? 'TM3004', {
      phase: 'eval',
      message: first?.message ?? 'strategic merge failed',
      span: first?.span ?? op.origin,
      dialect: op.origin.dialect,
    }),
  };
};

// kyamlMerge returns the target itself exactly when the merge leaves it equal or changed it in place, which
// it reports (merge/smp/merge.ts).
export const SMP_ENGINE: MergeEngine = Object.assign(strategicMergeEngine, { identityExact: true, writesOwned: true } as const);
