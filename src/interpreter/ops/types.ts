import type { Scope } from '../scope.js';
import type { EvalState } from '../state.js';

/**
 * A compiled op: runs against the evaluation state and returns the scope for the ops after it
 * (only `let` extends it). Errors leave as EvalFailure and are turned into diagnostics at the rule boundary.
 */
export type OpFn = (st: EvalState, scope: Scope) => Scope;
