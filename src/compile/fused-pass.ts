/**
 * One pass of a fix-point system as one generated walk (issue 17, Gatekeeper). Gatekeeper runs its mutators
 * one after the other, each walking its location from the root (pkg/mutation/system.go), so 50 mutators walk
 * `spec`, `spec.containers` and every container up to 50 times per pass. Here the path ops of the policies a
 * pass runs are laid out in their order and neighbours that share a segment descend it once, running their
 * rests in order on what the one before left (the grouping of ops/fused-sets.ts, extended to tests at the
 * last segment, globs and every op kind a Gatekeeper mutator lowers to). Each op still sees exactly what it
 * would see run alone after the ones before it, so the result, key order included, is the sequential one.
 *
 * What it leaves to the ordinary per-policy run:
 * - policies with lets, guards, rule matches, `applyRules`, or ops other than sets and ModifySets of
 *   literals, image edits and removals: they run in place in the pass through runPolicy ("barriers");
 * - matches: only policies whose match is stable over the system's run (stable-match.ts) are laid out, as
 *   their outcomes are known before the pass starts; one program is generated per set of matched policies;
 * - errors: a pass that raises one is run again from its start the ordinary way (run-fixpoint.ts), so which
 *   op fails first, and what failurePolicy ignore rolls back, are the reference's;
 * - traces.
 */
import type { JsonValue } from '../ir/json.js';
import type { Op, Policy } from '../ir/nodes.js';
import type { Segment } from '../ir/path.js';
import type { CompiledPolicy } from '../interpreter/compile.js';
import { imageLeaf } from '../interpreter/ops/image.js';
import { setLeaf } from '../interpreter/ops/set.js';
import { setMembersLeaf } from '../interpreter/ops/set-members.js';
import { runPolicy, type SharedMatches } from '../interpreter/run-policy.js';
import type { FusedPass, FusedPasses } from '../interpreter/run-fixpoint.js';
import type { EvalState } from '../interpreter/state.js';
import { INHERITED, REMOVE, UNCHANGED, walk, type Leaf } from '../interpreter/walk.js';
import { generatePathWalker } from './path-walker.js';
import { Constants, instantiate, literal } from './source.js';

/** One path op of a laid-out policy. */
interface Item {
  segs: readonly Segment[];
  leaf: Leaf;
  /** Whether the walk creates missing parents (false for removals). */
  create: boolean;
  /** A literal set's value, written inline at a field. */
  value?: JsonValue;
  /** Index of the policy in the unit (for Gatekeeper's applied-mutations bookkeeping). */
  policy: number;
}

/** A policy run the ordinary way, in its place in the pass. */
interface Barrier {
  barrier: (st: EvalState, pass: number, shared: SharedMatches) => void;
  policy: number;
}

type Entry = Item | Barrier;

type Step =
  | { kind: 'leaf'; item: Item; seg: Extract<Segment, { kind: 'field' }> }
  | { kind: 'field'; seg: Extract<Segment, { kind: 'field' }>; create: boolean; steps: Step[] }
  | { kind: 'elements'; seg: Extract<Segment, { kind: 'keyedGlob' | 'each' }>; steps: Step[] }
  | { kind: 'opaque'; item: Item; depth: number }
  | { kind: 'barrier'; entry: Barrier };

/**
 * The grouping key of a segment that does not end its path, or undefined when the item keeps its own walk
 * from there: a test is checked per op at the last segment only; creating keyed elements, indexes and
 * appends stay on the ordinary walk.
 */
function groupKey(seg: Segment, create: boolean): string | undefined {
  if (seg.kind === 'field') return seg.test === undefined ? `f${create ? '+' : '-'}${seg.name}` : undefined;
  if (seg.kind === 'keyedGlob') return seg.test === 'notExist' ? undefined : 'g';
  if (seg.kind === 'each') return 'e';
  return undefined;
}

