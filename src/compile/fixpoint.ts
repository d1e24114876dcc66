/**
 * When one pass of a fix-point system is enough (issue 17, Gatekeeper). Gatekeeper repeats every mutator until a
 * pass changes nothing (pkg/mutation/system.go), so a system that converges at once still pays a second, idle
 * pass over every mutator. That pass can be skipped when it is proven idle: every op is idempotent on its own
 * (a literal set, a removal of a field or of every element, a ModifySet of literals, an AssignImage whose
 * result splits back into what it wrote), no op writes where another op, guard or match reads, and ops write
 * the same place only with their kind's peers (Footprint.leafClass). A second pass then ends where the first
 * did, which is what Gatekeeper's deep comparison would find.
 *
 * Places are compared as prefixes over field names, every list element standing for every other: a write
 * conflicts with any read or write that is its prefix or that it is a prefix of. Writes that change a list's
 * elements (creating keyed elements, appending, removing elements) also write the list itself. Anything the
 * analysis does not model (expressions, references to variables, bindings, loops, merges, patches, external
 * data) makes it give up, and the system runs its passes as before.
 */
import type { Op, Policy } from '../ir/nodes.js';
import type { Path } from '../ir/path.js';
import { GiveUp, overlaps, placeOf, readGuard, readMatch, readValue, type Place } from './places.js';

interface Footprint {
  reads: Place[];
  writes: Place[];
  /**
   * The place an op writes its value to, and how: ops of one class writing the same place compose to an
   * idempotent whole that a second pass leaves as it is, key order included (the last assignment wins, ifAbsent
   * sets included; removals; image edits set components; ModifySet adds or drops members), so they may share
   * it. Removals are not assignments' peers: removing and re-adding a key moves it to the end.
   */
  leaf?: Place;
  leafClass?: 'assign' | 'remove' | 'image' | 'members';
}

/**
 * Writes of a path write; segment tests read the places they test. Only a set (whose value must carry the
 * element's key) or a removal may end at a list element: any other leaf there, given a missing keyed element,
 * appends a value without the key, and the next pass appends another.
 */
function writePath(path: Path, removes: boolean, into: Footprint, leafClass: Footprint['leafClass'], setsValue = false): void {
  if (path.root !== 'object' || path.segments.length === 0) throw new GiveUp();
  const segs = path.segments;
  const last = segs[segs.length - 1]!;
  // Not idempotent: an append adds an element every pass; removing one indexed or keyed element removes the
  // next one in the following pass.
  if (segs.some((s) => s.kind === 'append') || (removes && (last.kind === 'index' || last.kind === 'keyed'))) throw new GiveUp();
  if (last.kind !== 'field' && !setsValue && !removes) throw new GiveUp();
  const leaf = placeOf(segs);
  into.writes.push(leaf);
  into.leaf = leaf;
  into.leafClass = leafClass;
  segs.forEach((seg, i) => {
    const changesElements = (seg.kind === 'keyed' && seg.create) || seg.kind === 'append' || (removes && i === segs.length - 1 && seg.kind !== 'field');
    if (changesElements) into.writes.push(placeOf(segs, i));
    // An ifAbsent assignment's test of its own place is part of its class (see Footprint.leafClass).
    const ifAbsent = i === segs.length - 1 && leafClass === 'assign' && 'test' in seg && seg.test === 'notExist';
    if ('test' in seg && seg.test !== undefined && !ifAbsent) into.reads.push(placeOf(segs, i + 1));
  });
}

/** An image edit whose result splits back into the parts it wrote (src/k8s/image-ref.ts), so a second run keeps it. */
function idempotentImage(op: Extract<Op, { kind: 'image' }>): boolean {
  const domainLike = (d: string) => !d.includes('/') && (d.includes('.') || d.includes(':') || d === 'localhost');
  const domainOk = op.domain !== undefined ? domainLike(op.domain) : op.repo === undefined;
  const repoOk = op.repo === undefined || !/[:@]/.test(op.repo);
  const tagOk = op.tag === undefined || op.tag === '' || op.tag.startsWith(':') || op.tag.startsWith('@');
  return domainOk && repoOk && tagOk;
}

