/**
 * Places in the object that IR reads and writes, for the compile-time proofs about fix-point systems
 * (fixpoint.ts: a second pass is idle; stable-match.ts: a match reads nothing the system writes). A place is
 * a list of field names, `ELEMENT` standing for any list element; two places overlap when one is a prefix of
 * the other, element tokens matching anything.
 */
import type { Guard, Value } from '../ir/nodes.js';
import type { MatchClause, MatchSpec } from '../ir/match.js';
import type { Path, Segment } from '../ir/path.js';

/** A place in the object: field names, and `ELEMENT` for any list element. */
export type Place = readonly string[];

export const ELEMENT = '\u0000*';

/** Thrown (and caught by the analysis that called) where a node is not modelled: the proof then does not hold. */
export class GiveUp extends Error {}

export function token(seg: Segment): string {
  return seg.kind === 'field' ? seg.name : ELEMENT;
}

export function placeOf(segs: readonly Segment[], upTo = segs.length): Place {
  return segs.slice(0, upTo).map(token);
}

export function overlaps(a: Place, b: Place): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && a[i] !== ELEMENT && b[i] !== ELEMENT) return false;
  return true;
}

/** Reads of an object path; other documents do not change during an evaluation; variables are not modelled. */
export function readPath(path: Path, reads: Place[]): void {
  if (path.root === 'vars') throw new GiveUp();
  if (path.root !== 'object') return;
  reads.push(placeOf(path.segments));
}

export function readValue(v: Value, reads: Place[]): void {
  switch (v.kind) {
    case 'literal':
      return;
    case 'ref':
      return readPath(v.path, reads);
    case 'fromMetadata':
      reads.push(['metadata', v.field]);
      return;
    default:
      throw new GiveUp();
  }
}

export function readGuard(g: Guard, reads: Place[]): void {
  switch (g.kind) {
    case 'exists':
    case 'notExists':
    case 'match':
      return readPath(g.path, reads);
    case 'eq':
    case 'neq':
      readPath(g.path, reads);
      return readValue(g.value, reads);
    case 'in':
    case 'notIn':
      readPath(g.path, reads);
      for (const v of g.values) readValue(v, reads);
      return;
    case 'and':
    case 'or':
      for (const a of g.args) readGuard(a, reads);
      return;
    case 'not':
      return readGuard(g.arg, reads);
    case 'const':
      return;
    default:
      throw new GiveUp();
  }
}

/**
 * What matching reads of the object (src/k8s/facts.ts, clause.ts): its kind, name, generateName and namespace
 * always, its labels and annotations where a clause selects on them.
 */
export function readMatch(m: MatchSpec | undefined, reads: Place[]): void {
  if (!m) return;
  reads.push(['apiVersion'], ['kind'], ['metadata', 'name'], ['metadata', 'generateName'], ['metadata', 'namespace']);
  const clauses: MatchClause[] = [...(m.any ?? []), ...(m.all ?? []), ...(m.exclude?.any ?? []), ...(m.exclude?.all ?? [])];
  for (const c of clauses) {
    if (c.labelSelector !== undefined || c.namespaceSelector !== undefined) reads.push(['metadata', 'labels']);
    if (c.annotations !== undefined) reads.push(['metadata', 'annotations']);
  }
}
