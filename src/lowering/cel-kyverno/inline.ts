/**
 * Lowering for targets without MAP's bindings or Kyverno's CEL variables: the CEL of a MutatingAdmissionPolicy
 * invocation or of a MutatingPolicy is rewritten so it reads only the request.
 * - `params` becomes the literal param object of the invocation (the IR keeps one policy per policy ×
 *   binding × param, with the object in `let $params`); the `let` stays, so the generator can tell what was
 *   inlined and say so (the translation no longer follows changes of the param object);
 * - `variables.<name>` becomes the variable's own expression, in parentheses. MAP variables are lazy and
 *   evaluated per expression (composition.go), so reading one is evaluating its expression there and then:
 *   the value, and any error, are the same. A MutatingPolicy's variables (policy-level lazy lets, read by the
 *   matchConditions and every mutation) are evaluated once, at their first read, and kept for the rest of the
 *   policy: the inlined expression has that value wherever nothing the policy wrote before the read changes
 *   what it reads, which the Kyverno generator checks for every read it compiles (a read of what an earlier
 *   part of the policy wrote is refused there);
 * - every closed sub-expression (closed.ts) that is not already a literal is evaluated with the policy's
 *   environment (kube-apiserver's, or Kyverno's for a MutatingPolicy) and replaced by its value when that
 *   value has a literal form; one that errors is left as is.
 * The rewritten text has the same value as the original on every request. Variables that nothing reads
 * any more are dropped (a lazy variable never read is never evaluated).
 */
import type { Expr } from '../../cel/ast.js';
import { parse } from '../../cel/index.js';
import { PARAMS_VAR } from '../../engines/cel.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { ExprSource, Guard, LetOp, Op, Policy, Rule, Value } from '../../ir/nodes.js';
import { transformOps, transformGuard } from '../../ir/visit.js';
import { celLiteral, evaluateClosed, exprSpan, isClosed } from './closed.js';
import { celEnvOf, MAP_ENV, type CelEnv } from './env.js';

/** A fold costs nothing at run time; a closed part this expensive is left alone (see header of compile.ts). */
const MAX_FOLD_COST = 10_000;

interface Edit {
  start: number;
  end: number;
  text: string;
}

function applyEdits(text: string, edits: Edit[]): string {
  if (edits.length === 0) return text;
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) continue; // nested in an edit already made
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/** A literal, or a list / map of literal trees, or `dyn(<literal tree>)`: already as folded as it gets. */
function isLiteralTree(e: Expr): boolean {
  switch (e.kind) {
    case 'literal':
      return true;
    case 'list':
      return e.elements.every(isLiteralTree) && !e.optional.some(Boolean);
    case 'map':
      return e.entries.every((m) => !m.optional && isLiteralTree(m.key) && isLiteralTree(m.value));
    case 'call':
      return e.fn === 'dyn' && e.target === undefined && e.args.length === 1 && isLiteralTree(e.args[0]!);
    default:
      return false;
  }
}

/** Children of a node, with the comprehension variables bound around each. */
function children(e: Expr, bound: ReadonlySet<string>): [Expr, ReadonlySet<string>][] {
  switch (e.kind) {
    case 'literal':
    case 'ident':
      return [];
    case 'select':
      return [[e.operand, bound]];
    case 'index':
      return [
        [e.operand, bound],
        [e.index, bound],
      ];
    case 'call':
      return [...(e.target ? [[e.target, bound] as [Expr, ReadonlySet<string>]] : []), ...e.args.map((a): [Expr, ReadonlySet<string>] => [a, bound])];
    case 'list':
      return e.elements.map((x): [Expr, ReadonlySet<string>] => [x, bound]);
    case 'map':
      return e.entries.flatMap((m): [Expr, ReadonlySet<string>][] => [
        [m.key, bound],
        [m.value, bound],
      ]);
    case 'struct':
      return e.fields.map((f): [Expr, ReadonlySet<string>] => [f.value, bound]);
    case 'comprehension': {
      const inner = new Set(bound);
      inner.add(e.iterVar);
      if (e.iterVar2 !== undefined) inner.add(e.iterVar2);
      return [[e.range, bound], ...e.args.map((a): [Expr, ReadonlySet<string>] => [a, inner])];
    }
  }
}

