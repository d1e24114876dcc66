/**
 * Compiles the CEL AST into JavaScript closures `(ctx) => value`, once per expression.
 *
 * - Identifiers are bound at compile time: comprehension variables to slots in `ctx.locals`,
 *   declared variables to activation reads, type names to constants.
 * - Calls are bound to their implementation at compile time; constant sub-expressions are folded
 *   (an error during folding keeps the runtime closure, so `1/0 == 1 || true` still absorbs it).
 * - Cost: every node has a static cost (cel-go interpreter/runtimecost.go: 1 per ident, select
 *   and call, 10 per list literal, 30 per map, 40 per message); the part that always runs is
 *   charged once per evaluation, branches of && || ?: when taken, loop bodies per iteration, and
 *   functions with size-dependent cost add theirs when called.
 * - Nodes of the common kinds also carry an `ir` describing what their closure does: codegen.ts writes a
 *   program out from it as JavaScript of its own. The closures stay the reference (and run what has no IR).
 */
import { qualifiedName, type Expr } from './ast.js';
import type { ResolvedEnv } from './env.js';
import { fieldChain, fixedKeyLiteral, fixedKeyObject, isJsonObject, isSafeFieldName, type ChainBase, type ChainHelpers } from './fastpath.js';
import { constantObjectJson, jsonPatchOp, patchFieldNotString, type JsonPatchOp } from './mutation.js';
import * as ops from './operators.js';
import { internString } from '../util/intern.js';
import type { FunctionDef, Registry } from './registry.js';
import type { KyvernoDataProvider } from './lib/kyverno-context.js';
import type { ImageDataTable } from './lib/image-data.js';
import {
  CelCostLimitError,
  CelError,
  CelMap,
  CelObject,
  ConstantCelObject,
  ConstantJsonPatch,
  CelOptional,
  CelType,
  CelUint,
  MapBuilder,
  TYPES,
  defineKey,
  err,
  isPlainMap,
  kindOf,
  mapEntries,
  mapKeys,
  mkDouble,
  noOverload,
  NoOverloadError,
  type Kind,
} from './values.js';

export interface Ctx {
  act: Record<string, unknown>;
  locals: unknown[];
  cost: number;
  limit: number;
  /** The activation has dotted variable names (cel-go qualified identifiers, e.g. `a.b`). */
  dotted: boolean;
  services: RuntimeServices;
}

/**
 * Things the host provides to library functions at evaluation time (EvalOptions.services), read by the
 * functions declared with `services: true`: a program stays one immutable value evaluated under any host.
 */
export interface RuntimeServices {
  authorizer?: unknown;
  /** The cluster data Kyverno's CEL libraries read (resource.Get/List, globalContext.Get). */
  kyvernoData?: KyvernoDataProvider;
  /** Image metadata offline, for Kyverno's imagedata library (image.GetMetadata). */
  imageData?: ImageDataTable;
}

export type Fn = (c: Ctx) => unknown;

export interface Node {
  fn: Fn;
  /** Static cost of the always-evaluated part of this subtree. */
  cost: number;
  constant?: { value: unknown };
  /** Set when the node only reads a comprehension variable or a declared variable: field chains start from it directly. */
  chainBase?: ChainBase;
  /** What `fn` computes, for codegen.ts to write out as per-program source; absent: codegen calls `fn`. */
  ir?: Ir;
}

/**
 * The node kinds codegen.ts writes out. Each describes exactly what the node's closure does (same
 * children, same order, same helpers), so generated and closure programs agree on values, errors and cost.
 */
export type Ir =
  | { op: 'slot'; slot: number }
  | { op: 'variable'; name: string }
  /** `base.f1.f2...`; with `optional`, `base.?f1.?f2...` giving the value or ABSENT. */
  | { op: 'chain'; base: Node; fields: readonly string[]; optional: boolean }
  /** An optional chain (`chain` has `optional`) wrapped into a CelOptional. */
  | { op: 'optional'; chain: Node }
  | { op: 'orValue'; chain: Node; fallback: Node }
  | { op: 'has'; operand: Node; field: string }
  | { op: 'index'; operand: Node; index: Node; optional: boolean }
  | { op: 'binary'; fn: string; l: Node; r: Node }
  | { op: 'unary'; fn: '-_' | '!_'; a: Node }
  | { op: 'logical'; isOr: boolean; l: Node; r: Node }
  | { op: 'conditional'; cond: Node; t: Node; f: Node }
  /** A bound library function: `impl(...args)`, or `impl(c.services, ...args)` with `services`; `costFn` charges after the arguments. */
  | { op: 'call'; impl: (...a: unknown[]) => unknown; args: Node[]; costFn?: (...a: unknown[]) => number; services: boolean }
  | { op: 'list'; elements: Node[] }
  /**
   * `{k0: v0, ...}` with fixed, distinct keys other than `__proto__` (fastpath.fixedKeyLiteral), passed to `wrap` when set;
   * `typeName` is the literal's message type when it is an `Object.*` or `JSONPatch` literal (then `wrap` is set).
   */
  | { op: 'object'; keys: readonly string[]; values: Node[]; wrap?: (fields: Record<string, unknown>) => unknown; typeName?: string }
  | { op: 'comprehension'; macro: 'all' | 'exists' | 'exists_one' | 'map' | 'transformList' | 'filter'; range: Node; s1: number; s2: number; args: Node[]; perIter: number };