function plan(entries: readonly Entry[], depth: number): Step[] {
  type Pending = { key: string; seg: Segment; items: Item[] } | { step: Step };
  const pending: Pending[] = [];
  for (const entry of entries) {
    if ('barrier' in entry) {
      pending.push({ step: { kind: 'barrier', entry } });
      continue;
    }
    const seg = entry.segs[depth]!;
    if (depth === entry.segs.length - 1) {
      pending.push({ step: seg.kind === 'field' ? { kind: 'leaf', item: entry, seg } : { kind: 'opaque', item: entry, depth } });
      continue;
    }
    const key = groupKey(seg, entry.create);
    const previous = pending[pending.length - 1];
    if (key !== undefined && previous && 'key' in previous && previous.key === key) previous.items.push(entry);
    else pending.push(key === undefined ? { step: { kind: 'opaque', item: entry, depth } } : { key, seg, items: [entry] });
  }
  return pending.map((p): Step => {
    if ('step' in p) return p.step;
    const steps = plan(p.items, depth + 1);
    if (p.seg.kind === 'field') return { kind: 'field', seg: p.seg, create: p.items[0]!.create, steps };
    return { kind: 'elements', seg: p.seg as Extract<Segment, { kind: 'keyedGlob' | 'each' }>, steps };
  });
}

/**
 * A node variable of the generated code and its companion flag: true once the node is known to be a
 * container this pass owns (created or copied by it), so later writes go in place without asking
 * `opts.owned` again (h.writableMap's test).
 */
interface Node {
  v: string;
  owned: string;
}

class Emitter {
  private n = 0;

  constructor(readonly k: Constants) {}

  private fresh(prefix: string): string {
    return `${prefix}${this.n++}`;
  }

  node(v: string): Node {
    return { v, owned: `${v}$` };
  }

  /** Statements running `steps` on `node` (reassigned when it changes). */
  steps(steps: readonly Step[], node: Node): string {
    // The node's shape is tested once per run of map steps: our writes keep it a map; an ordinary walk or a
    // barrier may give it another shape, so the test is made again after them.
    let checked = false;
    return steps
      .map((s) => {
        const mapStep = s.kind === 'leaf' || s.kind === 'field';
        const check = mapStep && !checked ? this.checkMap(node.v) : '';
        checked = mapStep ? true : s.kind === 'elements' ? checked : false;
        return check + this.step(s, node);
      })
      .join('\n');
  }

  private step(s: Step, node: Node): string {
    switch (s.kind) {
      case 'leaf':
        return this.leaf(s.item, s.seg, node);
      case 'field':
        return this.field(s, node);
      case 'elements':
        return this.elements(s, node);
      case 'opaque':
        return this.opaque(s.item, s.depth, node);
      case 'barrier':
        return this.barrier(s.entry, node);
    }
  }

  private read(seg: Extract<Segment, { kind: 'field' }>, v: string): string {
    const name = literal(seg.name);
    return INHERITED.has(seg.name) ? `(h.hasOwn(${v}, ${name}) ? ${v}[${name}] : undefined)` : `${v}[${name}]`;
  }

  /** Statements storing `value` under the field in the node, copying the node first unless this pass owns it. */
  private store(seg: Extract<Segment, { kind: 'field' }>, node: Node, value: string): string {
    const name = literal(seg.name);
    const put = seg.name === '__proto__' ? `h.defineOwn(${node.v}, ${name}, ${value});` : `${node.v}[${name}] = ${value};`;
    return `if (!${node.owned}) { ${node.v} = h.writableMap(${node.v}, opts); ${node.owned} = true; } ${put}`;
  }

  private checkMap(v: string): string {
    return `if (${v} !== undefined && (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v}))) h.mismatch('object', ${v}, opts);\n`;
  }

  private applied(policy: number): string {
    return `if (wp !== undefined) wp[${policy}] = 1;`;
  }

