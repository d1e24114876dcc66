/**
 * The Kyverno dialect: ClusterPolicy / Policy mutate rules read into the IR and executed as Kyverno does.
 * Importing it registers the engines its IR needs (the `jmes` expression engine, the `kyverno` template
 * engine and the `smp` merge engine); registration is idempotent.
 */
import { registerJmesEngine } from '../../engines/jmes.js';
import { registerSmpEngine } from '../../engines/smp.js';
import { inlineCelConstants } from '../../lowering/cel-kyverno/inline.js';
import { raiseApplyConfigurationComputed } from '../../lowering/raise-apply-configuration.js';
import { raiseCelGuards } from '../../lowering/raise-cel-guards.js';
import { raiseGuardedSets } from '../../lowering/raise-guarded-sets.js';
import type { Dialect } from '../dialect.js';
import { KYVERNO_CAPABILITIES } from './capabilities.js';
import { generateKyverno } from './generate.js';
import { parseKyverno, recognizesKyverno } from './parse.js';
import { kyvernoAdmissionChecks } from './admission/index.js';

registerJmesEngine();
registerSmpEngine();

export const kyvernoDialect: Dialect = {
  name: 'kyverno',
  capabilities: KYVERNO_CAPABILITIES,
  recognizes: recognizesKyverno,
  // Kyverno's webhook validation of ClusterPolicy and Policy documents (pkg/validation/policy).
  validate: kyvernoAdmissionChecks,
  parse: parseKyverno,
  // Kyverno keeps its own strategic merge; MAP's apply configurations and CEL conditions are raised first
  // (RAISE_MAP, with computed values: the generator compiles CEL to JMESPath), after params and variables
  // are written into the CEL.
  lowerings: [inlineCelConstants, raiseCelGuards, raiseApplyConfigurationComputed, raiseGuardedSets],
  generate: (policies, opts) => generateKyverno(policies, opts),
};

export { parseKyverno, recognizesKyverno } from './parse.js';
export { generateKyverno } from './generate.js';
