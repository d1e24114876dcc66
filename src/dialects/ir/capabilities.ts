import type { Capabilities } from '../dialect.js';

/** The `ir` dialect is the IR itself: it expresses every construct. */
export const irCapabilities: Capabilities = {
  segments: ['field', 'index', 'append', 'keyed', 'keyedGlob', 'each'],
  ops: ['set', 'remove', 'setMembers', 'merge', 'image', 'jsonPatch', 'when', 'forEach', 'let'],
  guards: ['exists', 'notExists', 'eq', 'neq', 'in', 'notIn', 'match', 'and', 'or', 'not', 'const', 'cel', 'jmes'],
  orders: ['sequential', 'fixpoint', 'ordered'],
};
