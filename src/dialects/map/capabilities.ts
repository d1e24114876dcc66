import type { Capabilities } from '../dialect.js';

/**
 * What a MAP can express: any path JSON Patch addresses, structured merge of apply configurations, CEL
 * guards, and the ordered (reinvocation) semantics. Everything else needs lowering to CEL first.
 */
export const mapCapabilities: Capabilities = {
  segments: ['field', 'index', 'append'],
  ops: ['merge', 'jsonPatch', 'let'],
  guards: ['cel'],
  orders: ['ordered'],
};