export class CompileError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

const TYPE_IDENTS: Record<string, CelType> = {
  int: TYPES.int,
  uint: TYPES.uint,
  double: TYPES.double,
  bool: TYPES.bool,
  string: TYPES.string,
  bytes: TYPES.bytes,
  list: TYPES.list,
  map: TYPES.map,
  null_type: TYPES.null_type,
  type: TYPES.type,
  optional_type: TYPES.optional_type,
  'google.protobuf.Timestamp': TYPES.timestamp,
  'google.protobuf.Duration': TYPES.duration,
};

const hasOwn = Object.prototype.hasOwnProperty;

/** Marks "no value" in fused optional chains. */
const ABSENT = Symbol('absent');

const CHAIN_HELPERS: ChainHelpers = Object.freeze({
  select: ops.select,
  optSelect: ops.optSelect,
  noAttribute: (name: string): never => err(`no such attribute: ${name}`),
  absent: ABSENT,
});

function charge(c: Ctx, k: number): void {
  c.cost += k;
  if (c.cost > c.limit) throw new CelCostLimitError();
}

function isFatal(e: unknown): boolean {
  return !(e instanceof CelError) || e.fatal;
}

/** A comprehension's iteration items: a list's elements or a map's keys. */
function comprehensionItems(r: unknown, macro: string): unknown[] {
  if (Array.isArray(r)) return r;
  if (isJsonObject(r)) return Object.keys(r);
  if (r instanceof CelMap || isPlainMap(r)) return mapKeys(r);
  return noOverload(`${macro} (comprehension range)`, r);
}

/** A map's values in the order of comprehensionItems (two-variable comprehensions). */
function comprehensionValues(r: unknown): unknown[] {
  return mapEntries(r as Record<string, unknown>).map((x) => x[1]);
}


const noCtx: Ctx = { act: {}, locals: [], cost: 0, limit: Infinity, dotted: false, services: {} };

export class Compiler {
  slots = 0;
  private scopes: Map<string, number>[] = [];

  constructor(
    private readonly env: ResolvedEnv,
    private readonly registry: Registry,
  ) {}

  compileRoot(e: Expr): Node {
    return this.compile(e, true);
  }

  private constant(given: unknown): Node {
    const value = typeof given === 'string' ? internString(given) : given;
    return { fn: () => value, cost: 0, constant: { value } };
  }

  /** Fold when every child is constant and the operation is pure. */
  private fold(node: Node, children: Node[]): Node {
    if (!children.every((ch) => ch.constant)) return node;
    try {
      const value = node.fn({ ...noCtx, locals: new Array(this.slots) });
      return this.constant(value);
    } catch (e) {
      if (isFatal(e)) throw e;
      return node;
    }
  }

  /** A folded `Object.*` literal as a ConstantCelObject, its JSON made once (see there). */
  private withConstantJson(node: Node): Node {
    const v = node.constant?.value;
    if (!(v instanceof CelObject) || v instanceof ConstantCelObject) return node;
    const json = constantObjectJson(v);
    return json === undefined ? node : this.constant(new ConstantCelObject(v.typeName, v.fields, json));
  }

  /** A folded `JSONPatch` literal as a ConstantJsonPatch, its patch operation made once (see there). */
  private withConstantPatchOp(node: Node): Node {
    const v = node.constant?.value;
    if (!(v instanceof CelObject) || v instanceof ConstantJsonPatch || v.typeName !== 'JSONPatch') return node;
    let op: JsonPatchOp;
    try {
      op = jsonPatchOp(v);
    } catch (e) {
      // A value without JSON fails at each evaluation, as it would unfolded.
      if (isFatal(e)) throw e;
      return node;
    }
    return this.constant(new ConstantJsonPatch(v.fields, Object.freeze(op)));
  }

