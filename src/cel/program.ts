/**
 * compile(source, env) → CelProgram; program.eval(activation) → CelResult.
 * Parse and compile errors are diagnostics (TM5001 syntax, TM5002 compile) with spans mapped through
 * the caller's `locate` (YAML positions) or a pseudo-file `<expr>`.
 */
import { heterogeneousLiteral } from './homogeneous.js';
import { parseCel } from '../../grammars/cel.js';
import { diagnostic, fail, ok, LineIndex, type Diagnostic, type Result, type Span } from '../diagnostics/index.js';
import type { Expr } from './ast.js';
import { generateEvaluator, generateJsonEvaluator, type Evaluator } from './codegen.js';
import { Compiler, CompileError, type Ctx, type Fn, type Ir, type Node, type RuntimeServices } from './compile.js';
import { constantJson } from './direct-json.js';
import { resolveEnv, type CelEnvOptions, type ResolvedEnv } from './env.js';
import { defaultRegistry } from './library.js';
import { checkResultType, mutationResultToJson, staticResultType } from './mutation.js';
import { CelError, CelCostLimitError } from './values.js';

/** Maps an offset in the expression to a span (e.g. in the YAML file the expression came from). */
export type Locate = (start: number, end: number) => Span;

export const EXPR_FILE = '<expr>';

export interface EvalOptions {
  /** Runtime cost limit (default 1,000,000: Kubernetes' per-expression limit). Infinity disables it. */
  costLimit?: number;
  services?: RuntimeServices;
}

export type CelResult =
  | { ok: true; value: unknown; cost: number }
  | { ok: false; error: string; costExceeded: boolean; cost: number; diagnostic: Diagnostic; inJson?: true };

/** A failed evaluation asked for its value alone (evalJsonRaw): a class, so that no value is taken for it. */
export class RawFailure {
  constructor(readonly result: Extract<CelResult, { ok: false }>) {}
}

export interface CelProgram {
  readonly source: string;
  readonly ast: Expr;
  eval(activation: Record<string, unknown>, opts?: EvalOptions): CelResult;
  /**
   * eval, with the value as mutation.ts mutationResultToJson makes it (MAP's checks of `Object` and `JSONPatch`
   * results); a failure of that conversion has `inJson`. Generated programs build that JSON directly where
   * they can (codegen.ts generateJsonEvaluator).
   */
  evalJson(activation: Record<string, unknown>, opts?: EvalOptions): CelResult;
  /** evalJson's value alone, or its failure as a RawFailure: no result object where the caller reads the value at once. */
  evalJsonRaw(activation: Record<string, unknown>, opts?: EvalOptions): unknown;
  /**
   * What evalJson gives for every activation when the program reads none (a literal of constants: `[]`,
   * `Object{...}` of constant fields), its value frozen (one value shared by every evaluation, as codegen.ts
   * shares folded constants); undefined when the program may read its activation. Made at each call: for a
   * caller that keeps it (engines, once per cost limit).
   */
  staticJson(opts?: EvalOptions): CelResult | undefined;
}

export const DEFAULT_COST_LIMIT = 1_000_000;

export function defaultLocate(source: string): Locate {
  let index: LineIndex | undefined;
  return (start, end) => (index ??= new LineIndex(source)).span(EXPR_FILE, start, Math.max(end, start + 1));
}

/** Parse only (syntax check): the AST or a TM5001 diagnostic. */
export function parse(source: string, locate: Locate = defaultLocate(source), twoVarComprehensions = true): Result<Expr> {
  const r = parseCel(source, { twoVarComprehensions });
  if (!r.ok) return fail(diagnostic('TM5001', { phase: 'parse', message: r.message, span: locate(r.start, r.end) }));
  return ok(r.expr);
}

export function compile(source: string, env: CelEnvOptions = {}, locate: Locate = defaultLocate(source)): Result<CelProgram> {
  return compileWith('generated', source, env, locate);
}

/**
 * How a program runs: `generated`, its own JavaScript (codegen.ts), or `closures`, the closure tree of
 * compile.ts, which stays the reference the generated code is tested against.
 */
export type Backend = 'generated' | 'closures';

