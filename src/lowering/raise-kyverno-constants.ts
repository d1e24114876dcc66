/**
 * Kyverno values that do not depend on the admission request, evaluated at translation time:
 *
 * 1. `foldKyvernoConstants`: a strategic merge whose `{{ }}` variables read only context variables that are
 *    themselves constants (a literal `value`, or a JMESPath over such variables) becomes the literal patch
 *    Kyverno would substitute. "Read only" is decided on the expression's text: every name it reads from the
 *    top of the context (not after a dot, not a function) is a binding of the rule that reads no further than
 *    constants, or no binding at all (an unknown name reads as null in every request), and the expression
 *    names none of the request's roots (`request`, `images`, `element*`, `serviceAccount*`, `target`), no `@`
 *    and no function whose result changes between calls (`random`, `time_now*`, `time_since`,
 *    `is_external_url`). The value is then computed by the interpreter itself, on an empty object, after the
 *    rule's bindings up to the patch in their order (so deferred bindings resolve where they stand, as
 *    upstream's deferred loader does): the very evaluation every admission would run. A value that fails to
 *    evaluate stays as it is.
 *
 * 2. `collapseConstantLoops`: a `foreach` over a literal list (`['dummy']`, a JSON literal) whose body, once
 *    the patches are raised, only sets and removes constants runs that body once per non-null element; such
 *    a body gives the same object run once or many times (every op is idempotent and reads nothing the loop
 *    binds), so it is the body once, or nothing for a list without non-null elements. The loop's own
 *    bindings end with the loop and nothing left reads them: they go.
 */
import { isJsonObject, type JsonValue } from '../ir/json.js';
import type { ForEachOp, LetOp, MergeOp, Op, Policy, Rule, Value } from '../ir/nodes.js';
import { apply } from '../interpreter/index.js';
import { readOpaque } from '../dialects/kyverno/opaque.js';
import { rewritePolicies } from './rewrite.js';
import type { Raising } from './index.js';

const ADMISSION_ROOTS = new Set(['request', 'images', 'serviceAccountName', 'serviceAccountNamespace', 'target']);
const VARYING_FUNCTIONS = /\b(random|time_now|time_now_utc|time_since|is_external_url)\s*\(/;
const HOLES = /\{\{((?:\{[^{}]*\}|[^{}])*)\}\}/g;
const PROBE = '__transmute_probe__';

/** The names an expression reads from the top of the context (not after a dot, not called), approximately. */
function rootNames(expr: string): string[] {
  const text = expr.replace(/'(?:[^'\\]|\\.)*'/g, "''").replace(/`(?:[^`\\]|\\.)*`/g, '``');
  const out: string[] = [];
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const before = text.slice(0, m.index).trimEnd();
    const after = text.slice(m.index + m[0].length).trimStart();
    if (before.endsWith('.') || after.startsWith('(')) continue;
    out.push(m[2] ?? m[1]!);
  }
  return out;
}

/** Whether an expression (a hole's body) reads only constants, given the bindings in scope. */
export function constantExpression(expr: string, lets: ReadonlyMap<string, LetOp>, seen: Set<string> = new Set()): boolean {
  const inner = [...expr.matchAll(HOLES)].map((m) => m[1]!);
  if (inner.some((h) => !constantExpression(h, lets, seen))) return false;
  const text = expr.replace(HOLES, "''");
  if (text.includes('{{') || text.includes('@') || VARYING_FUNCTIONS.test(text)) return false;
  for (const name of rootNames(text)) {
    if (ADMISSION_ROOTS.has(name) || /^element(Index)?\d*$/.test(name)) return false;
    const l = lets.get(name);
    if (l && !seen.has(name)) {
      seen.add(name);
      if (!constantLet(l, lets, seen)) return false;
    }
  }
  return true;
}

/** Whether a binding's value is the same in every request (a literal, or an entry reading only constants). */
export function constantLet(l: LetOp, lets: ReadonlyMap<string, LetOp>, seen: Set<string> = new Set()): boolean {
  const v = l.value;
  if (v.kind === 'literal') return true;
  if (v.kind !== 'jmes') return false;
  const opaque = readOpaque(v.expr.text);
  if (opaque?.kind !== 'context' || !isJsonObject(opaque.json) || !isJsonObject(opaque.json.variable)) return false;
  const variable = opaque.json.variable;
  const parts: string[] = [];
  if (variable.jmesPath !== undefined) {
    if (typeof variable.jmesPath !== 'string') return false;
    parts.push(variable.jmesPath);
  }
  for (const m of JSON.stringify(variable.value ?? null).matchAll(HOLES)) parts.push(m[1]!);
  for (const m of JSON.stringify(variable.default ?? null).matchAll(HOLES)) parts.push(m[1]!);
  return parts.every((p) => constantExpression(p, lets, seen));
}

function holesOf(json: JsonValue): string[] {
  const out: string[] = [];
  const visit = (v: JsonValue): void => {
    if (typeof v === 'string') for (const m of v.matchAll(HOLES)) out.push(m[1]!);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (isJsonObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        for (const m of k.matchAll(HOLES)) out.push(m[1]!);
        visit(x);
      }
    }
  };
  visit(json);
  return out;
}

