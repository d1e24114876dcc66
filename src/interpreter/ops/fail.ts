import type { FailOp } from '../../ir/nodes.js';
import { evalFailure } from '../failure.js';
import type { OpFn } from './types.js';

/** Fails with the op's message as the engine words it; the rule boundary applies the failure policy. */
export function compileFail(op: FailOp): OpFn {
  const failure = evalFailure('TM3012', op.message, op.origin);
  return () => {
    throw failure;
  };
}
