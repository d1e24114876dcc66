/**
 * Compiles a JMESPath expression once into a tree of closures and evaluates it as Kyverno does:
 * go-jmespath semantics (float64 numbers, truthiness, ordering comparisons on numbers only, string
 * slicing by runes) plus the fork's NotFound errors — a missing map key is an error
 * (`Unknown key "x" in path`) that `||`, comparisons, function arguments, filters, projections,
 * flatten, pipes and multiselects swallow while sub-expressions propagate it
 * (kyverno pkg/engine/jmespath/interpreter.go `execute`).
 */
import { defineOwn, hasOwn, type JsonObject, type JsonValue } from '../ir/json.js';
import { diagnostic, fail, ok, type Result } from '../diagnostics/index.js';
import type { Span } from '../diagnostics/index.js';
import type { JmesNode } from './ast.js';
import { callFunction, callSpec, ExpRef, type Env, type Evaluator, type FunctionTable } from './functions/registry.js';
import { KYVERNO_FUNCTIONS, STANDARD_FUNCTION_TABLE } from './functions/index.js';
import { fieldPathReader } from './field-path.js';
import { parseJmes } from './parse.js';
import { failure, JmesFailure, type JmesContext, type JmesResult } from './types.js';
import { isFalse, isMap, objsEqual } from './values.js';

export interface JmesProgram {
  readonly expression: string;
  /**
   * The fields of the root the expression can read, or undefined when it may read the root as a whole
   * (`@`, `*`, a function of `@`...). A root holding just these fields gives the same result, so callers
   * with an expensive root (Kyverno's context) can build only those.
   */
  readonly rootFields: readonly string[] | undefined;
  /**
   * The field chains through which the expression reads the root (`request.object.spec` for
   * `length(request.object.spec.containers[])`: everything past a chain reads what the chain found), or
   * undefined when it may read the root as a whole. A root holding just these chains gives the same result.
   */
  readonly rootPaths: readonly (readonly string[])[] | undefined;
  /** The expression's shape when it is one of the few simple reads callers may evaluate themselves (SimpleRead). */
  readonly simpleRead: SimpleRead | undefined;
  search(data: unknown, ctx?: JmesContext): JmesResult;
}

/**
 * A chain of fields and what is done with what it finds, when that is all the expression does:
 * - `path`: the value found (a missing key is a NotFound failure, a non-map on the way gives null);
 * - `or`: `<path> || <literal>`: the value found unless false-like (isFalse; NotFound swallowed), else the literal;
 * - `length`: the standard `length(<path>)` of the value found (a string's runes, a list's items, a map's keys).
 */
export type SimpleRead = { kind: 'path' | 'length'; path: readonly string[] } | { kind: 'or'; path: readonly string[]; fallback: string | number | boolean };

/** Where the expression text starts in a source file, so syntax errors point at the right column. */
export interface JmesSourcePosition {
  file: string;
  line: number;
  col: number;
}

export interface CompileOptions {
  /** Function table; defaults to the standard functions plus Kyverno's 50. */
  functions?: FunctionTable;
  position?: JmesSourcePosition;
}

const DEFAULT_CONTEXT: JmesContext = {};
/** The environment of searches with the default context: Env is read-only, so one serves them all. */
const DEFAULT_ENV: Env = Object.freeze({ ctx: DEFAULT_CONTEXT });

export function compileJmes(expression: string, options: CompileOptions = {}): Result<JmesProgram> {
  const parsed = parseJmes(expression);
  if (!parsed.ok) {
    const pos = options.position;
    const span: Span | undefined =
      pos === undefined
        ? undefined
        : { file: pos.file, line: pos.line, col: pos.col + parsed.column - 1, endLine: pos.line, endCol: pos.col + parsed.column - 1 };
    return fail(
      diagnostic('TM6001', {
        phase: 'parse',
        message: `JMESPath syntax error at column ${parsed.column} in ${JSON.stringify(expression)}: ${parsed.message}`,
        span,
      }),
    );
  }
  const root = compileNode(parsed.ast, options.functions ?? KYVERNO_FUNCTIONS);
  const paths = rootPathsOf(parsed.ast, []);
  const fields = paths === undefined ? undefined : [...new Set(paths.map((p) => p[0]!))];
  return ok(new CompiledProgram(expression, root, fields, paths, simpleRead(parsed.ast, options.functions ?? KYVERNO_FUNCTIONS)));
}