  private local(name: string): number | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i]!.get(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  private isDeclared(name: string): boolean {
    const vars = this.env.variables;
    return vars === undefined ? false : vars.has(name);
  }

  private compile(e: Expr, root = false): Node {
    switch (e.kind) {
      case 'literal':
        return this.constant(literalValue(e.lit));
      case 'ident':
        return this.ident(e);
      case 'select':
        return this.select(e);
      case 'index':
        return this.index(e);
      case 'call':
        return this.call(e, root);
      case 'list':
        return this.list(e, root);
      case 'map':
        return this.map(e, root);
      case 'struct':
        return this.struct(e, root);
      case 'comprehension':
        return this.comprehension(e);
    }
  }

  // ---------------------------------------------------------------------------------------- identifiers
  private ident(e: Extract<Expr, { kind: 'ident' }>): Node {
    const name = e.name;
    if (!e.leadingDot) {
      const slot = this.local(name);
      if (slot !== undefined) return { fn: (c) => c.locals[slot], cost: 1, chainBase: { kind: 'slot', slot }, ir: { op: 'slot', slot } };
    }
    const resolved = this.resolveGlobalName(name, e.leadingDot === true);
    if (resolved) return resolved;
    if (this.env.variables !== undefined) throw new CompileError(`undeclared reference to '${name}' (in container '${this.env.container}')`, e.start, e.end);
    return {
      fn: (c) => {
        const act = c.act;
        const cont = this.env.container;
        if (cont && hasOwn.call(act, `${cont}.${name}`)) return act[`${cont}.${name}`];
        if (hasOwn.call(act, name)) {
          const v = act[name];
          if (v !== undefined) return v;
        }
        return err(`undeclared reference to '${name}' (in container '${cont}')`);
      },
      cost: 1,
    };
  }

  /** A declared variable or type name spelled `name` (container-qualified candidates first). */
  private resolveGlobalName(name: string, absolute: boolean): Node | undefined {
    const candidates = absolute || !this.env.container ? [name] : [`${this.env.container}.${name}`, name];
    for (const cand of candidates) {
      if (this.isDeclared(cand)) {
        const chainBase: ChainBase = { kind: 'variable', name: cand };
        return { fn: fieldChain(chainBase, [], false, CHAIN_HELPERS), cost: 1, chainBase, ir: { op: 'variable', name: cand } };
      }
    }
    for (const cand of candidates) {
      const t = TYPE_IDENTS[cand];
      if (t && (this.env.variables !== undefined || !this.activationMayShadow(cand))) return this.constant(t);
    }
    return undefined;
  }

  private activationMayShadow(_name: string): boolean {
    return false;
  }

  // ---------------------------------------------------------------------------------------- select / index
  private select(e: Extract<Expr, { kind: 'select' }>): Node {
    const field = e.field;
    // Qualified names: a declared dotted variable (`authorizer.requestResource`) or a type (`google.protobuf.Timestamp`).
    if (!e.testOnly && !e.optional) {
      const q = qualifiedName(e);
      if (q !== undefined && !q.startsWith('.') && this.local(q.split('.')[0]!) === undefined) {
        const direct = this.resolveGlobalName(q, false);
        if (direct) return direct;
        if (this.env.variables === undefined) return this.dynamicQualified(e, q);
      }
    }
    if (!e.testOnly && !e.optional) return this.selectPath(e);
    const operand = this.compile(e.operand);
    const op = operand.fn;
    let node: Node;
    if (e.testOnly) {
      node = isSafeFieldName(field)
        ? {
            fn: (c) => {
              const o = op(c);
              return isJsonObject(o) ? hasOwn.call(o, field) : ops.hasField(o, field);
            },
            cost: operand.cost,
            ir: { op: 'has', operand, field },
          }
        : { fn: (c) => ops.hasField(op(c), field), cost: operand.cost, ir: { op: 'has', operand, field } };
    } else {
      const chain = this.optChain(e);
      const walk = chain.fn;
      node = {
        fn: (c) => {
          const v = walk(c);
          return v === ABSENT ? CelOptional.NONE : CelOptional.of(v);
        },
        cost: chain.cost,
        ir: { op: 'optional', chain },
      };
    }
    return this.fold(node, [operand]);
  }

  /**
   * A chain of plain selections `base.f1.f2...` walked in one closure (one keyed load per field on JSON
   * objects; anything else goes through ops.select). The chain stops below a prefix that names a
   * declared dotted variable or a type, which resolves as a whole.
   */
  private selectPath(e: Extract<Expr, { kind: 'select' }>): Node {
    const fields: string[] = [e.field];
    let base: Expr = e.operand;
    while (base.kind === 'select' && !base.testOnly && !base.optional) {
      const q = qualifiedName(base);
      if (q !== undefined && !q.startsWith('.') && this.local(q.split('.')[0]!) === undefined && this.resolveGlobalName(q, false)) break;
      fields.unshift(base.field);
      base = base.operand;
    }
    const n = fields.length;
    const cost = n;
    const safe = fields.every(isSafeFieldName);
    const b = this.compile(base);
    const bf = b.fn;
    let fn: Fn;
    if (!safe) {
      fn = (c) => {
        let o = bf(c);
        for (let i = 0; i < n; i++) o = ops.select(o, fields[i]!);
        return o;
      };
    } else {
      fn = fieldChain(b.chainBase ?? { kind: 'fn', fn: bf }, fields, false, CHAIN_HELPERS);
    }
    return this.fold({ fn, cost: b.cost + cost, ir: { op: 'chain', base: b, fields, optional: false } }, [b]);
  }

  /**
   * `a.?b.?c` walked without allocating the intermediate optionals: returns the value or ABSENT.
   * Same result as applying ops.optSelect step by step.
   */
  private optChain(e: Extract<Expr, { kind: 'select' }>): Node {
    const fields: string[] = [];
    let base: Expr = e;
    while (base.kind === 'select' && base.optional && !base.testOnly) {
      fields.unshift(base.field);
      base = base.operand;
    }
    const b = this.compile(base);
    const bf = b.fn;
    const n = fields.length;
    const ir: Ir = { op: 'chain', base: b, fields, optional: true };
    if (fields.every(isSafeFieldName)) return { fn: fieldChain(b.chainBase ?? { kind: 'fn', fn: bf }, fields, true, CHAIN_HELPERS), cost: b.cost + n, ir };
    return {
      fn: (c) => {
        let o = bf(c);
        for (let i = 0; i < n; i++) {
          const f = fields[i]!;
          if (o !== null && typeof o === 'object' && (o as object).constructor === Object) {
            if (!hasOwn.call(o, f)) return ABSENT;
            o = (o as Record<string, unknown>)[f];
            continue;
          }
          const r = ops.optSelect(o, f);
          if (!r.has) return ABSENT;
          o = r.value;
        }
        return o;
      },
      cost: b.cost + n,
      ir,
    };
  }

  /** Without declarations, `a.b.c` may name an activation entry "a.b.c" or "a.b" (cel-go qualified resolution, longest first). */
  private dynamicQualified(e: Extract<Expr, { kind: 'select' }>, q: string): Node {
    const parts = q.split('.');
    const normal = this.selectChain(e);
    return {
      fn: (c) => {
        if (c.dotted) {
          for (let n = parts.length; n >= 2; n--) {
            const name = parts.slice(0, n).join('.');
            if (hasOwn.call(c.act, name)) {
              let v = c.act[name];
              for (let i = n; i < parts.length; i++) v = ops.select(v, parts[i]!);
              return v;
            }
          }
        }
        return normal(c);
      },
      cost: parts.length,
    };
  }

  private selectChain(e: Extract<Expr, { kind: 'select' }>): Fn {
    const operand = e.operand.kind === 'select' ? { fn: this.selectChain(e.operand) } : this.compile(e.operand);
    const op = operand.fn;
    const field = e.field;
    return (c) => ops.select(op(c), field);
  }

  private index(e: Extract<Expr, { kind: 'index' }>): Node {
    const operand = this.compile(e.operand);
    const idx = this.compile(e.index);
    const o = operand.fn;
    const i = idx.fn;
    const ir: Ir = { op: 'index', operand, index: idx, optional: e.optional };
    const node: Node = e.optional
      ? { fn: (c) => ops.optIndex(o(c), i(c)), cost: operand.cost + idx.cost + 1, ir }
      : {
          fn: (c) => {
            const x = o(c);
            const k = i(c);
            if (Array.isArray(x) && typeof k === 'number' && Number.isSafeInteger(k) && k >= 0 && k < x.length) return x[k];
            return ops.index(x, k);
          },
          cost: operand.cost + idx.cost + 1,
          ir,
        };
    return this.fold(node, [operand, idx]);
  }

  // ---------------------------------------------------------------------------------------- calls
  private call(e: Extract<Expr, { kind: 'call' }>, root = false): Node {
    switch (e.fn) {
      case '_&&_':
        return this.logical(e, false);
      case '_||_':
        return this.logical(e, true);
      case '_?_:_':
        return this.conditional(e, root);
    }
    const binary = BINARY[e.fn];
    if (binary && e.args.length === 2 && !e.target) {
      const l = this.compile(e.args[0]!);
      const r = this.compile(e.args[1]!);
      const lf = l.fn;
      const rf = r.fn;
      let fn: Fn = specializedBinary(e.fn, lf, rf, l.constant, r.constant) ?? ((c) => binary(lf(c), rf(c)));
      if (e.fn === '@in' && r.constant && Array.isArray(r.constant.value) && r.constant.value.every((x) => typeof x === 'string')) {
        const set = new Set(r.constant.value as string[]);
        fn = (c) => {
          const x = lf(c);
          return typeof x === 'string' ? set.has(x) : binary(x, r.constant!.value);
        };
      }
      return this.fold({ fn, cost: l.cost + r.cost + 1, ir: { op: 'binary', fn: e.fn, l, r } }, [l, r]);
    }
    if ((e.fn === '-_' || e.fn === '!_') && e.args.length === 1 && !e.target) {
      const a = this.compile(e.args[0]!);
      const af = a.fn;
      const fn: Fn = e.fn === '-_' ? (c) => ops.neg(af(c)) : (c) => ops.not(af(c));
      return this.fold({ fn, cost: a.cost + 1, ir: { op: 'unary', fn: e.fn, a } }, [a]);
    }
    // Namespaced global functions parse as member calls on an identifier chain: optional.of(x), jsonpatch.escapeKey(s).
    if (e.target) {
      const q = qualifiedName(e.target);
      if (q !== undefined && this.local(q.split('.')[0]!) === undefined && !this.isDeclared(q.split('.')[0]!)) {
        const name = `${q.replace(/^\./, '')}.${e.fn}`;
        const defs = this.registry.lookup('global', name, this.env.libraries);
        if (defs.length > 0) return this.bind(e, name, defs, undefined, e.args);
      }
      if (
        e.fn === 'orValue' &&
        e.args.length === 1 &&
        e.target.kind === 'select' &&
        e.target.optional &&
        !e.target.testOnly &&
        this.env.libraries.has('optional')
      ) {
        const chainNode = this.optChain(e.target);
        const chain = chainNode.fn;
        const d = this.compile(e.args[0]!);
        const df = d.fn;
        return {
          fn: (c) => {
            const v = chain(c);
            return v === ABSENT ? df(c) : v;
          },
          cost: 2 + d.cost,
          ir: { op: 'orValue', chain: chainNode, fallback: d },
        };
      }
      const defs = this.registry.lookup('member', e.fn, this.env.libraries);
      return this.bind(e, e.fn, defs, e.target, e.args);
    }
    const name = e.fn.replace(/^\./, '');
    const candidates = this.env.container && !e.fn.startsWith('.') ? [`${this.env.container}.${name}`, name] : [name];
    for (const cand of candidates) {
      const defs = this.registry.lookup('global', cand, this.env.libraries);
      if (defs.length > 0) return this.bind(e, cand, defs, undefined, e.args);
    }
    return this.bind(e, name, [], undefined, e.args);
  }

  private bind(e: Extract<Expr, { kind: 'call' }>, name: string, defs: FunctionDef[], target: Expr | undefined, argExprs: Expr[]): Node {
    const arity = argExprs.length;
    const matching = defs.filter((d) => d.arity.includes(arity));
    if (matching.length === 0) {
      const message =
        defs.length === 0 ? `undeclared reference to '${name}' (in container '${this.env.container}')` : `found no matching overload for '${name}' applied to ${arity} argument(s)`;
      if (this.env.variables !== undefined) throw new CompileError(message, e.namePos, e.namePos + e.fn.length);
      // Unchecked mode: the error happens at evaluation, where && / || may still absorb it.
      const children = [...(target ? [target] : []), ...argExprs].map((x) => this.compile(x));
      const fns = children.map((ch) => ch.fn);
      return {
        fn: (c) => {
          for (const f of fns) f(c);
          return err(defs.length === 0 ? `no such function: ${name}` : `no such overload: ${name}`);
        },
        cost: 1 + children.reduce((s, ch) => s + ch.cost, 0),
      };
    }
    const children = [...(target ? [target] : []), ...argExprs].map((x) => this.compile(x));
    const base = matching.length === 1 || !target ? matching[0]!.impl : dispatchByReceiver(name, matching);
    // A library bug, caught when the first expression calls it: services come before the receiver, so receiver dispatch cannot mix them.
    if (matching.some((d) => d.services) && (!matching.every((d) => d.services) || (target && matching.length > 1))) throw new Error(`overloads of ${name} cannot be dispatched with the evaluation's services`);
    const impl = matching[0]!.services ? undefined : base;
    const costFn = matching.find((d) => d.cost)?.cost;
    const pure = matching.every((d) => d.pure !== false && !d.services);
    const fns = children.map((ch) => ch.fn);
    let fn: Fn;
    if (impl === undefined) {
      // The host's services come first, before the receiver and the arguments (FunctionDef.services).
      fn = (c) => {
        const args = fns.map((f) => f(c));
        if (costFn) charge(c, costFn(...args));
        return base(c.services, ...args);
      };
    } else if (costFn) {
      fn = (c) => {
        const args = fns.map((f) => f(c));
        charge(c, costFn(...args));
        return impl(...args);
      };
    } else if (fns.length === 0) {
      fn = () => impl();
    } else if (fns.length === 1) {
      const [a] = fns as [Fn];
      fn = (c) => impl(a(c));
    } else if (fns.length === 2) {
      const [a, b] = fns as [Fn, Fn];
      fn = (c) => impl(a(c), b(c));
    } else if (fns.length === 3) {
      const [a, b, d] = fns as [Fn, Fn, Fn];
      fn = (c) => impl(a(c), b(c), d(c));
    } else {
      fn = (c) => impl(...fns.map((f) => f(c)));
    }
    const ir: Ir = { op: 'call', impl: impl ?? base, args: children, services: impl === undefined, ...(costFn ? { costFn } : {}) };
    const node: Node = { fn, cost: 1 + children.reduce((s, ch) => s + ch.cost, 0), ir };
    return pure ? this.fold(node, children) : node;
  }

  private logical(e: Extract<Expr, { kind: 'call' }>, isOr: boolean): Node {
    const l = this.compile(e.args[0]!);
    const r = this.compile(e.args[1]!);
    const lf = l.fn;
    const rf = r.fn;
    const rc = r.cost;
    const short = isOr;
    // cel-go: the result is `short` if either side is `short`; otherwise an error from either side wins; non-bools are no-overload errors.
    const fn: Fn = (c) => {
      let le: unknown;
      let lv: unknown;
      try {
        lv = lf(c);
        if (lv === short) return short;
      } catch (x) {
        if (isFatal(x)) throw x;
        le = x;
      }
      if (rc) charge(c, rc);
      const rv = rf(c);
      if (rv === short) return short;
      if (le !== undefined) throw le;
      if (typeof lv !== 'boolean' || typeof rv !== 'boolean') return noOverload(isOr ? '_||_' : '_&&_', lv, rv);
      return !short;
    };
    return this.fold({ fn, cost: l.cost + 1, ir: { op: 'logical', isOr, l, r } }, [l, r]);
  }

  /** `root`: the branches are the program's result (kept fresh per evaluation, like a root list). */
  private conditional(e: Extract<Expr, { kind: 'call' }>, root: boolean): Node {
    const cnd = this.compile(e.args[0]!);
    const t = this.compile(e.args[1]!, root);
    const f = this.compile(e.args[2]!, root);
    const cf = cnd.fn;
    const tf = t.fn;
    const ff = f.fn;
    const tc = t.cost;
    const fc = f.cost;
    if (cnd.constant && typeof cnd.constant.value === 'boolean') return cnd.constant.value ? t : f;
    const fn: Fn = (c) => {
      const v = cf(c);
      if (v === true) {
        if (tc) charge(c, tc);
        return tf(c);
      }
      if (v === false) {
        if (fc) charge(c, fc);
        return ff(c);
      }
      return noOverload('_?_:_', v);
    };
    return { fn, cost: cnd.cost, ir: { op: 'conditional', cond: cnd, t, f } };
  }

  // ---------------------------------------------------------------------------------------- literals
  private list(e: Extract<Expr, { kind: 'list' }>, root: boolean): Node {
    const els = e.elements.map((x) => this.compile(x));
    const fns = els.map((x) => x.fn);
    const optional = e.optional;
    const anyOptional = optional.some(Boolean);
    const fn: Fn = anyOptional
      ? (c) => {
          const out: unknown[] = [];
          for (let i = 0; i < fns.length; i++) {
            const v = fns[i]!(c);
            if (optional[i]) {
              if (!(v instanceof CelOptional)) return noOverload('optional list element', v);
              if (v.has) out.push(v.value);
            } else out.push(v);
          }
          return out;
        }
      : fns.length === 1
        ? (c) => [fns[0]!(c)]
        : (c) => fns.map((f) => f(c));
    const node: Node = { fn, cost: 10 + els.reduce((s, x) => s + x.cost, 0), ...(anyOptional ? {} : { ir: { op: 'list', elements: els } as const }) };
    return root ? node : this.fold(node, els);
  }

  private map(e: Extract<Expr, { kind: 'map' }>, root: boolean): Node {
    const keys = e.entries.map((x) => this.compile(x.key));
    const vals = e.entries.map((x) => this.compile(x.value));
    const kf = keys.map((x) => x.fn);
    const vf = vals.map((x) => x.fn);
    const optional = e.entries.map((x) => x.optional);
    const cost = 30 + keys.reduce((s, x) => s + x.cost, 0) + vals.reduce((s, x) => s + x.cost, 0);
    const constKeys = keys.map((k) => k.constant?.value);
    if (
      !optional.some(Boolean) &&
      constKeys.every((k) => typeof k === 'string' && k !== '__proto__') &&
      new Set(constKeys).size === constKeys.length
    ) {
      const node: Node = { fn: fixedKeyLiteral(constKeys as string[], vf), cost, ir: { op: 'object', keys: constKeys as string[], values: vals } };
      return root ? node : this.fold(node, vals);
    }
    const fn: Fn = (c) => {
      const b = new MapBuilder();
      for (let i = 0; i < kf.length; i++) {
        const k = kf[i]!(c);
        const v = vf[i]!(c);
        if (optional[i]) {
          if (!(v instanceof CelOptional)) return noOverload('optional map entry', v);
          if (v.has) b.set(k, v.value);
        } else b.set(k, v);
      }
      return b.build();
    };
    const node: Node = { fn, cost };
    return root ? node : this.fold(node, [...keys, ...vals]);
  }

  private struct(e: Extract<Expr, { kind: 'struct' }>, root: boolean): Node {
    const typeName = e.typeName.replace(/^\./, '');
    const isObject = typeName === 'Object' || typeName.startsWith('Object.');
    const isPatch = typeName === 'JSONPatch';
    if (!this.env.mutationTypes || (!isObject && !isPatch)) {
      if (this.env.variables !== undefined) throw new CompileError(`undeclared reference to '${typeName}'`, e.start, e.start + e.typeName.length);
      return { fn: () => err(`unknown type: ${typeName}`), cost: 40 };
    }
    const seen = new Set<string>();
    for (const f of e.fields) {
      if (seen.has(f.name)) throw new CompileError(`field '${f.name}' is set more than once`, f.namePos.start, f.namePos.end);
      seen.add(f.name);
      if (isPatch && !['op', 'path', 'from', 'value'].includes(f.name)) {
        throw new CompileError(`undefined field '${f.name}' for type 'JSONPatch'`, f.namePos.start, f.namePos.end);
      }
    }
    const names = e.fields.map((f) => f.name);
    const vals = e.fields.map((f) => this.compile(f.value));
    const vf = vals.map((v) => v.fn);
    const optional = e.fields.map((f) => f.optional);
    const anyOptional = optional.some(Boolean);
    const cost = 40 + vals.reduce((s, v) => s + v.cost, 0);
    if (!anyOptional && !names.includes('__proto__')) {
      const patchStrings = isPatch ? names.map((n, i) => (n === 'value' ? -1 : i)).filter((i) => i >= 0) : [];
      const wrap = isPatch
        ? (fields: Record<string, unknown>): CelObject => {
            for (const i of patchStrings) {
              const v = fields[names[i]!];
              if (typeof v !== 'string') patchFieldNotString(names[i]!, v);
            }
            return new CelObject(typeName, fields);
          }
        : (fields: Record<string, unknown>): CelObject => new CelObject(typeName, fields);
      // Field values are CEL values and never mutated, so an object of constants is built once
      // (except the result itself, which the caller owns).
      const node: Node = { fn: fixedKeyObject(names, vf, wrap), cost, ir: { op: 'object', keys: names, values: vals, wrap, typeName } };
      if (root) return node;
      return isObject ? this.withConstantJson(this.fold(node, vals)) : this.withConstantPatchOp(this.fold(node, vals));
    }
    const fn: Fn = (c) => {
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < vf.length; i++) {
        let v = vf[i]!(c);
        if (anyOptional && optional[i]) {
          if (!(v instanceof CelOptional)) return noOverload('optional field', v);
          if (!v.has) continue;
          v = v.value;
        }
        if (isPatch && names[i] !== 'value' && typeof v !== 'string') patchFieldNotString(names[i]!, v);
        defineKey(fields, names[i]!, v);
      }
      return new CelObject(typeName, fields);
    };
    return { fn, cost };
  }

  // ---------------------------------------------------------------------------------------- comprehensions
  private comprehension(e: Extract<Expr, { kind: 'comprehension' }>): Node {
    const range = this.compile(e.range);
    const s1 = this.slots++;
    const s2 = e.iterVar2 !== undefined ? this.slots++ : -1;
    const scope = new Map<string, number>([[e.iterVar, s1]]);
    if (e.iterVar2 !== undefined) scope.set(e.iterVar2, s2);
    this.scopes.push(scope);
    const args = e.args.map((a) => this.compile(a));
    this.scopes.pop();
    const rf = range.fn;
    // Per-iteration overhead of cel-go's expansion: all/exists evaluate `@not_strictly_false(@result)` and
    // `@result && p` (≈3); map/filter/transform* append with `@result + [x]` (list literal 10, concat, idents ≈12).
    const overhead = e.macro === 'all' || e.macro === 'exists' || e.macro === 'exists_one' || e.macro === 'optMap' || e.macro === 'optFlatMap' ? 3 : 12;
    const perIter = overhead + args.reduce((s, a) => s + a.cost, 0);
    const two = e.iterVar2 !== undefined;
    const fns = args.map((a) => a.fn);

    if (e.macro === 'optMap' || e.macro === 'optFlatMap') {
      const body = fns[0]!;
      const flat = e.macro === 'optFlatMap';
      return {
        fn: (c) => {
          const o = rf(c);
          if (!(o instanceof CelOptional)) return noOverload(e.macro, o);
          if (!o.has) return o;
          c.locals[s1] = o.value;
          charge(c, perIter);
          const r = body(c);
          if (flat) {
            if (!(r instanceof CelOptional)) return noOverload(e.macro, r);
            return r;
          }
          return CelOptional.of(r);
        },
        cost: range.cost,
      };
    }

    // Loops are written out per macro (no per-element callbacks): lists iterate directly; maps iterate
    // their keys (and values for the two-variable forms).
    const macro = e.macro;
    const bindVars = two
      ? (loc: unknown[], items: unknown[], vals: unknown[] | undefined, i: number): void => {
          if (vals) {
            loc[s1] = items[i];
            loc[s2] = vals[i];
          } else {
            loc[s1] = i;
            loc[s2] = items[i];
          }
        }
      : (loc: unknown[], items: unknown[], _vals: unknown[] | undefined, i: number): void => {
          loc[s1] = items[i];
        };
    const mapVals = (r: unknown): unknown[] | undefined => (two && !Array.isArray(r) ? comprehensionValues(r) : undefined);
    const itemsOf = (r: unknown): unknown[] => comprehensionItems(r, macro);

    let fn: Fn;
    switch (macro) {
      case 'all':
      case 'exists': {
        const pred = fns[0]!;
        const short = macro === 'exists';
        fn = (c) => {
          const r = rf(c);
          const items = Array.isArray(r) ? r : itemsOf(r);
          const vals = two ? mapVals(r) : undefined;
          const loc = c.locals;
          let error: unknown;
          for (let i = 0; i < items.length; i++) {
            c.cost += perIter;
            if (c.cost > c.limit) throw new CelCostLimitError();
            if (two) bindVars(loc, items, vals, i);
            else loc[s1] = items[i];
            let p: unknown;
            try {
              p = pred(c);
            } catch (x) {
              if (isFatal(x)) throw x;
              error ??= x;
              continue;
            }
            if (p === short) return short;
            if (typeof p !== 'boolean') error ??= new CelError(`no such overload: ${macro} predicate returned ${kindOf(p)}`);
          }
          if (error !== undefined) throw error;
          return !short;
        };
        break;
      }
      case 'exists_one': {
        const pred = fns[0]!;
        fn = (c) => {
          const r = rf(c);
          const items = Array.isArray(r) ? r : itemsOf(r);
          const vals = two ? mapVals(r) : undefined;
          const loc = c.locals;
          let n = 0;
          for (let i = 0; i < items.length; i++) {
            c.cost += perIter;
            if (c.cost > c.limit) throw new CelCostLimitError();
            if (two) bindVars(loc, items, vals, i);
            else loc[s1] = items[i];
            const p = pred(c);
            if (p === true) n++;
            else if (p !== false) noOverload('exists_one', p);
          }
          return n === 1;
        };
        break;
      }
      case 'map':
      case 'transformList':
      case 'filter': {
        const isFilter = macro === 'filter';
        const filter = isFilter ? fns[0] : fns.length === 2 ? fns[0] : undefined;
        const transform = isFilter ? undefined : fns[fns.length - 1]!;
        fn = (c) => {
          const r = rf(c);
          const items = Array.isArray(r) ? r : itemsOf(r);
          const vals = two ? mapVals(r) : undefined;
          const loc = c.locals;
          const out: unknown[] = [];
          for (let i = 0; i < items.length; i++) {
            c.cost += perIter;
            if (c.cost > c.limit) throw new CelCostLimitError();
            if (two) bindVars(loc, items, vals, i);
            else loc[s1] = items[i];
            if (filter) {
              const f = filter(c);
              if (f === false) continue;
              if (f !== true) noOverload(macro, f);
            }
            out.push(transform ? transform(c) : items[i]);
          }
          return out;
        };
        break;
      }
      case 'transformMap':
      case 'transformMapEntry': {
        const filter = fns.length === 2 ? fns[0] : undefined;
        const transform = fns[fns.length - 1]!;
        const entry = macro === 'transformMapEntry';
        fn = (c) => {
          const r = rf(c);
          const items = Array.isArray(r) ? r : itemsOf(r);
          const vals = two ? mapVals(r) : undefined;
          const loc = c.locals;
          const b = new MapBuilder();
          for (let i = 0; i < items.length; i++) {
            c.cost += perIter;
            if (c.cost > c.limit) throw new CelCostLimitError();
            if (two) bindVars(loc, items, vals, i);
            else loc[s1] = items[i];
            if (filter) {
              const f = filter(c);
              if (f === false) continue;
              if (f !== true) noOverload(macro, f);
            }
            const v = transform(c);
            if (entry) {
              if (!(v instanceof CelMap) && !isPlainMap(v)) noOverload('transformMapEntry', v);
              for (const [k, x] of mapEntries(v)) {
                try {
                  b.set(k, x);
                } catch {
                  err(`insert failed: key ${String(k)} already exists`);
                }
              }
            } else b.set(loc[s1], v);
          }
          return b.build();
        };
        break;
      }
      default:
        throw new CompileError(`unsupported macro ${e.macro}`, e.start, e.end);
    }
    if (macro === 'transformMap' || macro === 'transformMapEntry') return { fn, cost: range.cost };
    return { fn, cost: range.cost, ir: { op: 'comprehension', macro, range, s1, s2, args, perIter } };
  }
}

