/**
 * Raising: a `set` guarded by the existence of its own target becomes a `set` with a test on its last
 * segment, the form Gatekeeper's pathTests and Kyverno's `+()` anchor read into: `when notExists P: set P = v`
 * is `set P!absent = v` (the walk writes only where P is missing, creating its parents as the unguarded set
 * would), `when exists P: set P = v` is `set P!present = v`. A policy guard counts as such a `when` when the
 * policy is that one set (the guard is decided before the only write either way). Raised guards are also
 * simplified (simplify-guard.ts) so that the tests to match are in their plainest form.
 */
import type { Guard, Op, Policy, SetOp } from '../ir/nodes.js';
import type { SegmentTest } from '../ir/path.js';
import { transformPolicies } from '../ir/visit.js';
import { prefixOf, simplifyGuard } from './simplify-guard.js';

function withLeafTest(op: Op, guard: Guard): SetOp | undefined {
  if (op.kind !== 'set' || (guard.kind !== 'exists' && guard.kind !== 'notExists')) return undefined;
  const last = op.path.segments[op.path.segments.length - 1];
  if (!last || last.kind !== 'field' || last.test) return undefined;
  if (op.path.segments.some((s) => s.kind !== 'field' || s.test) || !prefixOf(guard.path, op.path, true) || !prefixOf(op.path, guard.path, true)) return undefined;
  const test: SegmentTest = guard.kind === 'exists' ? 'exist' : 'notExist';
  return { ...op, path: { ...op.path, segments: [...op.path.segments.slice(0, -1), { kind: 'field', name: last.name, test }] } };
}

export function raiseGuardedSets(policies: Policy[]): Policy[] {
  const simplified = transformPolicies(policies, {
    guard: (g) => (g.kind === 'and' || g.kind === 'or' || g.kind === 'not' ? simplifyGuard(g) : g),
    op: (op) => {
      if (op.kind !== 'when' || op.else?.length || op.then.length !== 1) return op;
      return withLeafTest(op.then[0]!, op.guard) ?? op;
    },
  });
  return simplified.map((p) => {
    if (p.guards.length !== 1 || p.rules.length !== 1) return p;
    const rule = p.rules[0]!;
    if (rule.guards.length !== 0 || rule.body.length !== 1) return p;
    const raised = withLeafTest(rule.body[0]!, p.guards[0]!);
    return raised ? { ...p, guards: [], rules: [{ ...rule, body: [raised] }] } : p;
  });
}
