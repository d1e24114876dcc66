/**
 * The Kyverno dialect's conformance hooks. Kyverno CLI and unit cases run through the admission runner with
 * the Kyverno engines registered (JMESPath, `{{ }}` templates, strategic merge); mutate-existing cases need
 * target resources the runner does not simulate yet and say so.
 */
import { registerJmesEngine } from '../../engines/jmes.js';
import { registerSmpEngine } from '../../engines/smp.js';
import { registerCaseRunner, type CaseRunner } from '../runners.js';
import { runAdmissionCase } from '../runners/admission.js';

import type { AdmissionCase } from '../types.js';

function withKyvernoEngines<F extends 'kyverno-cli' | 'kyverno-unit'>(): CaseRunner<F> {
  return (c: AdmissionCase, ctx) => {
    registerJmesEngine();
    registerSmpEngine();
    if (c.mutateExisting) return { status: 'unsupported', reason: 'kyverno mutate.targets (mutate existing) is not implemented in the Kyverno dialect yet' };
    return runAdmissionCase(c, ctx);
  };
}

registerCaseRunner('kyverno-cli', withKyvernoEngines<'kyverno-cli'>());
registerCaseRunner('kyverno-unit', withKyvernoEngines<'kyverno-unit'>());