/**
 * Adds one unit per op that writes: its own reads and writes, and the reads of every guard above it (rule
 * guards, enclosing `when`s), which run before it in each pass.
 */
function unitsOf(op: Op, above: readonly Place[], out: Footprint[]): void {
  const fp: Footprint = { reads: [...above], writes: [] };
  switch (op.kind) {
    case 'set':
      if (op.value.kind !== 'literal') readValue(op.value, fp.reads);
      writePath(op.path, false, fp, 'assign', true);
      break;
    case 'remove':
      // Not an assignment's peer: removing and re-adding a key in the next pass moves it to the end.
      writePath(op.path, true, fp, 'remove');
      break;
    case 'setMembers':
      for (const v of op.values) if (v.kind !== 'literal') throw new GiveUp();
      writePath(op.path, false, fp, 'members');
      break;
    case 'image':
      if (!idempotentImage(op)) throw new GiveUp();
      writePath(op.path, false, fp, 'image');
      break;
    case 'when': {
      readGuard(op.guard, fp.reads);
      for (const o of op.then) unitsOf(o, fp.reads, out);
      for (const o of op.else ?? []) unitsOf(o, fp.reads, out);
      return;
    }
    default:
      throw new GiveUp();
  }
  out.push(fp);
}

interface Unit {
  policy: Policy;
  footprint: Footprint;
}

function samePlace(a: Place, b: Place): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function conflict(writer: Footprint, other: Footprint): boolean {
  const peers = writer.leafClass !== undefined && writer.leafClass === other.leafClass && samePlace(writer.leaf!, other.leaf!);
  for (const w of writer.writes) {
    for (const x of other.writes) if (overlaps(w, x) && !(peers && w === writer.leaf && x === other.leaf)) return true;
    for (const r of other.reads) if (overlaps(w, r)) return true;
  }
  return false;
}

/**
 * Whether a first pass that changed the object leaves nothing for a second pass of these fix-point policies to
 * change, so the system has converged after it. False whenever the analysis cannot tell.
 */
export function singlePassConverges(policies: readonly Policy[]): boolean {
  try {
    const units: Unit[] = [];
    const gates: Unit[] = [];
    for (const policy of policies) {
      // Under failurePolicy ignore a failing op fails again, with its warning, in every pass.
      if (policy.lets?.length || policy.semantics.applyRules !== undefined || policy.semantics.failurePolicy === 'ignore') return false;
      // The policy's match and guards run before any of its ops in each pass.
      const gate: Footprint = { reads: [], writes: [] };
      readMatch(policy.match, gate.reads);
      for (const g of policy.guards) readGuard(g, gate.reads);
      gates.push({ policy, footprint: gate });
      for (const rule of policy.rules) {
        const ruleGate: Footprint = { reads: [], writes: [] };
        readMatch(rule.match, ruleGate.reads);
        for (const g of rule.guards) readGuard(g, ruleGate.reads);
        const ops: Footprint[] = [];
        for (const op of rule.body) unitsOf(op, ruleGate.reads, ops);
        for (const footprint of ops) units.push({ policy, footprint });
      }
    }
    for (let i = 0; i < units.length; i++) {
      const u = units[i]!;
      for (let j = 0; j < units.length; j++) if (i !== j && conflict(u.footprint, units[j]!.footprint)) return false;
      // A policy's own match and guards may read what it writes: they run before all of its ops, so a second
      // pass either skips the whole policy (keeping what the first wrote) or runs it again on what it wrote.
      for (const g of gates) if (g.policy !== u.policy && conflict(u.footprint, g.footprint)) return false;
    }
    return true;
  } catch (e) {
    if (e instanceof GiveUp) return false;
    throw e;
  }
}
