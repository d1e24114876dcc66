/**
 * Generic traversal of IR policies for the optimizer and the tools: walks (read-only, pre-order) and
 * transforms (bottom-up, copy-on-write). A transform returns the very same object for every subtree it
 * did not change, so passes that change nothing allocate nothing and identity tells what changed.
 * Origins are kept: nodes are rebuilt with their own `origin`, and a callback decides the origin of
 * any node it creates.
 */
import type { Guard, JsonPatchStep, Op, Policy, Rule, Value } from './nodes.js';
import type { Path } from './path.js';

// ---------------------------------------------------------------------------------------------- transforms

export interface Transform {
  /** Called on each op after its parts and nested blocks were transformed; an array splices, `null` deletes. */
  op?: (op: Op) => Op | readonly Op[] | null;
  /** Called on each guard after its sub-guards, values and paths were transformed. */
  guard?: (guard: Guard) => Guard;
  /** Called on each value after its path was transformed. */
  value?: (value: Value) => Value;
  /** Called on each path (op targets, guard subjects, ref values, forEach lists). */
  path?: (path: Path) => Path;
}

/** Maps `xs` with `f`, returning `xs` itself when no element changed. */
function mapSame<T>(xs: readonly T[], f: (x: T) => T): readonly T[] {
  let out: T[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = f(x);
    if (y !== x && !out) out = xs.slice(0, i);
    if (out) out.push(y);
  }
  return out ?? xs;
}

class Transformer {
  constructor(private readonly t: Transform) {}

  path(p: Path): Path {
    return this.t.path ? this.t.path(p) : p;
  }

  value(v: Value): Value {
    let out = v;
    if (v.kind === 'ref') {
      const path = this.path(v.path);
      if (path !== v.path) out = { kind: 'ref', path, origin: v.origin };
    }
    return this.t.value ? this.t.value(out) : out;
  }

  values(vs: readonly Value[]): Value[] {
    return mapSame(vs, (v) => this.value(v)) as Value[];
  }

  guard(g: Guard): Guard {
    let out: Guard = g;
    switch (g.kind) {
      case 'exists':
      case 'notExists': {
        const path = this.path(g.path);
        if (path !== g.path) out = { kind: g.kind, path, origin: g.origin };
        break;
      }
      case 'eq':
      case 'neq': {
        const path = this.path(g.path);
        const value = this.value(g.value);
        if (path !== g.path || value !== g.value) out = { kind: g.kind, path, value, origin: g.origin };
        break;
      }
      case 'in':
      case 'notIn': {
        const path = this.path(g.path);
        const values = this.values(g.values);
        if (path !== g.path || values !== g.values) out = { kind: g.kind, path, values, origin: g.origin };
        break;
      }
      case 'match': {
        const path = this.path(g.path);
        if (path !== g.path) out = { kind: 'match', path, pattern: g.pattern, origin: g.origin };
        break;
      }
      case 'and':
      case 'or': {
        const args = this.guards(g.args);
        if (args !== g.args) out = { kind: g.kind, args, origin: g.origin };
        break;
      }
      case 'not': {
        const arg = this.guard(g.arg);
        if (arg !== g.arg) out = { kind: 'not', arg, origin: g.origin };
        break;
      }
      default:
        break;
    }
    return this.t.guard ? this.t.guard(out) : out;
  }

  guards(gs: readonly Guard[]): Guard[] {
    return mapSame(gs, (g) => this.guard(g)) as Guard[];
  }

  private step(s: JsonPatchStep): JsonPatchStep {
    if (s.value === undefined) return s;
    const value = this.value(s.value);
    return value === s.value ? s : { ...s, value };
  }

  /** The op with its parts transformed, before the op callback. */
  private parts(op: Op): Op {
    switch (op.kind) {
      case 'set':
      case 'merge': {
        const path = this.path(op.path);
        const value = this.value(op.value);
        return path === op.path && value === op.value ? op : { ...op, path, value };
      }
      case 'remove':
      case 'image': {
        const path = this.path(op.path);
        return path === op.path ? op : { ...op, path };
      }
      case 'setMembers': {
        const path = this.path(op.path);
        const values = this.values(op.values);
        return path === op.path && values === op.values ? op : { ...op, path, values };
      }
      case 'jsonPatch': {
        const steps = mapSame(op.steps, (s) => this.step(s)) as JsonPatchStep[];
        const stepsFrom = op.stepsFrom && this.value(op.stepsFrom);
        if (steps === op.steps && stepsFrom === op.stepsFrom) return op;
        return stepsFrom ? { ...op, steps, stepsFrom } : { ...op, steps };
      }
      case 'when': {
        const guard = this.guard(op.guard);
        const then = this.ops(op.then);
        const otherwise = op.else && this.ops(op.else);
        if (guard === op.guard && then === op.then && otherwise === op.else) return op;
        return otherwise ? { kind: 'when', guard, then, else: otherwise, origin: op.origin } : { kind: 'when', guard, then, origin: op.origin };
      }
      case 'forEach': {
        const list = 'kind' in op.list ? this.value(op.list) : this.path(op.list);
        const body = this.ops(op.body);
        return list === op.list && body === op.body ? op : { ...op, list, body };
      }
      case 'let': {
        const value = this.value(op.value);
        return value === op.value ? op : { ...op, value };
      }
      case 'fail':
        return op;
    }
  }