  /** walkField at the last segment (walk.ts), on the parent map. */
  private leaf(item: Item, seg: Extract<Segment, { kind: 'field' }>, node: Node): string {
    const { v } = node;
    const c = this.fresh('c');
    const e = this.fresh('e');
    const test = seg.test === 'notExist' ? `!${e}` : seg.test === 'exist' ? e : 'true';
    let body: string;
    const value = item.value;
    if (value !== undefined && (value === null || typeof value !== 'object')) {
      // setLeaf of a scalar: equal means identical.
      body = `if (${c} !== ${literal(value)}) { ${this.store(seg, node, literal(value))} }`;
    } else if (value !== undefined) {
      const ref = this.k.ref(value);
      body = `if (!${e} || !h.jsonEqual(${c}, ${ref})) { ${this.store(seg, node, ref)} }`;
    } else {
      const r = this.fresh('r');
      body = `const ${r} = ${this.k.ref(item.leaf)}(${c}, ${e}, ${this.k.ref(seg)});
    if (${r} === h.TOUCHED) { if (${v} === undefined) { ${v} = h.own(opts, {}); ${node.owned} = true; } }
    else if (${r} === h.REMOVE) { if (${e}) { ${v} = h.withoutKey(${v}, ${literal(seg.name)}, opts); ${node.owned} = true; } }
    else if (${r} !== h.UNCHANGED && !(${e} && ${c} === ${r})) { ${this.store(seg, node, r)} }`;
    }
    return `{ const ${c} = ${v} === undefined ? undefined : ${this.read(seg, v)};
  const ${e} = ${c} !== undefined;
  if (${test}) { lc++; ${this.applied(item.policy)}
    ${body} } }`;
  }

  /** walkField before the last segment, for neighbours sharing the field: descended once. */
  private field(s: Extract<Step, { kind: 'field' }>, node: Node): string {
    const o = this.fresh('o');
    const child = this.node(this.fresh('c'));
    const inner = this.steps(s.steps, child);
    return `{ const ${o} = ${node.v} === undefined ? undefined : ${this.read(s.seg, node.v)};
  let ${child.v} = ${o}, ${child.owned} = false;
  ${s.create ? inner : `if (${o} !== undefined) { ${inner} }`}
  if (${child.v} !== ${o}) { ${this.store(s.seg, node, child.v)} } }`;
  }

  /** walkList of a glob or an each segment before the last segment: every element runs the steps in turn. */
  private elements(s: Extract<Step, { kind: 'elements' }>, node: Node): string {
    const { v } = node;
    const out = this.fresh('out');
    const i = this.fresh('i');
    const el = this.fresh('el');
    const child = this.node(this.fresh('c'));
    const check = s.seg.kind === 'keyedGlob' ? `if (!h.isJsonObject(${el})) h.mismatch('object', ${el}, opts);` : '';
    return `{ if (${v} !== undefined && !Array.isArray(${v})) h.mismatch('List', ${v}, opts);
  if (${v} !== undefined) { let ${out};
    for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {
      const ${el} = ${v}[${i}]; ${check}
      let ${child.v} = ${el}, ${child.owned} = false;
      ${this.steps(s.steps, child)}
      if (${child.v} !== ${el}) (${out} ??= h.writableList(${v}, opts))[${i}] = ${child.v};
    }
    if (${out} !== undefined) { ${v} = ${out}; ${node.owned} = true; } } }`;
  }

  /** The ordinary walk of the rest of one item's path. */
  private opaque(item: Item, depth: number, node: Node): string {
    const { v } = node;
    const rest = item.segs.slice(depth);
    const walker = generatePathWalker(rest) ?? ((cur, leaf, opts) => walk(cur, rest, 0, leaf, opts));
    const r = this.fresh('r');
    const b = this.fresh('b');
    // A walk's result other than its input is a container it created or copied.
    return `{ opts.create = ${item.create}; const ${b} = opts.leafCalls;
  const ${r} = ${this.k.ref(walker)}(${v}, ${this.k.ref(item.leaf)}, opts);
  if (wp !== undefined && opts.leafCalls !== ${b}) wp[${item.policy}] = 1;
  if (${r} !== h.UNCHANGED && ${r} !== ${v}) { ${v} = ${r}; ${node.owned} = true; } }`;
  }

  /** A policy run by runPolicy on the state as the pass has left it so far (only at the root). */
  private barrier(b: Barrier, node: Node): string {
    const { v } = node;
    const w = this.fresh('w');
    // The policy may start a new epoch of owned containers: ownership is asked again after it.
    return `{ st.object = ${v}; st.matchRequest = undefined; st.writes += lc + opts.leafCalls; lc = 0; opts.leafCalls = 0;
  const ${w} = st.writes;
  ${this.k.ref(b.barrier)}(st, pass, shared);
  if (wp !== undefined && st.writes !== ${w}) wp[${b.policy}] = 1;
  ${v} = st.object ?? undefined; ${node.owned} = false; opts.owned = st.owned; }`;
  }
}

