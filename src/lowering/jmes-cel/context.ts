/** The state one compilation threads through: scope, target capabilities, fresh names and notes. */
import { Names } from './frag.js';
import type { Caps } from './target.js';

export type Binding = { cel: string } | { fields: Record<string, Binding>; cel?: string };

export interface JmesCelScope {
  /** What a JMESPath root identifier (first field of the expression) means in CEL; undefined = not available in the target. */
  root(name: string): Binding | undefined;
}

export interface Cx {
  scope: JmesCelScope;
  caps: Caps;
  names: Names;
  /** Assumptions under which the emitted CEL is exact; the caller turns them into warnings. */
  notes: Set<string>;
}

export function newCx(scope: JmesCelScope, caps: Caps): Cx {
  return { scope, caps, names: new Names(), notes: new Set() };
}
