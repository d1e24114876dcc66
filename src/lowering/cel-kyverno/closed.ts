/**
 * Closed CEL expressions: those that read none of a MutatingAdmissionPolicy's request-dependent variables
 * (object, oldObject, request, namespaceObject, authorizer, and params / variables until they are inlined),
 * nor call a function of the environment that reads the cluster or the network (a MutatingPolicy's
 * resource.Get, http.Get...; env.ts). A closed expression has one value (or one error) on every request, since
 * the rest of CEL is pure: it can be evaluated once, at translation time, with the policy's environment
 * (kube-apiserver's or Kyverno's) and cost limit, and replaced by that value (referential transparency), or,
 * when it errors, stands for a mutation that always fails.
 */
import { scopedSubexpressions, type Expr } from '../../cel/ast.js';
import { compile, MAP_VARIABLES } from '../../cel/index.js';
import { CelDouble, CelObject, CelOptional, CelUint } from '../../cel/values.js';
import { PER_CALL_COST_LIMIT } from '../../engines/cel.js';
import { isImpureCall, MAP_ENV, type CelEnv } from './env.js';

/** The MAP variables whose value depends on the request (or on bindings not inlined). */
export const REQUEST_VARIABLES: ReadonlySet<string> = new Set(MAP_VARIABLES);

/** The identifiers `e` reads that are not bound inside it (comprehension variables of `e` are bound). */
export function freeIdents(e: Expr, bound: ReadonlySet<string> = new Set()): Set<string> {
  const out = new Set<string>();
  const visit = (x: Expr, b: ReadonlySet<string>): void => {
    if (x.kind === 'ident') {
      if (!b.has(x.name)) out.add(x.name);
      return;
    }
    // `optional.of(...)`, `jsonpatch.escapeKey(...)`: a namespace, not a variable.
    if (x.kind === 'call' && x.target?.kind === 'ident' && !REQUEST_VARIABLES.has(x.target.name) && !b.has(x.target.name)) {
      for (const a of x.args) visit(a, b);
      return;
    }
    for (const [sub, sb] of scopedSubexpressions(x, b)) visit(sub, sb);
  };
  visit(e, bound);
  return out;
}

/** Whether `e` calls a function of `env` that reads the cluster or the network (resource.Get, http.Get...). */
export function callsImpure(e: Expr, env: CelEnv): boolean {
  if (env.impureNamespaces.size === 0 && env.impureFunctions.size === 0) return false;
  const visit = (x: Expr, b: ReadonlySet<string>): boolean =>
    (x.kind === 'call' && isImpureCall(x, env, b)) || scopedSubexpressions(x, b).some(([sub, sb]) => visit(sub, sb));
  return visit(e, new Set());
}

/**
 * Whether `e` reads nothing that depends on the request (nor on the cluster: `env`'s impure functions);
 * `outer` are comprehension variables bound around it.
 */
export function isClosed(e: Expr, outer: ReadonlySet<string> = new Set(), env: CelEnv = MAP_ENV): boolean {
  for (const name of freeIdents(e)) if (REQUEST_VARIABLES.has(name) || outer.has(name)) return false;
  return !callsImpure(e, env);
}

export type ClosedValue = { ok: true; value: unknown; cost: number } | { ok: false; error: string };

/** The activation of a closed expression: every variable of the environment bound to nothing it could read. */
export function closedActivation(env: CelEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of env.variables) out[v] = v === 'request' ? {} : v === 'variables' ? {} : null;
  return out;
}

/**
 * Evaluates a closed expression as its engine would (kube-apiserver's MAP environment, or Kyverno's
 * MutatingPolicy one; both with kube-apiserver's per-call cost limit).
 */
