/**
 * The Kyverno dialect: ClusterPolicy / Policy mutate rules read into the IR and executed as Kyverno does. Its
 * IR needs the runtime's `jmespath-kyverno` expression engine, `kyverno` template engine and `smp` merge
 * engine (src/engines/jmes.ts, smp.ts), which the default runtime holds.
 */
import { inlineCelConstants } from '../../lowering/cel-kyverno/inline.js';
import { raiseApplyConfigurationComputed } from '../../lowering/raise-apply-configuration.js';
import { raiseCelGuards } from '../../lowering/raise-cel-guards.js';
import { raiseGuardedSets } from '../../lowering/raise-guarded-sets.js';
import type { Dialect } from '../dialect.js';
import { generateKyverno } from './generate.js';
import { parseKyverno, recognizesKyverno } from './parse.js';
import { kyvernoAdmissionChecks } from './admission/index.js';

export const kyvernoDialect: Dialect = {
  name: 'kyverno',
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
