/**
 * Public API of transmute's CEL engine.
 *   const p = compile('object.spec.replicas > 1', { variables: ['object'] });
 *   if (p.ok) p.value.eval({ object }) // { ok: true, value: true, cost }
 */
export { compile, parse, defaultLocate, DEFAULT_COST_LIMIT, EXPR_FILE } from './program.js';
export type { CelProgram, CelResult, EvalOptions, Locate } from './program.js';
export type { CelEnvOptions, ResultExpectation } from './env.js';
export { MAP_VARIABLES, NEWEST_K8S_VERSION } from './env.js';
export { toJson, toSharedJson, objectResultToJson, mutationResultToJson, fromJson, jsonPatchOps, checkTypeNames, type JsonPatchOp } from './mutation.js';
export type { Expr } from './ast.js';
export type { RuntimeServices } from './compile.js';
