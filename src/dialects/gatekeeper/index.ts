/** The `gatekeeper` dialect: Assign, AssignMetadata, ModifySet and AssignImage mutators (mutations.gatekeeper.sh). */
import { RAISE_KYVERNO, RAISE_MAP } from '../../lowering/index.js';
import type { Dialect } from '../dialect.js';
import { gatekeeperCapabilities } from './capabilities.js';
import { generateGatekeeper } from './generate.js';
import { isGatekeeperMutator } from './mutators.js';
import { parseGatekeeper } from './parse.js';

export const gatekeeperDialect: Dialect = {
  name: 'gatekeeper',
  capabilities: gatekeeperCapabilities,
  recognizes: isGatekeeperMutator,
  parse: (docs, opts) => parseGatekeeper(docs, opts),
  // Gatekeeper expresses neither strategic merge nor CEL: both sources are raised to path operations first.
  lowerings: [...RAISE_KYVERNO, ...RAISE_MAP],
  generate: (policies, opts) => generateGatekeeper(policies, opts),
};

export { parseGatekeeper } from './parse.js';
export { generateGatekeeper } from './generate.js';
export { mutationAnnotations } from './annotations.js';
