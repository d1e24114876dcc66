import type { Capabilities } from '../dialect.js';

/** Nothing is generated (generate.ts reports TM4001); the reading side covers MAP's constructs. */
export const mpolCapabilities: Capabilities = { segments: [], ops: [], guards: [], orders: [] };
