/** Kyverno's CEL MutatingPolicy dialect (policies.kyverno.io v1alpha1, v1beta1, v1; NamespacedMutatingPolicy). */
import type { Dialect } from '../dialect.js';
import { generateMpol, MPOL_API_VERSIONS } from './generate.js';
import { parseMpol } from './parse.js';
import { recognizes } from './recognize.js';
import { mpolAdmissionChecks } from './admission.js';

export const kyvernoMpolDialect: Dialect = {
  name: 'kyverno-mpol',
  recognizes,
  validate: mpolAdmissionChecks,
  parse: parseMpol,
  lowerings: [],
  generate: generateMpol,
  apiVersions: MPOL_API_VERSIONS,
};

// Mutations run as MAP's do (structured merge, evanphx JSON patch) with Kyverno's CEL environment: the
// runtime's `cel-kyverno` engine (./cel-engine.ts); its cluster data is the runtime's `kyvernoData`.
export { readMpolDocuments, lowerMpol } from './parse.js';
// Mutate existing: running it (as the Kyverno CLI and as the background controller do), and writing Kyverno
// mutate.targets rules as MutatingPolicies (read from the documents: the admission IR does not hold them).
export { generateMutateExistingMpol, translateMutateExistingRules, MAP_CANNOT_MUTATE_EXISTING } from './generate-existing.js';