export function evaluateClosed(text: string, env: CelEnv = MAP_ENV): ClosedValue {
  const program = compile(text, { variables: env.variables, extraLibraries: [...env.extraLibraries] });
  if (!program.ok) return { ok: false, error: program.diagnostics[0]?.message ?? 'does not compile' };
  const r = program.value.eval(closedActivation(env), { costLimit: PER_CALL_COST_LIMIT });
  return r.ok ? { ok: true, value: r.value, cost: r.cost } : { ok: false, error: r.error };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function stringLiteral(s: string): string | undefined {
  return LONE_SURROGATE.test(s) ? undefined : JSON.stringify(s);
}

/** A CEL double literal that reads back as exactly `n`. */
function doubleLiteral(n: number): string | undefined {
  if (!Number.isFinite(n)) return undefined;
  if (Object.is(n, -0)) return '-0.0';
  const s = Number.isInteger(n) ? n.toExponential() : String(n);
  const [mantissa, exponent] = s.split('e') as [string, string | undefined];
  const m = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return exponent === undefined ? m : `${m}e${exponent.replace('+', '')}`;
}

type Rendered = { text: string; type: string };

/**
 * A CEL literal expression whose value is `v` (undefined when there is none: bytes, timestamps, opaque
 * library values, non-string map keys). Aggregates whose members do not share one static type wrap each
 * member in dyn(): kube-apiserver compiles with HomogeneousAggregateLiterals.
 */
export function celLiteral(v: unknown): string | undefined {
  return render(v)?.text;
}

function render(v: unknown): Rendered | undefined {
  if (v === null) return { text: 'null', type: 'null' };
  if (typeof v === 'boolean') return { text: String(v), type: 'bool' };
  if (typeof v === 'string') {
    const text = stringLiteral(v);
    return text === undefined ? undefined : { text, type: 'string' };
  }
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return { text: v < 0 ? `(${v})` : String(v), type: 'int' };
    const text = doubleLiteral(v);
    return text === undefined ? undefined : { text: text.startsWith('-') ? `(${text})` : text, type: 'double' };
  }
  if (typeof v === 'bigint') return { text: v < 0n ? `(${v})` : String(v), type: 'int' };
  if (v instanceof CelDouble) {
    const text = doubleLiteral(v.v);
    return text === undefined ? undefined : { text: text.startsWith('-') ? `(${text})` : text, type: 'double' };
  }
  if (v instanceof CelUint) return { text: `${v.v}u`, type: 'uint' };
  if (v instanceof CelOptional) {
    if (!v.has) return { text: 'optional.none()', type: 'optional' };
    const inner = render(v.value);
    return inner ? { text: `optional.of(${inner.text})`, type: 'optional' } : undefined;
  }
  if (Array.isArray(v)) {
    const items: Rendered[] = [];
    for (const x of v) {
      const r = render(x);
      if (!r) return undefined;
      items.push(r);
    }
    return { text: `[${homogeneous(items).join(', ')}]`, type: 'list' };
  }
  if (v instanceof CelObject) {
    if (!/^(Object(\.[A-Za-z_][A-Za-z0-9_]*)*|JSONPatch)$/.test(v.typeName)) return undefined;
    const parts: string[] = [];
    for (const k of Object.keys(v.fields)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) return undefined;
      const r = render(v.fields[k]);
      if (!r) return undefined;
      parts.push(`${k}: ${r.text}`);
    }
    return { text: `${v.typeName}{${parts.join(', ')}}`, type: v.typeName };
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const entries = Object.entries(v as Record<string, unknown>);
    const keys: string[] = [];
    const vals: Rendered[] = [];
    for (const [k, x] of entries) {
      const key = stringLiteral(k);
      const r = render(x);
      if (key === undefined || !r) return undefined;
      keys.push(key);
      vals.push(r);
    }
    const members = homogeneous(vals);
    return { text: `{${keys.map((k, i) => `${k}: ${members[i]}`).join(', ')}}`, type: 'map' };
  }
  return undefined;
}

function homogeneous(items: readonly Rendered[]): string[] {
  const first = items[0]?.type;
  const same = items.every((r) => r.type === first && r.type !== 'null' && r.type !== 'list' && r.type !== 'map');
  return items.map((r) => (same || items.length <= 1 ? r.text : `dyn(${r.text})`));
}

/**
 * The source text of a node, parentheses included: the parser's spans leave out the parentheses around an
 * operand, so a binary node whose first operand is parenthesized starts inside them (`(a) + b` spans
 * `a) + b`). The span is widened until its parentheses balance (string literals skipped).
 */
export function exprText(text: string, e: { start: number; end: number }): string {
  const span = exprSpan(text, e);
  return text.slice(span.start, span.end);
}

/** The span of a node, parentheses included (see exprText). */
export function exprSpan(text: string, e: { start: number; end: number }): { start: number; end: number } {
  let start = e.start;
  let end = e.end;
  const { unmatchedClose, unmatchedOpen } = balance(text.slice(start, end));
  for (let n = unmatchedClose; n > 0; n--) {
    let i = start - 1;
    while (i >= 0 && /\s/.test(text[i]!)) i--;
    if (text[i] !== '(') break;
    start = i;
  }
  for (let n = unmatchedOpen; n > 0; n--) {
    let i = end;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] !== ')') break;
    end = i + 1;
  }
  return { start, end };
}

function balance(s: string): { unmatchedClose: number; unmatchedOpen: number } {
  let depth = 0;
  let min = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      const triple = s.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      i += close.length;
      while (i < s.length && !s.startsWith(close, i)) i += s[i] === '\\' ? 2 : 1;
      i += close.length - 1;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < min) min = depth;
    }
  }
  return { unmatchedClose: -min, unmatchedOpen: depth - min };
}