const CACHE_LIMIT = 2048;
const cache = new Map<string, Result<JmesProgram>>();

/** compileJmes with a bounded cache keyed by the expression text (default function table only). */
export function compileJmesCached(expression: string): Result<JmesProgram> {
  let hit = cache.get(expression);
  if (hit === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    hit = compileJmes(expression);
    cache.set(expression, hit);
  }
  return hit;
}

class CompiledProgram implements JmesProgram {
  constructor(
    readonly expression: string,
    private readonly root: Evaluator,
    readonly rootFields: readonly string[] | undefined,
    readonly rootPaths: readonly (readonly string[])[] | undefined,
    readonly simpleRead: SimpleRead | undefined,
  ) {}

  search(data: unknown, ctx: JmesContext = DEFAULT_CONTEXT): JmesResult {
    const env: Env = ctx === DEFAULT_CONTEXT ? DEFAULT_ENV : { ctx };
    const r = this.root(data ?? null, env);
    if (r instanceof JmesFailure) return { ok: false, error: { kind: r.kind, message: r.message } };
    if (r instanceof ExpRef) return { ok: true, value: null };
    return { ok: true, value: r === undefined ? null : r };
  }
}

/**
 * The field chains `node` reads from the root (see JmesProgram.rootPaths); undefined when it may use the root
 * itself. Follows compileNode: the right side of a sub-expression, projection or pipe and an expression
 * reference are evaluated against other values, never the root; a chain of fields is read as one path.
 */
function rootPathsOf(node: JmesNode, into: string[][]): string[][] | undefined {
  switch (node.type) {
    case 'Literal':
    case 'ExpressionReference':
      return into;
    case 'Field':
      into.push([node.name]);
      return into;
    case 'Subexpression': {
      const path = fieldPath(node);
      if (path !== undefined) {
        into.push(path);
        return into;
      }
      return rootPathsOf(node.children[0], into);
    }
    case 'IndexExpression':
    case 'Projection':
    case 'ValueProjection':
    case 'FilterProjection':
    case 'Pipe':
    case 'Flatten':
      return rootPathsOf(node.children[0], into);
    case 'OrExpression':
    case 'AndExpression':
    case 'NotExpression':
    case 'Comparator':
    case 'MultiSelectList':
    case 'Function':
      for (const c of node.children) if (rootPathsOf(c, into) === undefined) return undefined;
      return into;
    case 'MultiSelectHash':
      for (const p of node.children) if (rootPathsOf(p.value, into) === undefined) return undefined;
      return into;
    default:
      return undefined;
  }
}

function isNotFound(r: unknown): boolean {
  return r instanceof JmesFailure && r.kind === 'NotFound';
}

/** Evaluate, turning NotFound into null and leaving other failures as they are. */
function swallowed(ev: Evaluator): Evaluator {
  return (v, env) => {
    const r = ev(v, env);
    return isNotFound(r) ? null : r;
  };
}

const identity: Evaluator = (v) => v;