export function compileWith(backend: Backend, source: string, env: CelEnvOptions = {}, locate: Locate = defaultLocate(source)): Result<CelProgram> {
  const resolved = resolveEnv(env);
  if (typeof resolved === 'string') return fail(diagnostic('TM5002', { phase: 'parse', message: resolved, span: locate(0, source.length) }));
  const parsed = parse(source, locate, resolved.twoVarComprehensions);
  if (!parsed.ok) return parsed;
  const ast = parsed.value;
  const mixed = resolved.homogeneousAggregateLiterals ? heterogeneousLiteral(ast) : undefined;
  if (mixed) return fail(diagnostic('TM5002', { phase: 'parse', message: mixed.message, span: locate(mixed.start, mixed.end) }));
  const compiler = new Compiler(resolved, defaultRegistry());
  let root: Node;
  try {
    root = compiler.compileRoot(ast);
  } catch (e) {
    if (e instanceof CompileError) return fail(diagnostic('TM5002', { phase: 'parse', message: e.message, span: locate(e.start, e.end) }));
    throw e;
  }
  if (resolved.expect !== 'any') {
    const t = staticResultType(ast);
    const problem = t === undefined ? undefined : checkStatic(resolved, t);
    if (problem) return fail(diagnostic('TM5002', { phase: 'parse', message: problem, span: locate(ast.start, ast.end) }));
  }
  return ok(new Program(source, ast, root, backend, compiler.slots, resolved, locate));
}

function checkStatic(env: ResolvedEnv, t: string): string | undefined {
  switch (env.expect) {
    case 'Object':
      return t === 'Object' || t === 'dyn' ? undefined : `must evaluate to Object but got ${t}`;
    case 'JSONPatchList':
      return t === 'list(JSONPatch)' || t === 'list' || t === 'dyn' ? undefined : `must evaluate to list(JSONPatch) but got ${t}`;
    case 'bool':
      return t === 'bool' || t === 'dyn' ? undefined : `must evaluate to bool but got ${t}`;
    default:
      return undefined;
  }
}

class Program implements CelProgram {
  private readonly root: Fn;
  private readonly staticCost: number;
  private readonly generated: Evaluator<CelResult> | undefined;
  /** Made when first asked for: most programs (conditions, variables) never are. */
  private generatedJson: Evaluator<CelResult> | undefined | null = null;
  private readonly rootNode: Node | undefined;
  /**
   * Whether no evaluation reads the activation: the root is a constant, or a list, map or message literal of
   * constants (a root literal is never folded: its value is the caller's). Its cost is then the static cost
   * (no call, no comprehension charges).
   */
  private readonly readsNothing: boolean;

  constructor(
    readonly source: string,
    readonly ast: Expr,
    root: Node,
    backend: Backend,
    private readonly slots: number,
    private readonly env: ResolvedEnv,
    private readonly locate: Locate,
  ) {
    this.root = root.fn;
    this.staticCost = root.cost;
    const expect = env.expect;
    this.generated =
      backend === 'generated'
        ? generateEvaluator<CelResult>(root, {
            staticCost: root.cost,
            slots,
            defaultCostLimit: DEFAULT_COST_LIMIT,
            checksDotted: env.variables === undefined,
            hasDottedKey,
            noServices: NO_SERVICES,
            noLocals: EMPTY,
            checkResult: expect === 'any' ? undefined : (value) => checkResultType(expect, value),
            failure: (e, cost) => this.thrown(e, cost),
            rawFailure: (e, cost) => new RawFailure(this.thrown(e, cost)),
          })
        : undefined;
    this.rootNode = backend === 'generated' ? root : undefined;
    this.readsNothing = root.constant !== undefined || ((root.ir?.op === 'list' || root.ir?.op === 'object') && childrenOf(root.ir).every((x) => x.constant !== undefined));
  }

  staticJson(opts?: EvalOptions): CelResult | undefined {
    if (!this.readsNothing) return undefined;
    const out = this.evalJson(NO_ACTIVATION, opts);
    if (!out.ok) return out;
    // A constant's JSON is frozen already (direct-json.ts constantJson); a root literal's is made per evaluation.
    const made = constantJson(() => out.value);
    return made === undefined ? undefined : { ok: true, value: made.json, cost: out.cost };
  }

  evalJson(activation: Record<string, unknown>, opts?: EvalOptions): CelResult {
    if (this.generatedJson === null) this.generatedJson = this.rootNode === undefined ? undefined : this.makeJsonEvaluator(this.rootNode);
    return this.generatedJson ? this.generatedJson(activation, opts) : this.evalJsonReference(activation, opts);
  }