/** Edits replacing the maximal closed, non-literal sub-expressions by their values. */
function foldEdits(text: string, e: Expr, bound: ReadonlySet<string>, out: Edit[], env: CelEnv): void {
  // A struct or a map literal is folded member by member, so the rest of the tooling reads its shape.
  if (e.kind !== 'struct' && e.kind !== 'map' && e.kind !== 'list' && !isLiteralTree(e) && isClosed(e, bound, env)) {
    // A bare namespace or type identifier (`optional`, `Object`) has no value of its own.
    if (e.kind !== 'ident') {
      const span = exprSpan(text, e);
      const v = evaluateClosed(text.slice(span.start, span.end), env);
      if (v.ok && v.cost <= MAX_FOLD_COST) {
        const lit = celLiteral(v.value);
        if (lit !== undefined) {
          out.push({ ...span, text: lit });
          return;
        }
      }
      // A closed part that fails is kept whole: folding inside it could make it cheaper and not fail (cost).
      if (!v.ok) return;
    }
  }
  for (const [c, b] of children(e, bound)) foldEdits(text, c, b, out, env);
}

/** Edits for `params` and `variables.<name>` (those in `vars`), outside comprehensions that shadow them. */
function inlineEdits(e: Expr, bound: ReadonlySet<string>, params: string | undefined, vars: ReadonlyMap<string, string>, out: Edit[]): void {
  if (e.kind === 'ident' && e.name === 'params' && params !== undefined && !bound.has('params')) {
    out.push({ start: e.start, end: e.end, text: `(${params})` });
    return;
  }
  if (e.kind === 'select' && !e.testOnly && !e.optional && e.operand.kind === 'ident' && e.operand.name === 'variables' && !bound.has('variables')) {
    const text = vars.get(e.field);
    if (text !== undefined) {
      out.push({ start: e.start, end: e.end, text: `(${text})` });
      return;
    }
  }
  for (const [c, b] of children(e, bound)) inlineEdits(c, b, params, vars, out);
}

/** The expression with params and variables inlined and closed parts folded; the text itself when nothing changes. */
export function rewriteCel(text: string, params: string | undefined, vars: ReadonlyMap<string, string>, env: CelEnv = MAP_ENV): string {
  const parsed = parse(text);
  if (!parsed.ok) return text;
  const edits: Edit[] = [];
  inlineEdits(parsed.value, new Set(), params, vars, edits);
  const inlined = applyEdits(text, edits);
  const reparsed = edits.length === 0 ? parsed : parse(inlined);
  if (!reparsed.ok) return text;
  const folds: Edit[] = [];
  foldEdits(inlined, reparsed.value, new Set(), folds, env);
  return folds.length === 0 ? inlined : applyEdits(inlined, folds);
}

function rewriteSource(expr: ExprSource, params: string | undefined, vars: ReadonlyMap<string, string>, env: CelEnv): ExprSource {
  const text = rewriteCel(expr.text, params, vars, env);
  return text === expr.text ? expr : { text, origin: expr.origin };
}

function rewriteValue(v: Value, params: string | undefined, vars: ReadonlyMap<string, string>, env: CelEnv): Value {
  if (v.kind !== 'cel') return v;
  const expr = rewriteSource(v.expr, params, vars, env);
  return expr === v.expr ? v : { ...v, expr };
}

function rewriteGuard(g: Guard, params: string | undefined, vars: ReadonlyMap<string, string>, env: CelEnv): Guard {
  return transformGuard(g, {
    guard: (x) => {
      if (x.kind !== 'cel') return x;
      const expr = rewriteSource(x.expr, params, vars, env);
      return expr === x.expr ? x : { ...x, expr };
    },
  });
}

/** Names of the variables an expression text reads as `variables.<name>` (all of them when it reads `variables` whole). */
function readsVariables(text: string, names: readonly string[]): Set<string> {
  const parsed = parse(text);
  const out = new Set<string>();
  if (!parsed.ok) return new Set(names);
  const visit = (e: Expr, bound: ReadonlySet<string>): void => {
    if (e.kind === 'select' && e.operand.kind === 'ident' && e.operand.name === 'variables' && !bound.has('variables')) {
      out.add(e.field);
      return;
    }
    if (e.kind === 'ident' && e.name === 'variables' && !bound.has('variables')) for (const n of names) out.add(n);
    for (const [c, b] of children(e, bound)) visit(c, b);
  };
  visit(parsed.value, new Set());
  return out;
}

function celTexts(ops: readonly Op[], guards: readonly Guard[]): string[] {
  const out: string[] = [];
  const ofGuard = (g: Guard): void => {
    if (g.kind === 'cel') out.push(g.expr.text);
    else if (g.kind === 'and' || g.kind === 'or') g.args.forEach(ofGuard);
    else if (g.kind === 'not') ofGuard(g.arg);
  };
  guards.forEach(ofGuard);
  transformOps(ops, {
    guard: (g) => (ofGuard(g), g),
    value: (v) => {
      if (v.kind === 'cel') out.push(v.expr.text);
      return v;
    },
  });
  return out;
}

