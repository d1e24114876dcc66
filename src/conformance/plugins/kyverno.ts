/**
 * The Kyverno dialect's conformance runner (listed in ../runners.ts). Kyverno CLI and unit cases run through the
 * admission runner (the runtime's JMESPath, `{{ }}` templates and strategic merge); mutate-existing cases run
 * the `mutate.targets` rules over their supplied target resources.
 */
import type { RunContext } from '../runners/context.js';
import { runAdmissionCase } from '../runners/admission.js';
import { runMutateExistingCase } from '../runners/mutate-existing.js';
import type { AdmissionCase, CaseResult } from '../types.js';

export function runKyvernoCase(c: AdmissionCase, ctx: RunContext): CaseResult {
  if (c.mutateExisting) return runMutateExistingCase(c, ctx);
  return runAdmissionCase(c, ctx);
}
