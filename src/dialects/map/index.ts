/** The MutatingAdmissionPolicy dialect (admissionregistration.k8s.io v1alpha1, v1beta1, v1). */
import type { Dialect } from '../dialect.js';
import { generateMap, MAP_API_VERSIONS } from './generate.js';
import { parseMap } from './parse.js';
import { recognizes } from './recognize.js';

export const mapDialect: Dialect = {
  name: 'map',
  recognizes,
  parse: parseMap,
  lowerings: [],
  generate: generateMap,
  apiVersions: MAP_API_VERSIONS,
};

// A MAP policy runs with the runtime's `cel-kubernetes` engine and structured merge (src/engines/cel.ts, ssa.ts).
