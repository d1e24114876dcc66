/** Gatekeeper's expansion of workloads into the resources they create (ExpansionTemplate, `gator expand`). */
export { isExpansionTemplate, isExpansionTemplateDoc, readExpansionTemplate, type ExpansionTemplate, type TemplateApplyTo } from './template.js';
export { validateTemplate, validateTemplateDoc } from './validate.js';
export { expandResource } from './resultant.js';
export { ExpansionSystem, MAX_RECURSION_DEPTH, type Mutable, type MutateFn, type Resultant } from './system.js';
export { interpreterMutator, splitPolicies, type ExpansionPolicies } from './mutate.js';
export { gatorExpand, sortResultants, type GatorExpansion, type GatorExpandOptions } from './gator.js';
