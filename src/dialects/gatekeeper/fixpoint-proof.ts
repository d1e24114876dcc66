/**
 * When may a sequential (Kyverno) or ordered (MAP) policy set be emitted as Gatekeeper's fix-point system?
 *
 * Gatekeeper (pkg/mutation/system.go) runs every mutator in sorted order until a pass changes nothing. When
 * the first pass gives what the source's single pass gives, and a second pass changes nothing, Gatekeeper
 * stops with that result. The first condition is the order: generate.ts numbers mutators in IR order and
 * reports (TM4002) where kind-first sorting swaps two that overlap. The second is the argument of
 * src/dialects/kyverno/lower-fixpoint.ts read in reverse: every mutator is idempotent (Gatekeeper's own kinds
 * are) and no mutator writes where one that runs before it reads (its pathTests, the list members its keys
 * and globs select, the value it transforms). That analysis is reused here on one synthetic policy per
 * emitted mutator, its path carrying the pathTests the mutator will have.
 *
 * Gatekeeper also re-evaluates each mutator's match on the object of the current pass, so a labelSelector
 * read before a later mutator adds labels is a read of that write too.
 */
import type { Origin } from '../../diagnostics/span.js';
import type { Op, Policy } from '../../ir/nodes.js';
import type { Segment, SegmentTest } from '../../ir/path.js';
import { checkFixpoint } from '../kyverno/lower-fixpoint.js';

export interface ProofInput {
  op: Op;
  /** The mutator's pathTests, by depth of the location (one location node per IR segment). */
  tests: ReadonlyMap<number, SegmentTest>;
  /** `Kind/name` of the emitted mutator. */
  id: string;
  /** The emitted match reads labels. */
  readsLabels: boolean;
  origin: Origin;
}

export interface ProofProblem {
  message: string;
  origin: Origin;
}

function withTests(op: Op, tests: ReadonlyMap<number, SegmentTest>): Op {
  if (!('path' in op)) return op;
  const segments = op.path.segments.map((s, i): Segment => {
    const t = tests.get(i);
    if (t === undefined || s.kind === 'append' || s.kind === 'each') return s;
    return { ...s, test: t };
  });
  return { ...op, path: { ...op.path, segments } } as Op;
}

function writesLabels(op: Op): boolean {
  if (!('path' in op) || op.path.root !== 'object') return false;
  const [a, b] = op.path.segments;
  return a?.kind === 'field' && a.name === 'metadata' && (b === undefined || (b.kind === 'field' && b.name === 'labels'));
}

/** The reasons one pass in `ordered` (Gatekeeper's run order) may differ from the fix-point; empty when proven. */
export function proveOnePass(ordered: readonly ProofInput[]): ProofProblem[] {
  const policies: Policy[] = ordered.map((m) => ({
    id: m.id,
    match: { globs: 'prefixSuffix' },
    guards: [],
    rules: [{ name: m.id, guards: [], body: [withTests(m.op, m.tests)], origin: m.origin }],
    semantics: { order: 'fixpoint' },
    origin: m.origin,
  }));
  const problems: ProofProblem[] = checkFixpoint(policies).map((p) => ({ message: p.message, origin: p.origin }));
  for (let i = 0; i < ordered.length; i++) {
    if (!ordered[i]!.readsLabels) continue;
    const later = ordered.slice(i + 1).find((m) => writesLabels(m.op));
    if (later) {
      problems.push({
        message: `${later.id} writes labels that the labelSelector of ${ordered[i]!.id} (which runs before it) reads: Gatekeeper matches ${ordered[i]!.id} again on the result, one pass does not`,
        origin: later.origin,
      });
    }
  }
  return problems;
}
