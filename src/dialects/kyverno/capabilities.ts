import type { Capabilities } from '../dialect.js';

/** What Kyverno mutate rules can express: what the parser produces and generate.ts writes back. */
export const KYVERNO_CAPABILITIES: Capabilities = {
  segments: ['field', 'index', 'append'],
  ops: ['merge', 'jsonPatch', 'forEach', 'when', 'let'],
  guards: ['jmes', 'neq'],
  orders: ['sequential'],
};