/**
 * Comparisons and concatenation against a constant string or number: the JS operator decides when the
 * other side has the same JS type (numbers: CEL's cross-type numeric comparison is exact on JS
 * numbers, as in celCompare); everything else falls back to the generic operator.
 */
function specializedBinary(op: string, lf: Fn, rf: Fn, lc: { value: unknown } | undefined, rc: { value: unknown } | undefined): Fn | undefined {
  if (lc && !rc && (op === '_==_' || op === '_!=_')) return specializedBinary(op, rf, lf, rc, lc);
  if (!rc || lc) return undefined;
  const k = rc.value;
  if (typeof k === 'string') {
    switch (op) {
      case '_==_':
        // A string equals only the same string (celEquals: no cross-type equality for strings).
        return (c) => lf(c) === k;
      case '_!=_':
        return (c) => lf(c) !== k;
      case '_+_':
        return (c) => {
          const x = lf(c);
          return typeof x === 'string' ? x + k : ops.add(x, k);
        };
    }
    return undefined;
  }
  if (typeof k !== 'number' || Number.isNaN(k)) return undefined;
  switch (op) {
    case '_==_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x === k : ops.eq(x, k);
      };
    case '_!=_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x !== k : ops.ne(x, k);
      };
    case '_<_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x < k : ops.lt(x, k);
      };
    case '_<=_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x <= k : ops.le(x, k);
      };
    case '_>_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x > k : ops.gt(x, k);
      };
    case '_>=_':
      return (c) => {
        const x = lf(c);
        return typeof x === 'number' ? x >= k : ops.ge(x, k);
      };
  }
  return undefined;
}