function compileNode(node: JmesNode, table: FunctionTable): Evaluator {
  switch (node.type) {
    case 'Literal': {
      const value = node.value;
      return () => value;
    }
    case 'Identity':
    case 'Current':
      return identity;
    case 'Field':
      return fieldEvaluator(node.name);
    case 'Index':
      return indexEvaluator(node.value);
    case 'Slice':
      return sliceEvaluator(node.children[0], node.children[1], node.children[2]);
    case 'Subexpression':
    case 'IndexExpression': {
      const path = fieldPath(node);
      if (path !== undefined) return fieldPathReader(path);
      const left = compileNode(node.children[0], table);
      const right = compileNode(node.children[1], table);
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure) return l;
        if (l === null || l === undefined) return null;
        return right(l, env);
      };
    }
    case 'Projection':
      return projectionEvaluator(node, table);
    case 'ValueProjection': {
      const left = compileNode(node.children[0], table);
      const right = compileNode(node.children[1], table);
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure || !isMap(l)) return null;
        const out: unknown[] = [];
        for (const k of Object.keys(l)) {
          const r = right(l[k], env);
          if (r instanceof JmesFailure) {
            if (r.kind === 'NotFound') continue;
            return r;
          }
          if (r !== null && r !== undefined) out.push(r);
        }
        return out;
      };
    }
    case 'FilterProjection': {
      const left = compileNode(node.children[0], table);
      const right = compileNode(node.children[1], table);
      const condition = compileNode(node.children[2], table);
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure || !Array.isArray(l)) return null;
        const out: unknown[] = [];
        for (const element of l) {
          const c = condition(element, env);
          if (c instanceof JmesFailure) {
            if (c.kind === 'NotFound') continue;
            return c;
          }
          if (isFalse(c)) continue;
          const r = right(element, env);
          if (r instanceof JmesFailure) {
            if (r.kind === 'NotFound') continue;
            return r;
          }
          if (r !== null && r !== undefined) out.push(r);
        }
        return out;
      };
    }
    case 'Flatten': {
      const child = compileNode(node.children[0], table);
      return (v, env) => {
        const l = child(v, env);
        if (l instanceof JmesFailure || !Array.isArray(l)) return null;
        const out: unknown[] = [];
        for (const element of l) {
          if (Array.isArray(element)) for (const x of element) out.push(x);
          else out.push(element);
        }
        return out;
      };
    }
    case 'Pipe': {
      // interpreter.go ASTPipe: a NotFound in any stage becomes null and evaluation continues.
      const left = swallowed(compileNode(node.children[0], table));
      const right = swallowed(compileNode(node.children[1], table));
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure) return l;
        return right(l, env);
      };
    }
    case 'OrExpression': {
      const left = swallowed(compileNode(node.children[0], table));
      const right = swallowed(compileNode(node.children[1], table));
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure) return l;
        return isFalse(l) ? right(v, env) : l;
      };
    }
    case 'AndExpression': {
      // The left side swallows NotFound; the right side propagates it (interpreter.go ASTAndExpression).
      const left = swallowed(compileNode(node.children[0], table));
      const right = compileNode(node.children[1], table);
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure) return l;
        return isFalse(l) ? l : right(v, env);
      };
    }
    case 'NotExpression': {
      const child = swallowed(compileNode(node.children[0], table));
      return (v, env) => {
        const c = child(v, env);
        if (c instanceof JmesFailure) return c;
        return isFalse(c);
      };
    }
    case 'Comparator': {
      const left = swallowed(compileNode(node.children[0], table));
      const right = swallowed(compileNode(node.children[1], table));
      const op = node.name;
      return (v, env) => {
        const l = left(v, env);
        if (l instanceof JmesFailure) return l;
        const r = right(v, env);
        if (r instanceof JmesFailure) return r;
        if (op === 'EQ') return objsEqual(l, r);
        if (op === 'NE') return !objsEqual(l, r);
        // go-jmespath orders numbers only; anything else compares to null.
        if (typeof l !== 'number' || typeof r !== 'number') return null;
        switch (op) {
          case 'LT':
            return l < r;
          case 'LTE':
            return l <= r;
          case 'GT':
            return l > r;
          case 'GTE':
            return l >= r;
        }
      };
    }
    case 'MultiSelectList': {
      const children = node.children.map((c) => swallowed(compileNode(c, table)));
      return (v, env) => {
        if (v === null || v === undefined) return null;
        const out: unknown[] = new Array(children.length);
        for (let i = 0; i < children.length; i++) {
          const r = children[i]!(v, env);
          if (r instanceof JmesFailure) return r;
          out[i] = r ?? null;
        }
        return out;
      };
    }
    case 'MultiSelectHash': {
      const pairs = node.children.map((p) => ({ key: p.name, ev: swallowed(compileNode(p.value, table)) }));
      return (v, env) => {
        if (v === null || v === undefined) return null;
        const out: JsonObject = {};
        for (const p of pairs) {
          const r = p.ev(v, env);
          if (r instanceof JmesFailure) return r;
          defineOwn(out, p.key, (r ?? null) as JsonValue);
        }
        return out;
      };
    }
    case 'Function': {
      const args = node.children.map((c) => swallowed(compileNode(c, table)));
      const name = node.name;
      const spec = table.get(name);
      return (v, env) => {
        const resolved: unknown[] = new Array(args.length);
        for (let i = 0; i < args.length; i++) {
          const r = args[i]!(v, env);
          if (r instanceof JmesFailure) return r;
          resolved[i] = r ?? null;
        }
        // An unknown function fails only once called, after its arguments (functions.go CallFunction).
        return spec === undefined ? callFunction(table, name, resolved, env) : callSpec(spec, resolved, env);
      };
    }
    case 'ExpressionReference': {
      const ref = new ExpRef(swallowed(compileNode(node.children[0], table)));
      return () => ref;
    }
  }
}

