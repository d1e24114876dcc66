/**
 * The shape of the function table: for each Kyverno/JMESPath function, its status in each target
 * environment (the doc docs/jmespath-to-cel.md is generated from it) and, when it has one, the CEL it emits.
 */
import type { JmesNode } from '../../jmespath/ast.js';
import type { Cx } from './context.js';
import type { Frag } from './frag.js';

export type Status =
  | { kind: 'exact'; how: string }
  /** Exact except where `what` says; the CEL fails at runtime there (a guard) and the caller gets a note. */
  | { kind: 'assumption'; how: string; what: string }
  | { kind: 'cannot'; why: string }
  | { kind: 'yet'; why: string };

export interface CallSite {
  cx: Cx;
  /** The compiled body of the i-th argument when it is an expression reference, applied to `item`. */
  ref(index: number, item: Frag): Frag;
  /** The argument nodes as written (for literal arguments that shape the CEL, e.g. a regex replacement). */
  nodes: JmesNode[];
}

export interface FnDef {
  name: string;
  map: Status;
  mpol: Status;
  /** The Kubernetes minor version the MAP form needs (an ext library); below it the function is `cannot`. */
  mapSince?: { minor: number; why: string };
  /**
   * The CEL for a call whose arguments are bound (simple fragments) and already checked against the
   * JMESPath signature. Absent when every environment refuses.
   */
  emit?: (args: Frag[], site: CallSite) => Frag;
  /**
   * The emitted CEL fails when an argument the signature checks is null (`size(null)`, `null.join(",")`), as
   * Kyverno does: a possibly-null argument of the right type then needs no runtime type test.
   */
  nullFails?: boolean | ((args: Frag[]) => boolean);
}

export const exact = (how: string): Status => ({ kind: 'exact', how });
export const assume = (how: string, what: string): Status => ({ kind: 'assumption', how, what });
export const cannot = (why: string): Status => ({ kind: 'cannot', why });
export const yet = (why: string): Status => ({ kind: 'yet', why });

/** The same status in both environments. */
export function both(s: Status): { map: Status; mpol: Status } {
  return { map: s, mpol: s };
}
