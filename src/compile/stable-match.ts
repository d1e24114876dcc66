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
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { MatchSpec } from '../ir/match.js';
import type { MergeOp, Op, Policy } from '../ir/nodes.js';
import { GiveUp, overlaps, placeOf, readMatch, type Place } from './places.js';

/** How deep a merge pattern's keys are followed: deeper writes count as writing the place at this depth. */
const PATTERN_DEPTH = 3;

/** A Kyverno anchor around a key (`(k)`, `+(k)`, `X(k)`, `<(k)`, `=(k)`, `^(k)`): the key it is about. */
const ANCHORED = /^[+X<=^]?\((.*)\)$/;

/**
 * The places a merge pattern may write below `at`: each key it names (anchors count as writes: an
 * over-approximation), down to PATTERN_DEPTH. A directive (`$patch`, `$retainKeys`, ...) or a templated key
 * may rewrite the whole map holding it, and a removal of a top-level key may empty the object: both write
 * the map's parent. Fields the pattern does not name only lose their nulls (kyaml prunes them), which
 * matching reads as it reads absent fields (facts.ts metaString, labels.ts metadataMap).
 */
function patternWrites(at: Place, pattern: JsonValue, depth: number, out: Place[]): void {
  if (!isJsonObject(pattern) || depth >= PATTERN_DEPTH) {
    out.push(at);
    return;
  }
  for (const key of Object.keys(pattern)) {
    if (key.startsWith('$') || key.includes('{{')) {
      out.push(at.slice(0, Math.max(0, at.length - 1)));
      continue;
    }
    const value = pattern[key]!;
    if (value === null && at.length === 0) {
      out.push(at);
      continue;
    }
    const name = ANCHORED.exec(key)?.[1] ?? key;
    patternWrites([...at, name], value, depth + 1, out);
  }
}

function mergeWrites(op: MergeOp, out: Place[]): void {
  if (op.path.root !== 'object' || op.strategy === 'ssa') throw new GiveUp();
  if (op.value.kind !== 'literal' && op.value.kind !== 'templated') throw new GiveUp();
  patternWrites(placeOf(op.path.segments), op.value.json, 0, out);
}

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
    case 'merge':
      return mergeWrites(op, out);
    case 'forEach':
      for (const o of op.body) writesOf(o, out);
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

/**
 * For each rule of a policy, the slot its match outcome may be kept in for one run of the policy (rules
 * with equal match blocks share a slot: a Kyverno policy repeats one `match` in every rule), or -1 where
 * the policy's rules may write what the match reads (or the rule has no match of its own). Slots count from 0.
 */
export function stableRuleMatchSlots(policy: Policy): number[] {
  const writes = systemWrites([policy]);
  const slots = new Map<string, number>();
  return policy.rules.map((r) => {
    if (!writes || !r.match) return -1;
    const reads: Place[] = [];
    readMatch(r.match, reads);
    if (reads.some((read) => writes.some((w) => overlaps(read, w)))) return -1;
    const key = specKey(r.match);
    let slot = slots.get(key);
    if (slot === undefined) slots.set(key, (slot = slots.size));
    return slot;
  });
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