function simpleRead(node: JmesNode, table: FunctionTable): SimpleRead | undefined {
  const path = fieldPath(node);
  if (path !== undefined) return { kind: 'path', path };
  if (node.type === 'OrExpression') {
    const left = fieldPath(node.children[0]);
    const right = node.children[1];
    if (left === undefined || right.type !== 'Literal') return undefined;
    const fallback = right.value;
    return typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean' ? { kind: 'or', path: left, fallback } : undefined;
  }
  if (node.type === 'Function' && node.name === 'length' && node.children.length === 1 && table.get('length') === STANDARD_FUNCTION_TABLE.get('length')) {
    const arg = fieldPath(node.children[0]!);
    return arg === undefined ? undefined : { kind: 'length', path: arg };
  }
  return undefined;
}

/** `a.b.c` as a list of names, so the most common Kyverno expression is one loop, not nested closures. */
function fieldPath(node: JmesNode): string[] | undefined {
  if (node.type === 'Field') return [node.name];
  if (node.type !== 'Subexpression') return undefined;
  const left = fieldPath(node.children[0]);
  const right = node.children[1].type === 'Field' ? node.children[1].name : undefined;
  return left === undefined || right === undefined ? undefined : [...left, right];
}

function fieldEvaluator(name: string): Evaluator {
  const notFound = failure('NotFound', `Unknown key "${name}" in path`);
  return (v) => {
    if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v) || v instanceof ExpRef) return null;
    if (!hasOwn(v, name)) return notFound;
    const r = (v as Record<string, unknown>)[name];
    return r === undefined ? null : r;
  };
}

function indexEvaluator(index: number): Evaluator {
  return (v) => {
    if (!Array.isArray(v)) return null;
    const i = index < 0 ? index + v.length : index;
    return i >= 0 && i < v.length ? v[i] : null;
  };
}

/** go-jmespath util.go capSlice. */
function capSlice(length: number, actual: number, step: number): number {
  if (actual < 0) {
    actual += length;
    if (actual < 0) actual = step < 0 ? -1 : 0;
  } else if (actual >= length) {
    actual = step < 0 ? length - 1 : length;
  }
  return actual;
}

function sliceOf<T>(items: readonly T[], start: number | null, stop: number | null, step: number): T[] {
  const len = items.length;
  const from = start === null ? (step < 0 ? len - 1 : 0) : capSlice(len, start, step);
  const to = stop === null ? (step < 0 ? -1 : len) : capSlice(len, stop, step);
  const out: T[] = [];
  if (step > 0) for (let i = from; i < to; i += step) out.push(items[i]!);
  else for (let i = from; i > to; i += step) out.push(items[i]!);
  return out;
}

function sliceEvaluator(start: number | null, stop: number | null, stepPart: number | null): Evaluator {
  const step = stepPart === null ? 1 : stepPart;
  return (v) => {
    if (Array.isArray(v)) {
      if (step === 0) return failure('Runtime', 'Invalid slice, step cannot be 0');
      return sliceOf(v, start, stop, step);
    }
    // interpreter.go ASTSlice: strings are sliced as runes; a zero step yields null rather than an error.
    if (typeof v === 'string') {
      if (step === 0) return null;
      return sliceOf(Array.from(v), start, stop, step).join('');
    }
    return null;
  };
}

function projectionEvaluator(node: Extract<JmesNode, { type: 'Projection' }>, table: FunctionTable): Evaluator {
  const [leftNode, rightNode] = node.children;
  // interpreter.go ASTProjection: `s[a:b]` on a string yields the sliced string itself.
  const allowString = leftNode.type === 'IndexExpression' && leftNode.children[1].type === 'Slice';
  const left = compileNode(leftNode, table);
  const right = compileNode(rightNode, table);
  const rightIsIdentity = rightNode.type === 'Identity';
  return (v, env) => {
    let l = left(v, env);
    if (l instanceof JmesFailure) {
      if (l.kind !== 'NotFound') return l;
      l = null;
    }
    if (!Array.isArray(l)) return allowString && typeof l === 'string' ? l : null;
    const out: unknown[] = [];
    for (const element of l) {
      const r = rightIsIdentity ? element : right(element, env);
      if (r instanceof JmesFailure) {
        if (r.kind === 'NotFound') continue;
        return r;
      }
      if (r !== null && r !== undefined) out.push(r);
    }
    return out;
  };
}
