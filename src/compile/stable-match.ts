/**
 * Matches a fix-point system cannot change (issue 17, Gatekeeper). Gatekeeper tests every mutator's match
 * against the object as earlier mutators left it, in every pass (pkg/mutation/system.go), so a pass of 50
 * mutators derives the request's facts and runs 50 matches. A match whose reads (src/compile/places.ts
 * readMatch: kind, name, namespace, and labels or annotations where selected on) no op of the system writes
 * gives the same outcome at every point of the system's run, so it can be tested once per run; and policies
 * whose match blocks are equal share that one outcome.
 *
 * Writes are over-approximated by the place each path reaches (a write under `metadata.labels` writes
 * `metadata.labels`); anything not modelled (merges, patches, writes through variables) writes everywhere.
 */
import type { MatchSpec } from '../ir/match.js';
import type { Op, Policy } from '../ir/nodes.js';
import { GiveUp, overlaps, placeOf, readMatch, type Place } from './places.js';

/** The places an op may write, into `out`; throws GiveUp where they cannot be told. */
function writesOf(op: Op, out: Place[]): void {
  switch (op.kind) {
    case 'set':
    case 'remove':
    case 'setMembers':
    case 'image':
      if (op.path.root !== 'object') throw new GiveUp();
      // A removal at the top can empty the object, which matching reads (an empty object is matched as absent).
      if (op.kind === 'remove' && op.path.segments.length <= 1) throw new GiveUp();
      out.push(placeOf(op.path.segments));
      return;
    case 'when':
      for (const o of op.then) writesOf(o, out);
      for (const o of op.else ?? []) writesOf(o, out);
      return;
    case 'let':
    case 'fail':
      return;
    default:
      throw new GiveUp();
  }
}

function systemWrites(policies: readonly Policy[]): Place[] | undefined {
  const writes: Place[] = [];
  try {
    for (const p of policies) {
      for (const l of p.lets ?? []) writesOf(l, writes);
      for (const r of p.rules) for (const op of r.body) writesOf(op, writes);
    }
    return writes;
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}

/** A match block's identity for sharing: its JSON without the origin (which only spans diagnostics). */
function specKey(spec: MatchSpec): string {
  return JSON.stringify(spec, (k, v: unknown) => (k === 'origin' ? undefined : v));
}

/**
 * For each policy of a fix-point system, the slot its match outcome may be kept in for the whole run of the
 * system (policies with equal match blocks share a slot), or -1 where the system may change what the match
 * reads. Slots count from 0.
 */
export function stableMatchSlots(policies: readonly Policy[]): number[] {
  const writes = systemWrites(policies);
  const slots = new Map<string, number>();
  return policies.map((p) => {
    if (!writes) return -1;
    const reads: Place[] = [];
    readMatch(p.match, reads);
    if (reads.some((r) => writes.some((w) => overlaps(r, w)))) return -1;
    const key = specKey(p.match);
    let slot = slots.get(key);
    if (slot === undefined) slots.set(key, (slot = slots.size));
    return slot;
  });
}