  evalJsonRaw(activation: Record<string, unknown>, opts?: EvalOptions): unknown {
    if (this.generatedJson === null) this.generatedJson = this.rootNode === undefined ? undefined : this.makeJsonEvaluator(this.rootNode);
    return this.generatedJson ? this.generatedJson(activation, opts, true) : this.evalJsonReferenceRaw(activation, opts);
  }

  private evalJsonReferenceRaw(activation: Record<string, unknown>, opts: EvalOptions | undefined): unknown {
    const out = this.evalJsonReference(activation, opts);
    return out.ok ? out.value : new RawFailure(out);
  }

  private makeJsonEvaluator(root: Node): Evaluator<CelResult> | undefined {
    return generateJsonEvaluator<CelResult>(root, {
      staticCost: root.cost,
      slots: this.slots,
      defaultCostLimit: DEFAULT_COST_LIMIT,
      checksDotted: this.env.variables === undefined,
      hasDottedKey,
      noServices: NO_SERVICES,
      noLocals: EMPTY,
      checkResult: this.env.expect === 'any' ? undefined : (value) => checkResultType(this.env.expect, value),
      failure: (e, cost) => this.thrown(e, cost),
      rawFailure: (e, cost) => new RawFailure(this.thrown(e, cost)),
      reference: (activation, opts, raw) => (raw === true ? this.evalJsonReferenceRaw(activation, opts) : this.evalJsonReference(activation, opts)),
    });
  }

  /** eval, then mutationResultToJson (whose host errors, a stack overflow included, escape as the engines' did). */
  private evalJsonReference(activation: Record<string, unknown>, opts: EvalOptions | undefined): CelResult {
    const out = this.eval(activation, opts);
    if (!out.ok) return out;
    // Strings, booleans and null are their own JSON (mutation.ts sharedJson): the values of most conditions
    // and variables, which then take no call and no try.
    const v = out.value;
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) return out;
    try {
      const value = mutationResultToJson(out.value);
      // Most values (conditions, variables) are their own JSON: the result as it is, not another one like it.
      return value === out.value ? out : { ok: true, value, cost: out.cost };
    } catch (e) {
      if (!(e instanceof CelError)) throw e;
      return { ...this.failure(e, out.cost), inJson: true };
    }
  }

  eval(activation: Record<string, unknown>, opts?: EvalOptions): CelResult {
    return this.generated ? this.generated(activation, opts) : this.evalClosures(activation, opts ?? {});
  }

  private evalClosures(activation: Record<string, unknown>, opts: EvalOptions): CelResult {
    const c: Ctx = {
      act: activation,
      locals: this.slots > 0 ? new Array(this.slots) : EMPTY,
      cost: this.staticCost,
      limit: opts.costLimit ?? DEFAULT_COST_LIMIT,
      dotted: this.env.variables === undefined && hasDottedKey(activation),
      services: opts.services ?? NO_SERVICES,
    };
    try {
      if (c.cost > c.limit) throw new CelCostLimitError();
      const value = this.root(c);
      if (this.env.expect !== 'any') {
        const problem = checkResultType(this.env.expect, value);
        if (problem) throw new CelError(problem);
      }
      return { ok: true, value, cost: c.cost };
    } catch (e) {
      return this.thrown(e, c.cost);
    }
  }

  private thrown(e: unknown, cost: number): Extract<CelResult, { ok: false }> {
    if (!(e instanceof CelError)) {
      if (e instanceof RangeError) return this.failure(new CelError(`evaluation exceeded the stack: ${e.message}`), cost);
      throw e;
    }
    return this.failure(e, cost);
  }

  private failure(e: CelError, cost: number): Extract<CelResult, { ok: false }> {
    const costExceeded = e instanceof CelCostLimitError;
    return {
      ok: false,
      error: e.message,
      costExceeded,
      cost,
      diagnostic: diagnostic(costExceeded ? 'TM5004' : 'TM5003', { phase: 'eval', message: e.message, span: this.locate(this.ast.start, this.ast.end) }),
    };
  }
}

/** The children of a literal's IR. */
function childrenOf(ir: Extract<Ir, { op: 'list' | 'object' }>): readonly Node[] {
  return ir.op === 'list' ? ir.elements : ir.values;
}

const EMPTY: unknown[] = [];
/** The activation staticJson evaluates with: a program that reads none sees the same in any other. */
const NO_ACTIVATION: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_SERVICES: RuntimeServices = Object.freeze({});

function hasDottedKey(act: Record<string, unknown>): boolean {
  for (const k in act) if (k.includes('.')) return true;
  return false;
}