  ops(ops: readonly Op[]): Op[] {
    let out: Op[] | undefined;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const inner = this.parts(op);
      const r = this.t.op ? this.t.op(inner) : inner;
      if (r === op && !out) continue;
      out ??= ops.slice(0, i);
      if (r === null) continue;
      if (Array.isArray(r)) out.push(...(r as readonly Op[]));
      else out.push(r as Op);
    }
    return out ?? (ops as Op[]);
  }

  rule(r: Rule): Rule {
    const guards = this.guards(r.guards);
    const body = this.ops(r.body);
    return guards === r.guards && body === r.body ? r : { ...r, guards, body };
  }

  policy(p: Policy): Policy {
    const guards = this.guards(p.guards);
    const rules = mapSame(p.rules, (r) => this.rule(r)) as Rule[];
    return guards === p.guards && rules === p.rules ? p : { ...p, guards, rules };
  }
}

export function transformPolicy(policy: Policy, t: Transform): Policy {
  return new Transformer(t).policy(policy);
}

export function transformPolicies(policies: readonly Policy[], t: Transform): Policy[] {
  const tr = new Transformer(t);
  return mapSame(policies, (p) => tr.policy(p)) as Policy[];
}

/** Transforms a block of ops (e.g. a rule body) on its own. */
export function transformOps(ops: readonly Op[], t: Transform): Op[] {
  return new Transformer(t).ops(ops);
}

export function transformGuard(guard: Guard, t: Transform): Guard {
  return new Transformer(t).guard(guard);
}

export function mapOps(policy: Policy, fn: NonNullable<Transform['op']>): Policy {
  return transformPolicy(policy, { op: fn });
}

export function mapGuards(policy: Policy, fn: (guard: Guard) => Guard): Policy {
  return transformPolicy(policy, { guard: fn });
}

export function mapValues(policy: Policy, fn: (value: Value) => Value): Policy {
  return transformPolicy(policy, { value: fn });
}

export function mapPaths(policy: Policy, fn: (path: Path) => Path): Policy {
  return transformPolicy(policy, { path: fn });
}

// ---------------------------------------------------------------------------------------------- walks

/** Where an op sits: its policy, its rule and the ops enclosing it (outermost first). */
export interface OpContext {
  policy: Policy;
  rule: Rule;
  ancestors: readonly Op[];
}

export interface Visitor {
  policy?: (policy: Policy) => void;
  rule?: (rule: Rule, policy: Policy) => void;
  op?: (op: Op, ctx: OpContext) => void;
  guard?: (guard: Guard) => void;
  value?: (value: Value) => void;
  path?: (path: Path) => void;
}

class Walker {
  constructor(private readonly v: Visitor) {}

  path(p: Path): void {
    this.v.path?.(p);
  }

  value(x: Value): void {
    this.v.value?.(x);
    if (x.kind === 'ref') this.path(x.path);
  }

  guard(g: Guard): void {
    this.v.guard?.(g);
    switch (g.kind) {
      case 'exists':
      case 'notExists':
      case 'match':
        return this.path(g.path);
      case 'eq':
      case 'neq':
        this.path(g.path);
        return this.value(g.value);
      case 'in':
      case 'notIn':
        this.path(g.path);
        for (const x of g.values) this.value(x);
        return;
      case 'and':
      case 'or':
        for (const a of g.args) this.guard(a);
        return;
      case 'not':
        return this.guard(g.arg);
      default:
        return;
    }
  }

  ops(ops: readonly Op[], policy: Policy, rule: Rule, ancestors: Op[]): void {
    for (const op of ops) this.op(op, policy, rule, ancestors);
  }

  op(op: Op, policy: Policy, rule: Rule, ancestors: Op[]): void {
    this.v.op?.(op, { policy, rule, ancestors });
    switch (op.kind) {
      case 'set':
      case 'merge':
        this.path(op.path);
        return this.value(op.value);
      case 'remove':
      case 'image':
        return this.path(op.path);
      case 'setMembers':
        this.path(op.path);
        for (const x of op.values) this.value(x);
        return;
      case 'jsonPatch':
        for (const s of op.steps) if (s.value) this.value(s.value);
        if (op.stepsFrom) this.value(op.stepsFrom);
        return;
      case 'let':
        return this.value(op.value);
      case 'fail':
        return;
      case 'when':
        this.guard(op.guard);
        ancestors.push(op);
        this.ops(op.then, policy, rule, ancestors);
        if (op.else) this.ops(op.else, policy, rule, ancestors);
        ancestors.pop();
        return;
      case 'forEach':
        if ('kind' in op.list) this.value(op.list);
        else this.path(op.list);
        ancestors.push(op);
        this.ops(op.body, policy, rule, ancestors);
        ancestors.pop();
        return;
    }
  }

  policy(p: Policy): void {
    this.v.policy?.(p);
    for (const g of p.guards) this.guard(g);
    for (const r of p.rules) {
      this.v.rule?.(r, p);
      for (const g of r.guards) this.guard(g);
      this.ops(r.body, p, r, []);
    }
  }
}

/** Visits every node of the policies in source order (pre-order: a node before its parts). */
export function walk(policies: Policy | readonly Policy[], visitor: Visitor): void {
  const w = new Walker(visitor);
  for (const p of Array.isArray(policies) ? policies : [policies as Policy]) w.policy(p);
}

export function walkOps(policies: Policy | readonly Policy[], fn: (op: Op, ctx: OpContext) => void): void {
  walk(policies, { op: fn });
}

export function walkGuards(policies: Policy | readonly Policy[], fn: (guard: Guard) => void): void {
  walk(policies, { guard: fn });
}

export function walkValues(policies: Policy | readonly Policy[], fn: (value: Value) => void): void {
  walk(policies, { value: fn });
}

export function walkPaths(policies: Policy | readonly Policy[], fn: (path: Path) => void): void {
  walk(policies, { path: fn });
}