function generate(entries: readonly Entry[]): FusedPass | undefined {
  const k = new Constants();
  const e = new Emitter(k);
  const root = e.node('n');
  const body = e.steps(plan(entries, 0), root);
  return instantiate<FusedPass>(
    `return function fusedPass(st, pass, shared, wp) {
  const opts = { create: true, origin: undefined, owned: st.owned, leafCalls: 0, inPlace: 0 };
  const start = st.object ?? undefined;
  let n = start, ${root.owned} = false, lc = 0;
  ${body}
  st.writes += lc + opts.leafCalls;
  st.matchRequest = undefined;
  if (n !== start) st.object = n;
};`,
    k,
  );
}

/** The item of a path op, or undefined when the op is not laid out (its policy then runs as a barrier). */
function itemOf(op: Op, policy: number): Item | undefined {
  if (op.kind !== 'set' && op.kind !== 'remove' && op.kind !== 'setMembers' && op.kind !== 'image') return undefined;
  if (op.path.root !== 'object' || op.path.segments.length === 0) return undefined;
  const segs = op.path.segments;
  switch (op.kind) {
    case 'set': {
      if (op.value.kind !== 'literal') return undefined;
      const json = op.value.json;
      return { segs, leaf: setLeaf(op, () => json), create: true, value: json, policy };
    }
    case 'remove':
      return { segs, leaf: (_old, exists) => (exists ? REMOVE : UNCHANGED), create: false, policy };
    case 'setMembers': {
      const members: JsonValue[] = [];
      for (const v of op.values) {
        if (v.kind !== 'literal') return undefined;
        members.push(v.json);
      }
      return { segs, leaf: setMembersLeaf(op, members), create: true, policy };
    }
    case 'image':
      return { segs, leaf: imageLeaf(op), create: true, policy };
  }
}

/** The items of a policy whose every part can be laid out, else undefined. */
function itemsOf(p: Policy, index: number): Item[] | undefined {
  if (p.lets?.length || p.guards.length > 0 || p.semantics.applyRules !== undefined) return undefined;
  const items: Item[] = [];
  for (const rule of p.rules) {
    if (rule.match || rule.guards.length > 0) return undefined;
    for (const op of rule.body) {
      const item = itemOf(op, index);
      if (!item) return undefined;
      items.push(item);
    }
  }
  return items;
}

/**
 * The fused passes of one fix-point unit: a program per set of matched policies, generated on first use.
 * `matchSlots` is the unit's (stable-match.ts); a policy without a slot always runs as a barrier.
 */
export function fusedPasses(policies: readonly CompiledPolicy[], matchSlots: readonly number[]): FusedPasses | undefined {
  const items = policies.map((cp, i) => (matchSlots[i]! >= 0 && cp.match.diagnostics.length === 0 ? itemsOf(cp.policy, i) : undefined));
  // Nothing to lay out, or a single policy: nothing to gain.
  if (items.filter((x) => x !== undefined).length < 2) return undefined;
  // One laid-out policy per match slot stands for the slot: the policies of a slot match alike.
  const representatives: number[] = [];
  const bitOf = items.map((laid, i) => {
    if (!laid) return -1;
    const at = representatives.findIndex((r) => matchSlots[r] === matchSlots[i]);
    return at >= 0 ? at : representatives.push(i) - 1;
  });
  const barriers = policies.map((cp, i) => (st: EvalState, pass: number, shared: SharedMatches) => void runPolicy(cp, st, pass, true, shared, i));
  const programs = new Map<string, FusedPass | null>();
  return {
    program(shared: SharedMatches, st: EvalState): FusedPass | undefined {
      // Which laid-out policies match: known before the pass, their matches being stable.
      let key = '';
      for (const r of representatives) {
        const m = shared.outcome(r, policies[r]!, st);
        if (m.error) return undefined;
        key += m.matched ? '1' : '0';
      }
      let program = programs.get(key);
      if (program === undefined) {
        const entries: Entry[] = [];
        policies.forEach((_, i) => {
          const laid = items[i];
          if (!laid) entries.push({ barrier: barriers[i]!, policy: i });
          else if (key[bitOf[i]!] === '1') entries.push(...laid);
        });
        program = generate(entries) ?? null;
        programs.set(key, program);
      }
      return program ?? undefined;
    },
  };
}
