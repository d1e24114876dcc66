/** The public API of transmute: parse, translate, apply, test. Kept small; test/index.test.ts pins it. */
export { apply } from './interpreter/index.js';
export type { AdmissionRequest, ApplyEnv, ApplyResult, TraceEvent, Patch6902 } from './interpreter/index.js';
export { loadPolicies, parsePolicyDocs as parse, translate } from './pipeline.js';
export { runCaseDir as test } from './golden/run.js';
export { optimize } from './optimizer/index.js';
export { printPolicies } from './ir/print.js';
export { dialects, dialectByName } from './dialects/registry.js';
export type { Dialect } from './dialects/dialect.js';
export type { Policy, Rule, Op, Guard, Value } from './ir/nodes.js';
export type { Diagnostic } from './diagnostics/diagnostic.js';
