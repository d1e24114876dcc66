/**
 * When does one sequential pass give Gatekeeper's fix-point?
 *
 * Gatekeeper (pkg/mutation/system.go) runs every mutator in sorted order, repeatedly, until a pass ends with
 * the object it started with. Kyverno runs rules once, in order. Let `pass` be one sequential run and
 * R1 = pass(x). If pass(R1) = R1, Gatekeeper stops after its second pass with R1 (or after the first, when
 * nothing changed), so the fix-point is R1 and an ordered Kyverno policy reproduces it.
 *
 * pass(R1) = R1 holds when every op is idempotent and no op's decisions can change in the second pass. An
 * op's decisions depend only on its *sensitive reads*: places whose MustExist test must hold, the members of
 * the lists its keyed segments and globs select from, its own target when the new value depends on the old
 * one (ModifySet, AssignImage), and the metadata it copies. Ops only ever add or overwrite, so a MustNotExist
 * test can flip only from "write" to "skip" in the second pass, which keeps the first pass's write: such reads
 * are sensitive only to writes that can delete (a prune, or a set that replaces a container above the place).
 * An earlier op's reads seeing a later op's writes is what breaks the proof (`i < j`, j writes where i
 * reads); a later op reading an earlier op's writes is ordinary sequencing. One pattern is safe although it
 * matches that rule: a later terminal keyed set replaces the very element whose creation made the earlier op
 * see a new list member, so the earlier op's second-pass writes into it are overwritten again
 * (derived-system/sidecar-replace-clobbers-later-glob).
 */
import type { Origin } from '../../diagnostics/span.js';
import { isJsonObject } from '../../ir/json.js';
import type { Guard, Op, Policy } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';

type ReadKind = 'exists' | 'notExists' | 'members' | 'value';

interface Read {
  kind: ReadKind;
  /** For `exists`/`notExists`/`value`: the place; for `members`: the list field, with `key` the selecting key. */
  segments: readonly Segment[];
  key?: string;
  /** `members` of a keyed segment: only elements with this key value matter. */
  value?: unknown;
}

interface Footprint {
  op: Op;
  policy: Policy;
  reads: Read[];
  write: readonly Segment[];
  /** The write can remove places (prune, replacing a map, list or element). */
  destructive: boolean;
  /** A set of a constant onto a keyed list element (replaces the element whole). */
  terminalKeyed: boolean;
}

export interface FixpointProblem {
  message: string;
  origin: Origin;
}

function opsOf(policy: Policy): { op: Op; guards: Guard[] }[] | string {
  const out: { op: Op; guards: Guard[] }[] = [];
  for (const rule of policy.rules) {
    for (const op of rule.body) {
      if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') return `an op of kind ${op.kind}`;
      out.push({ op, guards: [...policy.guards, ...rule.guards] });
    }
  }
  return out;
}

function footprint(op: Op, policy: Policy): Footprint | string {
  if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') return `an op of kind ${op.kind}`;
  if (op.path.root !== 'object') return `a write outside the object`;
  const segs = op.path.segments;
  const reads: Read[] = [];
  segs.forEach((s, d) => {
    const prefix = segs.slice(0, d + 1);
    if ('test' in s && s.test === 'exist') reads.push({ kind: 'exists', segments: prefix });
    if ('test' in s && s.test === 'notExist') reads.push({ kind: 'notExists', segments: prefix });
    if (s.kind === 'keyed') reads.push({ kind: 'members', segments: segs.slice(0, d), key: s.key, value: s.value });
    if (s.kind === 'keyedGlob') reads.push({ kind: 'members', segments: segs.slice(0, d) });
  });
  if (op.kind === 'setMembers' || op.kind === 'image') reads.push({ kind: 'value', segments: segs });
  if (op.kind === 'set' && op.value.kind === 'fromMetadata') reads.push({ kind: 'value', segments: [{ kind: 'field', name: 'metadata' }, { kind: 'field', name: op.value.field }] });
  else if (op.kind === 'set' && op.value.kind !== 'literal') return `a value of kind ${op.value.kind}`;
  const last = segs[segs.length - 1];
  const terminalKeyed = op.kind === 'set' && last?.kind === 'keyed';
  const destructive =
    (op.kind === 'setMembers' && op.mode === 'prune') ||
    terminalKeyed ||
    (op.kind === 'set' && op.value.kind === 'literal' && (isJsonObject(op.value.json) || Array.isArray(op.value.json)));
  return { op, policy, reads, write: segs, destructive, terminalKeyed };
}

