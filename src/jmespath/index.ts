/** Kyverno's JMESPath: the `jmespath` package's parser, our closure compiler, Kyverno's functions. */
export { compileJmes, compileJmesCached, type CompileOptions, type JmesProgram, type JmesSourcePosition } from './compile.js';
export { KYVERNO_FUNCTIONS, STANDARD_FUNCTION_TABLE, KYVERNO_CUSTOM_FUNCTION_NAMES, buildFunctionTable } from './functions/index.js';
export type { FunctionSpec, FunctionTable, ArgType } from './functions/registry.js';
export { seededRandom, type JmesContext, type JmesError, type JmesErrorKind, type JmesRandom, type JmesResult } from './types.js';
export { isFalse as jmesIsFalse, goJsonMarshal } from './values.js';
export { wildcardMatch } from './functions/wildcard.js';