/** The leading lazy CEL lets of a list of bindings (MAP variables of a rule, MutatingPolicy variables of a policy). */
function lazyCelLets(ops: readonly Op[]): LetOp[] {
  const out: LetOp[] = [];
  for (const op of ops) {
    if (op.kind !== 'let' || !op.lazy || op.value.kind !== 'cel') break;
    out.push(op);
  }
  return out;
}

/** The lets rewritten in order (each may read the earlier ones), adding each to `vars`. */
function rewriteLets(lazy: readonly LetOp[], params: string | undefined, vars: Map<string, string>, env: CelEnv): LetOp[] {
  return lazy.map((op) => {
    const value = rewriteValue(op.value, params, vars, env);
    vars.set(op.name, value.kind === 'cel' ? value.expr.text : op.value.kind === 'cel' ? op.value.expr.text : '');
    return value === op.value ? op : { ...op, value };
  });
}

/** The lets still read by `texts` (directly, or through a let still read), in order. */
function keptLets(lets: readonly LetOp[], texts: readonly string[]): LetOp[] {
  const names = lets.map((l) => l.name);
  const used = new Set<string>();
  for (const t of texts) for (const n of readsVariables(t, names)) used.add(n);
  for (let i = lets.length - 1; i >= 0; i--) {
    const l = lets[i]!;
    if (used.has(l.name) && l.value.kind === 'cel') for (const n of readsVariables(l.value.expr.text, names)) used.add(n);
  }
  return lets.filter((l) => used.has(l.name));
}

function rewriteRule(rule: Rule, params: string | undefined, outer: ReadonlyMap<string, string>, env: CelEnv): Rule {
  const vars = new Map(outer);
  const lazy = lazyCelLets(rule.body);
  const body = rewriteLets(lazy, params, vars, env);
  const rest = transformOps(rule.body.slice(lazy.length), {
    guard: (g) => rewriteGuard(g, params, vars, env),
    value: (v) => rewriteValue(v, params, vars, env),
  });
  const guards = rule.guards.map((g) => rewriteGuard(g, params, vars, env));
  // Variables still read (directly, or through a variable still read) are kept, in order.
  const kept = keptLets(body, celTexts(rest, guards));
  const out = [...kept, ...rest];
  if (guards.every((g, i) => g === rule.guards[i]) && out.length === rule.body.length && out.every((o, i) => o === rule.body[i])) return rule;
  return { ...rule, guards, body: out };
}

/** The literal param object of an invocation, as CEL text; undefined when the policy has none or it is not literal. */
function paramsText(p: Policy): string | undefined {
  const let0 = p.lets?.find((l) => l.name === PARAMS_VAR);
  if (!let0 || let0.value.kind !== 'literal') return undefined;
  const json: JsonValue = let0.value.json;
  return isJsonObject(json) || json === null ? celLiteral(json) : undefined;
}

export function inlineCelConstants(policies: Policy[]): Policy[] {
  return policies.map((p) => {
    const env = celEnvOf(p.origin.dialect) ?? MAP_ENV;
    const params = paramsText(p);
    // A MutatingPolicy's variables: policy-level lazy lets, visible to the guards and every rule.
    const lets = p.lets ?? [];
    const lazy = lazyCelLets(lets);
    const vars = new Map<string, string>();
    const rewritten = rewriteLets(lazy, params, vars, env);
    const guards = p.guards.map((g) => rewriteGuard(g, params, vars, env));
    const rules = p.rules.map((r) => rewriteRule(r, params, vars, env));
    const rest = lets.slice(lazy.length);
    const kept = lazy.length === 0 ? [] : keptLets(rewritten, [...celTexts([], guards), ...rules.flatMap((r) => celTexts(r.body, r.guards)), ...celTexts(rest, [])]);
    const outLets = [...kept, ...rest];
    const letsSame = outLets.length === lets.length && outLets.every((l, i) => l === lets[i]);
    if (letsSame && guards.every((g, i) => g === p.guards[i]) && rules.every((r, i) => r === p.rules[i])) return p;
    const out: Policy = { ...p, guards, rules };
    if (outLets.length > 0) out.lets = outLets;
    else delete out.lets;
    return out;
  });
}

/** Whether any CEL of the policy still reads `params` (the inlining could not remove it). */
export function readsParams(p: Policy): boolean {
  const texts = [...celTexts([], p.guards), ...p.rules.flatMap((r) => celTexts(r.body, r.guards))];
  return texts.some((t) => {
    const parsed = parse(t);
    if (!parsed.ok) return true;
    let found = false;
    const visit = (e: Expr, bound: ReadonlySet<string>): void => {
      if (e.kind === 'ident' && e.name === 'params' && !bound.has('params')) found = true;
      for (const [c, b] of children(e, bound)) visit(c, b);
    };
    visit(parsed.value, new Set());
    return found;
  });
}