/** The value the interpreter computes for `value` after `lets`, on an empty object; undefined if it fails. */
function evaluate(value: Value, lets: readonly LetOp[], origin: Op['origin']): JsonValue | undefined {
  const probe: Policy = {
    id: PROBE,
    match: { globs: 'wildcard' },
    guards: [],
    rules: [{ name: PROBE, guards: [], body: [...lets, { kind: 'set', path: { root: 'object', segments: [{ kind: 'field', name: PROBE }] }, value, origin }], origin }],
    semantics: { order: 'sequential', failurePolicy: 'fail' },
    origin,
  };
  try {
    const r = apply([probe], { object: {}, oldObject: null, operation: 'CREATE', userInfo: {}, namespaceObject: null, params: null }, { trace: false });
    if (!r.allowed || !isJsonObject(r.object) || !Object.hasOwn(r.object, PROBE)) return undefined;
    return r.object[PROBE]!;
  } catch {
    return undefined;
  }
}

/** The rule with every foldable merge folded, or the rule itself. */
function foldRule(rule: Rule): Rule {
  const bound = new Set<string>();
  const collect = (ops: readonly Op[]): void => {
    for (const op of ops) {
      if (op.kind === 'let') bound.add(op.name);
      else if (op.kind === 'when') {
        collect(op.then);
        if (op.else) collect(op.else);
      } else if (op.kind === 'forEach') collect(op.body);
    }
  };
  collect(rule.body);
  const scope: LetOp[] = [];
  const fold = (op: MergeOp): Op[] | undefined => {
    if (op.value.kind !== 'templated') return undefined;
    const lets = new Map(scope.map((l) => [l.name, l]));
    const holes = holesOf(op.value.json);
    if (holes.length === 0 || !holes.every((h) => constantExpression(h, lets, new Set()))) return undefined;
    // A name bound elsewhere in the rule but not here is not a name that reads as null everywhere: keep it.
    if (holes.some((h) => rootNames(h.replace(HOLES, "''")).some((n) => bound.has(n) && !lets.has(n)))) return undefined;
    const json = evaluate(op.value, scope, op.origin);
    if (json === undefined) return undefined;
    return [{ ...op, value: { kind: 'literal', json, origin: op.value.origin } }];
  };
  const body = foldBlock(rule.body, scope, fold);
  return body ? { ...rule, body } : rule;
}

/** Folds the merges of a block in order, the bindings before each in scope (a block's own end with it). */
function foldBlock(ops: readonly Op[], scope: LetOp[], fold: (op: MergeOp) => Op[] | undefined): Op[] | undefined {
  const mark = scope.length;
  let out: Op[] | undefined;
  ops.forEach((op, i) => {
    let replaced: Op[] | undefined;
    if (op.kind === 'let') scope.push(op);
    else if (op.kind === 'merge') replaced = fold(op);
    else if (op.kind === 'when') {
      const then = foldBlock(op.then, scope, fold);
      const otherwise = op.else ? foldBlock(op.else, scope, fold) : undefined;
      if (then || otherwise) replaced = [{ ...op, then: then ?? op.then, ...(op.else ? { else: otherwise ?? op.else } : {}) }];
    } else if (op.kind === 'forEach') {
      const body = foldBlock(op.body, scope, fold);
      if (body) replaced = [{ ...op, body }];
    }
    if (replaced === undefined) {
      out?.push(op);
      return;
    }
    out ??= ops.slice(0, i);
    out.push(...replaced);
  });
  scope.length = mark;
  return out;
}

export const foldKyvernoConstants: Raising = (policies) => {
  let changed = false;
  const out = policies.map((p) => {
    if (p.lets?.length) return p;
    let rulesChanged = false;
    const rules = p.rules.map((r) => {
      const folded = foldRule(r);
      if (folded !== r) rulesChanged = true;
      return folded;
    });
    if (!rulesChanged) return p;
    changed = true;
    return { ...p, rules };
  });
  return changed ? out : policies;
};

/** The elements of a literal JMESPath list (`['a', 'b']`, `` `["a"]` ``), or undefined. */
function literalList(expr: string): JsonValue[] | undefined {
  const text = expr.trim();
  const json = /^`(.*)`$/s.exec(text);
  if (json) {
    try {
      const v = JSON.parse(json[1]!) as JsonValue;
      return Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }
  const m = /^\[\s*((?:'(?:[^'\\]|\\.)*'\s*,\s*)*'(?:[^'\\]|\\.)*')?\s*\]$/.exec(text);
  if (!m) return undefined;
  if (!m[1]) return [];
  return [...m[1].matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((x) => x[1]!.replace(/\\(.)/g, '$1'));
}

/** Whether an op reads or binds nothing of the loop and gives the same object run once or many times. */
function constantOp(op: Op): boolean {
  if (op.kind === 'set') return op.path.root === 'object' && op.value.kind === 'literal';
  if (op.kind === 'remove') return op.path.root === 'object';
  return false;
}

function collapse(op: ForEachOp): Op[] | undefined {
  if (!('kind' in op.list) || op.list.kind !== 'jmes') return undefined;
  const elements = literalList(op.list.expr.text);
  if (!elements || op.body.length !== 1) return undefined;
  const w = op.body[0]!;
  if (w.kind !== 'when' || w.else?.length || w.guard.kind !== 'neq' || w.guard.path.root !== 'vars') return undefined;
  const work = w.then.filter((o) => !(o.kind === 'let' && (o.lazy || o.value.kind === 'literal' || (o.value.kind === 'ref' && o.value.path.root === 'vars'))));
  if (!work.every(constantOp)) return undefined;
  return elements.some((e) => e !== null) ? work : [];
}

export const collapseConstantLoops: Raising = (policies) => rewritePolicies(policies, (op) => (op.kind === 'forEach' ? collapse(op) : undefined));
