/**
 * Whether a policy guard still holds after the policy's earlier writes. A MAP matchCondition is decided once,
 * before the first mutation; a Kyverno precondition is decided again before each rule, on the object as the
 * earlier rules left it. The two agree when the guard reads nothing written before, or when the writes are
 * known literals after which the guard is true whatever else the object holds (a guard that held before
 * the writes is the only case where the rules run at all). Decided by three-valued (Kleene) evaluation:
 * atoms on written places take their known values, other atoms are unknown.
 */
import { isJsonObject, jsonEqual, type JsonValue } from '../../ir/json.js';
import type { Guard, Op } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';

/** A write by an earlier op: the literal it leaves at `path`, or unknown content. */
export interface Write {
  path: Path;
  value?: { json: JsonValue };
}

export function writeOf(op: Op): Write | undefined {
  if (op.kind === 'set') return op.value.kind === 'literal' ? { path: op.path, value: { json: op.value.json } } : { path: op.path };
  if (op.kind === 'setMembers' || op.kind === 'image' || op.kind === 'remove' || op.kind === 'merge') return { path: op.path };
  return undefined;
}

type Tri = boolean | 'unknown';

/** Field names of a path, or undefined when it goes through a list segment. */
function fields(p: Path): string[] | undefined {
  const out: string[] = [];
  for (const s of p.segments) {
    if (s.kind !== 'field') return undefined;
    out.push(s.name);
  }
  return out;
}

/** What a read at `r` sees after `w`: untouched, a known value (or missing), or unknown. */
function readAfter(r: Path, w: Write): 'untouched' | { value: JsonValue | undefined } | 'unknown' {
  if (r.root !== w.path.root) return 'untouched';
  const rf = fields(r);
  const wf = fields(w.path);
  if (!rf || !wf) {
    // Through a list: untouched only when the field prefixes already differ.
    const n = Math.min(r.segments.length, w.path.segments.length);
    for (let i = 0; i < n; i++) {
      const a = r.segments[i]!;
      const b = w.path.segments[i]!;
      if (a.kind === 'field' && b.kind === 'field' && a.name !== b.name) return 'untouched';
      if (a.kind !== 'field' || b.kind !== 'field') break;
    }
    return 'unknown';
  }
  const n = Math.min(rf.length, wf.length);
  for (let i = 0; i < n; i++) if (rf[i] !== wf[i]) return 'untouched';
  if (rf.length < wf.length) return 'unknown';
  if (!w.value) return 'unknown';
  let v: JsonValue | undefined = w.value.json;
  for (const f of rf.slice(wf.length)) v = isJsonObject(v) && Object.prototype.hasOwnProperty.call(v, f) ? v[f] : undefined;
  return { value: v };
}

/** Whether a read of `r` is changed by the writes: its value after them, 'unknown', or 'untouched'. */
function readAfterAll(r: Path, writes: readonly Write[]): 'untouched' | { value: JsonValue | undefined } | 'unknown' {
  let out: ReturnType<typeof readAfter> = 'untouched';
  for (const w of writes) {
    const here = readAfter(r, w);
    if (here !== 'untouched') out = here;
  }
  return out;
}

/** Existence of `r` after the writes: a set at or above `r` decides it by its value, a set below creates it. */
function existsAfter(r: Path, writes: readonly Write[]): Tri | 'untouched' {
  let out: Tri | 'untouched' = 'untouched';
  const rf = fields(r);
  for (const w of writes) {
    const here = readAfter(r, w);
    if (here === 'untouched') continue;
    if (here !== 'unknown') {
      out = here.value !== undefined;
      continue;
    }
    const wf = fields(w.path);
    const below = rf !== undefined && wf !== undefined && wf.length > rf.length && rf.every((f, i) => wf[i] === f);
    out = below && w.value !== undefined ? true : 'unknown';
  }
  return out;
}

function evaluate(g: Guard, writes: readonly Write[]): Tri | 'untouched' {
  switch (g.kind) {
    case 'const':
      return g.value;
    case 'exists':
    case 'notExists': {
      const e = existsAfter(g.path, writes);
      if (e === 'untouched' || e === 'unknown') return e;
      return g.kind === 'exists' ? e : !e;
    }
    case 'eq':
    case 'neq':
    case 'in':
    case 'notIn': {
      const after = readAfterAll(g.path, writes);
      if (after === 'untouched' || after === 'unknown') return after;
      const values = g.kind === 'eq' || g.kind === 'neq' ? [g.value] : (g as Extract<Guard, { kind: 'in' | 'notIn' }>).values;
      if (values.some((v) => v.kind !== 'literal') || after.value === undefined) return after.value === undefined ? false : 'unknown';
      const member = values.some((v) => v.kind === 'literal' && jsonEqual(after.value!, v.json));
      return g.kind === 'eq' || g.kind === 'in' ? member : !member;
    }
    case 'and':
    case 'or': {
      const parts = g.args.map((a) => evaluate(a, writes));
      if (parts.every((p) => p === 'untouched')) return 'untouched';
      const known = parts.map((p) => (p === 'untouched' ? 'unknown' : p));
      if (g.kind === 'and') return known.includes(false) ? false : known.every((p) => p === true) ? true : 'unknown';
      return known.includes(true) ? true : known.every((p) => p === false) ? false : 'unknown';
    }
    case 'not': {
      const a = evaluate(g.arg, writes);
      return a === 'untouched' || a === 'unknown' ? a : !a;
    }
    default:
      return 'unknown';
  }
}

/** True when a guard that held before the writes has the same value (true) after them. */
export function holdsAfter(g: Guard, writes: readonly Write[]): boolean {
  if (writes.length === 0) return true;
  const v = evaluate(g, writes);
  return v === 'untouched' || v === true;
}
