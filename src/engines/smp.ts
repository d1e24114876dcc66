/**
 * The `smp` merge engine: Kyverno's patchStrategicMerge (src/merge/smp) behind the interpreter's merge op.
 * A failed condition anchor is not an error: upstream merges an empty patch instead and the rule is skipped
 * when nothing changed (strategicMergePatch.go), which is what `strategicMerge` returns.
 */
import { diagnostic } from '../diagnostics/diagnostic.js';
import { registerMergeEngine, type MergeEngine } from '../interpreter/engines.js';
import { strategicMerge } from '../merge/smp/index.js';

const SMP_ENGINE: MergeEngine = (target, patch, { op }) => {
  const r = strategicMerge(target ?? {}, patch);
  if (r.ok) return { ok: true, value: r.value.value };
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

export function registerSmpEngine(): void {
  registerMergeEngine('smp', SMP_ENGINE);
}