/** Whether two segments can address the same place (tests ignored). */
function compatible(a: Segment, b: Segment): boolean {
  if (a.kind === 'field' || b.kind === 'field') return a.kind === 'field' && b.kind === 'field' && a.name === b.name;
  if (a.kind === 'keyed' && b.kind === 'keyed' && a.key === b.key) return a.value === b.value;
  return true;
}

function samePrefix(a: readonly Segment[], b: readonly Segment[], n: number): boolean {
  for (let i = 0; i < n; i++) if (!compatible(a[i]!, b[i]!)) return false;
  return true;
}

/** Can writing at `w` change what `r` reads? */
function affects(r: Read, w: Footprint): boolean {
  const rs = r.segments;
  const ws = w.write;
  const n = Math.min(rs.length, ws.length);
  if (!samePrefix(rs, ws, n)) return false;
  if (ws.length <= rs.length) {
    // The write replaces the read place or a container of it.
    if (r.kind === 'notExists') return w.destructive;
    return true;
  }
  // The write is strictly below the read place.
  switch (r.kind) {
    case 'exists':
      return true; // a write creates its missing parents
    case 'value':
      return true;
    case 'notExists':
      return false; // only creates: the test can only stop holding, which keeps the first pass's write
    case 'members': {
      const next = ws[rs.length]!;
      if (next.kind === 'keyed' && next.create) {
        if (r.key === undefined) return true;
        if (next.key === r.key) return next.value === r.value;
        return false;
      }
      if (r.key === undefined) return false;
      // A write of the selecting key field itself inside the elements.
      const field = ws[rs.length + 1];
      return field !== undefined && field.kind === 'field' && field.name === r.key;
    }
  }
}

/** The later terminal keyed set replaces the element whose appearance the earlier op reacts to. */
function clobbered(r: Read, earlier: Footprint, later: Footprint): boolean {
  if (r.kind !== 'members' || !later.terminalKeyed) return false;
  if (later.write.length !== r.segments.length + 1) return false;
  return earlier.write.length > later.write.length && samePrefix(earlier.write, later.write, later.write.length);
}

/**
 * Checks that one ordered pass over the fix-point policies equals Gatekeeper's fix-point; returns the
 * problems (empty when proven).
 */
export function checkFixpoint(policies: readonly Policy[]): FixpointProblem[] {
  const problems: FixpointProblem[] = [];
  const prints: Footprint[] = [];
  for (const p of policies) {
    const ops = opsOf(p);
    if (typeof ops === 'string') {
      problems.push({ message: `cannot prove that one pass of ${p.id} reaches the fix-point: ${ops}`, origin: p.origin });
      continue;
    }
    for (const { op, guards } of ops) {
      const bad = guards.find((g) => !(g.kind === 'const' || (g.kind === 'eq' && g.path.root === 'request')));
      if (bad) {
        problems.push({ message: `cannot prove that one pass of ${p.id} reaches the fix-point: a guard of kind ${bad.kind}`, origin: bad.origin });
        continue;
      }
      const f = footprint(op, p);
      if (typeof f === 'string') problems.push({ message: `cannot prove that one pass of ${p.id} reaches the fix-point: ${f}`, origin: op.origin });
      else prints.push(f);
    }
  }
  for (let i = 0; i < prints.length; i++) {
    for (let j = i + 1; j < prints.length; j++) {
      const a = prints[i]!;
      const b = prints[j]!;
      if (a.policy === b.policy) continue;
      const hit = a.reads.find((r) => affects(r, b) && !(clobbered(r, a, b) && !prints.slice(i + 1, j).some((m) => m.reads.some((x) => affects(x, b)))));
      if (hit) {
        problems.push({
          message: `${b.policy.id} writes where ${a.policy.id} (which runs before it) reads (${hit.kind} at ${describe(hit.segments)}): Gatekeeper runs ${a.policy.id} again on the result, one ordered Kyverno pass does not`,
          origin: ('path' in b.op ? b.op.path.origin : undefined) ?? b.op.origin,
        });
      }
    }
  }
  return problems;
}

function describe(segs: readonly Segment[]): string {
  return (
    segs
      .map((s) => (s.kind === 'field' ? s.name : s.kind === 'keyed' ? `[${s.key}: ${JSON.stringify(s.value)}]` : s.kind === 'keyedGlob' ? `[${s.key}: *]` : `[${s.kind}]`))
      .join('.')
      .replaceAll('.[', '[') || '(root)'
  );
}