function dispatchByReceiver(name: string, defs: FunctionDef[]): (...a: unknown[]) => unknown {
  return (recv: unknown, ...rest: unknown[]) => {
    const k: Kind = kindOf(recv);
    let last: unknown;
    for (const d of defs) {
      if (d.recv !== undefined && !d.recv.includes(k)) continue;
      try {
        return d.impl(recv, ...rest);
      } catch (e) {
        if (!(e instanceof NoOverloadError)) throw e;
        last = e;
      }
    }
    if (last) throw last;
    return noOverload(name, recv, ...rest);
  };
}

const BINARY: Record<string, (a: unknown, b: unknown) => unknown> = {
  '_+_': ops.add,
  '_-_': ops.sub,
  '_*_': ops.mul,
  '_/_': ops.div,
  '_%_': ops.mod,
  '_==_': ops.eq,
  '_!=_': ops.ne,
  '_<_': ops.lt,
  '_<=_': ops.le,
  '_>_': ops.gt,
  '_>=_': ops.ge,
  '@in': ops.inOp,
};

export function literalValue(l: Extract<Expr, { kind: 'literal' }>['lit']): unknown {
  switch (l.type) {
    case 'int':
      return l.value;
    case 'uint':
      return new CelUint(l.value);
    case 'double':
      return mkDouble(l.value);
    case 'string':
    case 'bool':
    case 'bytes':
      return l.value;
    case 'null':
      return null;
  }
}

export { isPlainMap };

/** What generated programs call: the closures' own helpers, so both agree on every value and error. */
export const CODEGEN_HELPERS = Object.freeze({
  ABSENT,
  charge,
  isFatal,
  comprehensionItems,
  comprehensionValues,
  select: ops.select,
  optSelect: ops.optSelect,
  hasField: ops.hasField,
  index: ops.index,
  optIndex: ops.optIndex,
  neg: ops.neg,
  not: ops.not,
  noOverload,
  noAttribute: CHAIN_HELPERS.noAttribute,
  optionalOf: (v: unknown): CelOptional => CelOptional.of(v),
  NONE: CelOptional.NONE,
  CelError,
  CelCostLimitError,
  kindOf,
  isJsonObject,
  hasOwn,
  BINARY,
});
export type CodegenHelpers = typeof CODEGEN_HELPERS;
