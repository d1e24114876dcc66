import type { Capabilities } from '../dialect.js';

/** What Kyverno mutate rules can express (generation is not implemented yet; parsing produces these). */
export const KYVERNO_CAPABILITIES: Capabilities = {
  segments: ['field', 'index', 'append'],
  ops: ['merge', 'jsonPatch', 'forEach', 'when', 'let'],
  guards: ['jmes', 'neq'],
  orders: ['sequential'],
};
