import type { Policy } from '../ir/nodes.js';
import { dropUnreachable } from './drop-unreachable.js';
import { foldConstantGuards } from './fold-constant-guards.js';

export interface Pass {
  name: string;
  run(policies: readonly Policy[]): Policy[];
}

/** The optimizer passes, in order. Each is a pure IR-to-IR function that keeps origins. */
export const RULES: readonly Pass[] = [
  { name: 'fold-constant-guards', run: foldConstantGuards },
  { name: 'drop-unreachable', run: dropUnreachable },
];

export function optimize(policies: readonly Policy[]): Policy[] {
  let out = policies.slice();
  for (const pass of RULES) out = pass.run(out);
  return out;
}

export { candidatesFor } from './kind-index.js';
