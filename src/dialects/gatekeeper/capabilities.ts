import type { Capabilities } from '../dialect.js';

/**
 * What Gatekeeper mutators can say: field, keyed (`[k: v]`, created when missing) and glob (`[k: *]`)
 * segments with existence tests (pathTests); set (Assign, AssignMetadata), setMembers (ModifySet) and image
 * (AssignImage); no value conditions; every mutator runs in one fix-point system.
 */
export const gatekeeperCapabilities: Capabilities = {
  segments: ['field', 'keyed', 'keyedGlob'],
  ops: ['set', 'setMembers', 'image'],
  guards: ['exists', 'notExists'],
  orders: ['fixpoint'],
};
