import type { Op } from '../../ir/nodes.js';
import { compileFail } from './fail.js';
import { compileForEach } from './for-each.js';
import { compileImage } from './image.js';
import { compileJsonPatch } from './json-patch.js';
import { compileLet } from './let.js';
import { compileMerge } from './merge.js';
import { compileRemove } from './remove.js';
import { compileSetMembers } from './set-members.js';
import { compileSet } from './set.js';
import type { OpFn } from './types.js';
import { compileWhen } from './when.js';

export type { OpFn } from './types.js';

type Handlers = { [K in Op['kind']]: (op: Extract<Op, { kind: K }>) => OpFn };

/** One handler per op kind, each in its own file. */
const HANDLERS: Handlers = {
  set: compileSet,
  remove: compileRemove,
  setMembers: compileSetMembers,
  merge: compileMerge,
  image: compileImage,
  jsonPatch: compileJsonPatch,
  when: compileWhen,
  forEach: compileForEach,
  let: compileLet,
  fail: compileFail,
};

export function compileOp(op: Op): OpFn {
  return (HANDLERS[op.kind] as (op: Op) => OpFn)(op);
}
