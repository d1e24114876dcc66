/**
 * A run of literal sets (src/interpreter/ops/fused-sets.ts) specialised into straight-line JavaScript: the
 * fused walk's plan, which the interpreter walks group by group, written out as nested blocks, with each
 * literal leaf inlined. Same plan, same order of writes, same copy-on-write; only the dispatch is gone.
 */
import type { JsonValue } from '../ir/json.js';
import type { SetOp } from '../ir/nodes.js';
import type { Segment } from '../ir/path.js';
import { planAt, type Group, type Item, type Plan, type Step } from '../interpreter/ops/fused-sets.js';
import { setLeaf } from '../interpreter/ops/set.js';
import type { OpFn } from '../interpreter/ops/types.js';
import { createdElement, generatePathWalker, keyedElementTest } from './path-walker.js';
import { Constants, instantiate, literal } from './source.js';

/** Raised while emitting when some part cannot be generated: the run then keeps its closures. */
class NoCode {}

class Emitter {
  private n = 0;
  readonly functions: string[] = [];

  constructor(
    readonly k: Constants,
    readonly json: Map<Item, JsonValue>,
  ) {}

  fresh(prefix: string): string {
    return `${prefix}${this.n++}`;
  }

  /**
   * Statements running `plan` on the node held by the variable `node` (reassigned when it changes). Every
   * node variable has a companion flag, `<node>$`, true once the node is a container this run created or
   * copied, so later writes go in place without asking `opts.owned` again.
   */
  plan(plan: Plan, node: string): string {
    // The node's shape is tested once per run of field groups: their writes keep it a map; a keyed group or
    // an ordinary walk may make it a list, so the test is made again after them.
    let checked = false;
    return plan
      .map((g) => {
        const out = this.group(g, node, checked);
        checked = g.kind === 'field';
        return out;
      })
      .join('\n');
  }

  private group(g: Group, node: string, checked: boolean): string {
    if (g.kind === 'opaque') return this.opaque(g, node);
    return g.kind === 'field' ? this.field(g, node, checked) : this.keyed(g, node);
  }

  private opaque(g: Extract<Group, { kind: 'opaque' }>, node: string): string {
    const walker = generatePathWalker(g.item.segs.slice(g.depth));
    if (!walker) throw new NoCode();
    const r = this.fresh('r');
    return `{ opts.origin = ${this.k.ref(g.item.origin)};
  const ${r} = ${this.k.ref(walker)}(${node}, ${this.k.ref(g.item.leaf)}, opts);
  if (${r} !== h.UNCHANGED && ${r} !== ${node}) { ${node} = ${r}; ${node}$ = true; } }`;
  }

  private field(g: Extract<Group, { kind: 'field' }>, node: string, checked: boolean): string {
    const name = literal(g.name);
    const original = this.fresh('o');
    const child = this.fresh('c');
    const read = g.inherited ? `(h.hasOwn(${node}, ${name}) ? ${node}[${name}] : undefined)` : `${node}[${name}]`;
    const write = g.name === '__proto__' ? `h.defineOwn(${node}, ${name}, ${child});` : `${node}[${name}] = ${child};`;
    const check = checked
      ? ''
      : `if (${node} !== undefined && (typeof ${node} !== 'object' || ${node} === null || Array.isArray(${node}))) { opts.origin = ${this.k.ref(g.origin)}; h.mismatch('object', ${node}, opts); }`;
    return `{ ${check}
  const ${original} = ${node} === undefined ? undefined : ${read};
  let ${child} = ${original}, ${child}$ = false;
  ${this.steps(g.steps, child)}
  if (${child} !== ${original}) { if (!${node}$) { ${node} = h.writableMap(${node}, opts); ${node}$ = true; } ${write} } }`;
  }

