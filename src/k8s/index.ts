/** Kubernetes request matching: globs, label selectors, the built-in resource table and compiled match blocks. */
export type * from './request.js';
export { compileGlob, compileAnyGlob, globMatch, wildcardMatch, containsWildcard, type GlobMatcher } from './glob.js';
export {
  compileLabelSelector,
  validateLabelSelector,
  labelsOf,
  annotationsOf,
  labelValue,
  type CompiledSelector,
  type Labels,
  type SelectorOptions,
} from './labels.js';
export {
  builtinResources,
  gvkOf,
  parseApiVersion,
  resourceOf,
  kindOfResource,
  lookupKind,
  lookupResource,
  isNamespacedKind,
  guessResource,
  type ResourceInfo,
} from './resources.js';
export { parseKindSelector } from './kinds.js';
export { gatekeeperApplyToOperations, GATEKEEPER_MUTATION_OPERATIONS } from './operations.js';
export { requestFacts, type RequestFacts } from './facts.js';
export {
  compileMatch,
  defaultProfile,
  kindIndexKeys,
  requestIndexKeys,
  type CompiledMatch,
  type CompileMatchOptions,
  type MatchOutcome,
  type MatchProfile,
} from './match.js';
