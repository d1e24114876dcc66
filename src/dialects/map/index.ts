/** The MutatingAdmissionPolicy dialect (admissionregistration.k8s.io v1alpha1, v1beta1, v1). */
import { registerCelEngine } from '../../engines/cel.js';
import { registerSsaEngine } from '../../engines/ssa.js';
import type { Dialect } from '../dialect.js';
import { mapCapabilities } from './capabilities.js';
import { generateMap, MAP_API_VERSIONS } from './generate.js';
import { parseMap } from './parse.js';
import { recognizes } from './recognize.js';

export const mapDialect: Dialect = {
  name: 'map',
  capabilities: mapCapabilities,
  recognizes,
  parse: parseMap,
  lowerings: [],
  generate: generateMap,
  apiVersions: MAP_API_VERSIONS,
};

// A MAP policy needs CEL and the structured merge to run; both registrations are idempotent.
registerCelEngine();
registerSsaEngine();