  /** Steps on the value held by the variable `child`. */
  private steps(steps: readonly Step[], child: string): string {
    return steps
      .map((s) => {
        if (s.kind === 'plan') return this.plan(s.plan, child);
        return this.leaf(s.item, s.seg, child);
      })
      .join('\n');
  }

  /** A literal set's leaf at a field (setLeaf): the value, unless an equal one is there. */
  private leaf(item: Item, seg: Segment, child: string): string {
    const v = this.json.get(item);
    if (seg.kind === 'field' && v !== undefined && (v === null || typeof v !== 'object')) {
      return `opts.leafCalls++; if (${child} !== ${literal(v)}) { ${child} = ${literal(v)}; ${child}$ = false; }`;
    }
    // The value written is the policy's own literal: not owned, never written in place.
    if (seg.kind === 'field' && v !== undefined) {
      const ref = this.k.ref(v);
      return `opts.leafCalls++; if (${child} === undefined || !h.jsonEqual(${child}, ${ref})) { ${child} = ${ref}; ${child}$ = false; }`;
    }
    const r = this.fresh('r');
    return `{ opts.leafCalls++; opts.origin = ${this.k.ref(item.origin)};
  const ${r} = ${this.k.ref(item.leaf)}(${child}, ${child} !== undefined, ${this.k.ref(seg)});
  if (${r} !== h.UNCHANGED) { ${child} = ${r}; ${child}$ = false; } }`;
  }

  private keyed(g: Extract<Group, { kind: 'keyed' }>, node: string): string {
    // The steps run on a matching element or on a created one: one function, emitted once.
    const fn = this.fresh('s');
    this.functions.push(`function ${fn}(c, opts) {\nlet c$ = false;\n${this.steps(g.steps, 'c')}\nreturn c; }`);
    const out = this.fresh('out');
    return `{ if (${node} !== undefined && !Array.isArray(${node})) { opts.origin = ${this.k.ref(g.origin)}; h.mismatch('List', ${node}, opts); }
  let ${out}; let matched = false;
  if (${node}) for (let idx = 0; idx < ${node}.length; idx++) {
    const el = ${node}[idx];
    if (!(${keyedElementTest('el', g.key, g.value)})) continue;
    matched = true;
    const r = ${fn}(el, opts);
    if (r === el || r === undefined) continue;
    (${out} ??= h.writableList(${node}, opts))[idx] = r;
  }
  if (!matched) {
    ${createdElement(g.key, g.value)}
    const r = ${fn}(created, opts);
    if (r !== undefined && (r !== created || Object.keys(created).length > 1)) (${out} ??= h.writableList(${node}, opts)).push(r);
  }
  if (${out} !== undefined) { ${node} = ${out}; ${node}$ = true; } }`;
  }
}

/** Generates the fused walk of `ops` (literal sets, see isFusableSet), or undefined where it cannot. */
export function generateFusedSets(ops: readonly SetOp[]): OpFn | undefined {
  const json = new Map<Item, JsonValue>();
  const items: Item[] = ops.map((op) => {
    const value = (op.value as { json: JsonValue }).json;
    const item: Item = { segs: op.path.segments, leaf: setLeaf(op, () => value), origin: op.origin };
    json.set(item, value);
    return item;
  });
  const k = new Constants();
  const e = new Emitter(k, json);
  let body: string;
  try {
    body = e.plan(planAt(items, 0), 'n');
  } catch (x) {
    if (x instanceof NoCode) return undefined;
    throw x;
  }
  return instantiate<OpFn>(
    `${e.functions.join('\n')}
return function fusedSets(st, scope) {
  const opts = { create: true, origin: ${k.ref(items[0]!.origin)}, owned: st.owned, leafCalls: 0, inPlace: 0 };
  const start = st.object ?? undefined;
  let n = start, n$ = false;
  ${body}
  st.writes += opts.leafCalls;
  if (opts.inPlace > 0) st.matchRequest = undefined;
  if (n !== start) st.object = n;
  return scope;
};`,
    k,
  );
}
