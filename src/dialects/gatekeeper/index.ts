/** The `gatekeeper` dialect: Assign, AssignMetadata, ModifySet and AssignImage mutators (mutations.gatekeeper.sh). */
import { RAISE_KYVERNO, RAISE_MAP } from '../../lowering/index.js';
import type { Dialect } from '../dialect.js';
import { generateGatekeeper } from './generate.js';
import { isGatekeeperMutator } from './mutators.js';
import { parseGatekeeper } from './parse.js';
import { isExpansionTemplateDoc } from './expansion/template.js';
import { validateTemplateDoc } from './expansion/validate.js';

export const gatekeeperDialect: Dialect = {
  name: 'gatekeeper',
  // ExpansionTemplates are read here so that they are admitted as Gatekeeper's webhook admits them; only
  // `transmute expand` runs them (parse reports them as ignored, TM2010).
  recognizes: (doc) => isGatekeeperMutator(doc) || isExpansionTemplateDoc(doc),
  validate: (doc) => (isExpansionTemplateDoc(doc) ? validateTemplateDoc(doc) : []),
  parse: (docs, opts) => parseGatekeeper(docs, opts),
  // Gatekeeper expresses neither strategic merge nor CEL: both sources are raised to path operations first.
  lowerings: [...RAISE_KYVERNO, ...RAISE_MAP],
  generate: (policies, opts) => generateGatekeeper(policies, opts),
};

export { parseGatekeeper } from './parse.js';
export { generateGatekeeper } from './generate.js';
export { mutationAnnotations } from './annotations.js';
