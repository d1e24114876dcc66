/**
 * The Kyverno dialect's conformance hooks. Kyverno CLI and unit cases run through the admission runner with
 * the Kyverno engines registered (JMESPath, `{{ }}` templates, strategic merge); mutate-existing cases run
 * the `mutate.targets` rules over their supplied target resources.
 */
import { registerJmesEngine } from '../../engines/jmes.js';
import { registerSmpEngine } from '../../engines/smp.js';
import { registerCaseRunner, type CaseRunner } from '../runners.js';
import { runAdmissionCase } from '../runners/admission.js';
import { runMutateExistingCase } from '../runners/mutate-existing.js';

import type { AdmissionCase } from '../types.js';

function withKyvernoEngines<F extends 'kyverno-cli' | 'kyverno-unit'>(): CaseRunner<F> {
  return (c: AdmissionCase, ctx) => {
    registerJmesEngine();
    registerSmpEngine();
    if (c.mutateExisting) return runMutateExistingCase(c, ctx);
    return runAdmissionCase(c, ctx);
  };
}

registerCaseRunner('kyverno-cli', withKyvernoEngines<'kyverno-cli'>());
registerCaseRunner('kyverno-unit', withKyvernoEngines<'kyverno-unit'>());
