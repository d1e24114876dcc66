/**
 * What the Kyverno generator writes for the CEL of a MutatingAdmissionPolicy or a MutatingPolicy (after the
 * cel-kyverno lowering has inlined params and variables and folded closed parts; the policy's CEL environment,
 * cel-kyverno/env.ts, says how closed parts are evaluated and what `request` holds):
 * - a CEL condition (matchCondition, or the condition of an ApplyConfiguration's `c ? A : B`) becomes
 *   precondition entries that hold where the CEL is true and does not fail, and the condition under which
 *   it fails (cel-kyverno/compile.ts);
 * - a computed value becomes a `{{ }}` hole, with the condition under which it fails;
 * - where kube-apiserver (or Kyverno, for a MutatingPolicy) fails the mutation (and so, under failurePolicy
 *   Fail, denies the request), a rule that fails exactly then: its patch tests the whole object against a
 *   string, which never holds, so Kyverno reports the rule as failed and denies the request as the source
 *   engine does. Under Ignore both engines go on without the mutation, and no such rule is needed.
 */
import { guardJmes } from './emit-guard.js';
import type { JsonObject } from '../../ir/json.js';
import type { Guard, Origin, Policy } from '../../ir/nodes.js';
import type { KindSchema } from '../../engines/ssa.js';
import { matchedKindSchemas } from '../../lowering/raise-apply-configuration.js';
import { kindFacts } from '../../lowering/kind-facts.js';
import { and, atom, conjuncts, equals, FALSE, not, or, render, TRUE, type Cond } from '../../lowering/cel-kyverno/cond.js';
import type { LabelSelector } from '../../ir/match.js';
import { jmesField, jmesLiteral } from './emit-text.js';
import { compileCelText, holeSafe, isTerm, type CompileEnv, type Read, type Term } from '../../lowering/cel-kyverno/compile.js';
import { isClosed } from '../../lowering/cel-kyverno/closed.js';
import { parse } from '../../cel/index.js';
import { isRefusal, notYet, type Refusal } from '../generate-report.js';
import { jsonPatchText } from './emit-json-patch.js';
import { evaluateClosedJson } from './map-cel.js';
import { celEnvOf, MAP_ENV, type CelEnv } from '../../lowering/cel-kyverno/env.js';

/** What the generator knows while writing one policy read from CEL (a MAP invocation or a MutatingPolicy). */
export interface MapScope {
  failurePolicy: 'fail' | 'ignore';
  /** The CEL environment of the policy's expressions. */
  cel: CelEnv;
  env: CompileEnv;
  kinds: readonly KindSchema[] | undefined;
  /** Guards standing for compiled conditions: their JMESPath and what they read. */
  compiled: Map<Guard, { j: string; reads: Read[] }>;
  /** Everything the compiled CEL of the policy reads (for the reads of a MutatingPolicy's `request.object`). */
  reads: Read[];
  /** The object fields the policy's rules write (before their first list segment). */
  writes: string[][];
}

/** The scope of a policy whose expressions are CEL of a known environment (read from MAP or MutatingPolicy), else undefined. */
export function celScope(p: Policy): MapScope | undefined {
  const cel = celEnvOf(p.origin.dialect);
  return cel ? mapScope(p, cel) : undefined;
}

export function mapScope(p: Policy, cel: CelEnv = MAP_ENV): MapScope {
  const kinds = matchedKindSchemas(p);
  return {
    failurePolicy: p.semantics.failurePolicy === 'ignore' ? 'ignore' : 'fail',
    cel,
    env: { facts: kindFacts(kinds), cel, ...(kinds ? { kinds } : {}) },
    kinds,
    compiled: new Map(),
    reads: [],
    writes: [],
  };
}

/** A guard carrying a compiled condition (a conjunct), registered with its reads. */
function conditionGuard(scope: MapScope, c: Cond, reads: Read[], origin: Origin): Guard {
  if (c.k === 'const') return { kind: 'const', value: c.v, origin };
  const g: Guard = { kind: 'jmes', expr: { text: render(c), origin }, origin };
  scope.compiled.set(g, { j: render(c), reads });
  return g;
}

export interface CompiledCondition {
  /** Guards that hold exactly where the CEL is true (and does not fail). */
  holds: Guard[];
  /** Guards that hold exactly where the CEL is false (and does not fail). */
  negated: Guard[];
  /** Where the CEL fails. */
  fails: Cond;
  reads: Read[];
}

function constant(value: boolean | 'fails', origin: Origin): CompiledCondition {
  const f: Guard = { kind: 'const', value: false, origin };
  if (value === 'fails') return { holds: [f], negated: [f], fails: TRUE, reads: [] };
  return { holds: value ? [] : [f], negated: value ? [f] : [], fails: FALSE, reads: [] };
}

/** A CEL condition as Kyverno conditions, or why it cannot be stated exactly. */
export function compileCondition(text: string, origin: Origin, scope: MapScope): CompiledCondition | Refusal {
  const parsed = parse(text);
  if (!parsed.ok) return notYet(`the CEL condition ${text.trim()}, which does not parse`);
  if (isClosed(parsed.value, new Set(), scope.cel)) {
    const v = evaluateClosedJson(text, origin, scope.cel);
    if (!v.ok) return constant('fails', origin);
    if (typeof v.value !== 'boolean') return constant('fails', origin);
    return constant(v.value, origin);
  }
  const t = compileCelText(text, scope.env);
  if (!isTerm(t)) return { ...t, why: `the CEL condition ${text.trim()}: ${t.why}` };
  scope.reads.push(...t.reads);
  if (t.ty !== 'bool' || !t.cond || t.present) return notYet(`the CEL condition ${text.trim()}, whose value is not known to be a boolean`);
  const ok = not(t.err);
  const holds = conjuncts(and(ok, t.cond));
  const negated = conjuncts(and(ok, not(t.cond)));
  for (const c of [...holds, ...negated, t.err]) if (!holeSafe(render(c))) return notYet(`the CEL condition ${text.trim()} (its JMESPath has nested braces)`);
  return {
    holds: holds.map((c) => conditionGuard(scope, c, t.reads, origin)),
    negated: negated.map((c) => conditionGuard(scope, c, t.reads, origin)),
    fails: t.err,
    reads: t.reads,
  };
}

/** A guard as three exclusive conditions: it holds, it is false, it fails (each never failing itself). */
interface Outcomes {
  t: Cond;
  f: Cond;
  e: Cond;
  reads: Read[];
}

function outcomes(g: Guard, scope: MapScope): Outcomes | Refusal {
  switch (g.kind) {
    case 'const':
      return { t: g.value ? TRUE : FALSE, f: g.value ? FALSE : TRUE, e: FALSE, reads: [] };
    case 'cel': {
      const c = compileCondition(g.expr.text, g.origin, scope);
      if (isRefusal(c)) return c;
      const t = and(...c.holds.map((x) => guardCond(x, scope) ?? FALSE));
      const f = and(...c.negated.map((x) => guardCond(x, scope) ?? FALSE));
      return { t, f, e: c.fails, reads: c.reads };
    }
    case 'not': {
      const o = outcomes(g.arg, scope);
      return isRefusal(o) ? o : { t: o.f, f: o.t, e: o.e, reads: o.reads };
    }
    case 'and':
    case 'or': {
      // The interpreter (guards.ts) and Kyverno's exception matching go left to right and stop at the
      // deciding value (false for and, true for or); an error before it is the result.
      const decides = g.kind === 'and' ? 'f' : 't';
      const goesOn = g.kind === 'and' ? 't' : 'f';
      let before: Cond = TRUE;
      let decided: Cond = FALSE;
      let failed: Cond = FALSE;
      const reads: Read[] = [];
      for (const a of g.args) {
        const o = outcomes(a, scope);
        if (isRefusal(o)) return o;
        reads.push(...o.reads);
        decided = or(decided, and(before, o[decides]));
        failed = or(failed, and(before, o.e));
        before = and(before, o[goesOn]);
      }
      return g.kind === 'and' ? { t: before, f: decided, e: failed, reads } : { t: decided, f: before, e: failed, reads };
    }
    default: {
      const j = guardJmes(g);
      if (j === undefined) return notYet(`a condition of kind ${g.kind}`);
      const c = atom(j);
      return { t: c, f: not(c), e: FALSE, reads: [] };
    }
  }
}

/**
 * A guard tree holding CEL conditions (a MutatingPolicy's PolicyException exemptions, `not(or(and(...)))`)
 * as Kyverno conditions, evaluated as the interpreter evaluates it: left to right, each junction stopping at
 * its deciding value, an error before that being the guard's error.
 */
export function compileGuardTree(g: Guard, scope: MapScope): CompiledCondition | Refusal {
  if (g.kind === 'cel') return compileCondition(g.expr.text, g.origin, scope);
  const o = outcomes(g, scope);
  if (isRefusal(o)) return o;
  for (const c of [o.t, o.f, o.e]) if (!holeSafe(render(c))) return notYet('a condition whose JMESPath has nested braces');
  return {
    holds: conjuncts(o.t).map((c) => conditionGuard(scope, c, o.reads, g.origin)),
    negated: conjuncts(o.f).map((c) => conditionGuard(scope, c, o.reads, g.origin)),
    fails: o.e,
    reads: o.reads,
  };
}

/** Whether a guard holds a CEL condition somewhere. */
export function holdsCel(g: Guard): boolean {
  if (g.kind === 'cel') return true;
  if (g.kind === 'and' || g.kind === 'or') return g.args.some(holdsCel);
  if (g.kind === 'not') return holdsCel(g.arg);
  return false;
}

/** A computed value, or why it cannot be stated exactly. */
export function compileValue(text: string, scope: MapScope): Term | Refusal {
  const t = compileCelText(text, scope.env);
  if (!isTerm(t)) return { ...t, why: `the value ${text.trim()}: ${t.why}` };
  scope.reads.push(...t.reads);
  if (t.present) return notYet(`the optional value ${text.trim()}`);
  if (!holeSafe(t.j) || !holeSafe(render(t.err))) return notYet(`the value ${text.trim()} (its JMESPath has nested braces)`);
  return t;
}

/** A label selector on the labels of `base` (`request.object` / `request.oldObject`), Kubernetes' reading. */
function selectorCond(sel: LabelSelector, base: string): Cond {
  const labels = `${base}.metadata.labels`;
  const label = (k: string): string => `${labels}.${jmesField(k)}`;
  const parts: Cond[] = [];
  for (const k of Object.keys(sel.matchLabels ?? {})) parts.push(equals(label(k), jmesLiteral(sel.matchLabels![k]!)));
  for (const r of sel.matchExpressions ?? []) {
    const has = atom(`contains(keys(${labels} || \`{}\`), ${jmesLiteral(r.key)})`);
    const member = atom(`contains(${jmesLiteral(r.values ?? [])}, ${label(r.key)})`);
    // labels.Requirement: In needs the label with one of the values; NotIn holds where the label is absent too.
    if (r.operator === 'In') parts.push(member);
    else if (r.operator === 'NotIn') parts.push(not(member));
    else if (r.operator === 'Exists') parts.push(has);
    else parts.push(not(has));
  }
  // A null object never matches (MatchObjectSelector).
  return and(equals(`type(${base})`, "'object'"), ...parts);
}

/**
 * A MAP objectSelector as a condition: kube-apiserver matches when the new or the old object's labels match
 * (MatchObjectSelector), where Kyverno's `selector` reads the new object only and wildcards its values; a
 * guard (compiled, so its reads are checked against the policy's writes) says it exactly.
 */
export function objectSelectorGuard(sel: LabelSelector, scope: MapScope, origin: Origin): Guard {
  const c = or(selectorCond(sel, 'request.object'), selectorCond(sel, 'request.oldObject'));
  const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((r) => r.key)];
  return conditionGuard(scope, c, keys.map((k) => ({ root: 'object', fields: ['metadata', 'labels', k] })), origin);
}

/** The JMESPath condition of any guard the generator writes (compiled or structured), or undefined. */
export function guardCond(g: Guard, scope: MapScope): Cond | undefined {
  if (g.kind === 'const') return { k: 'const', v: g.value };
  const c = scope.compiled.get(g);
  if (c) return atom(c.j);
  const j = guardJmes(g);
  return j === undefined ? undefined : atom(j);
}

/** The `mutate` block of a rule that always fails (see the header). */
export function failingMutate(why: string): JsonObject {
  // Every object has metadata, and it is never a string: the test always fails. (Not the root path "",
  // which Kyverno's webhook refuses: a JSON patch path must begin with a slash.)
  return { patchesJson6902: jsonPatchText([{ op: 'test', path: '/metadata', value: { kind: 'literal', json: `${why} here, which its failurePolicy Fail turns into a denial` } }]) };
}

/**
 * Whether a write can change what a read sees: one path is a prefix of the other; for a presence read, only
 * a write at or above it (a write strictly below needs the field there and leaves it there).
 */
export function overlaps(read: Read, write: readonly string[]): boolean {
  if (read.root !== 'object') return false;
  if (read.presence && write.length > read.fields.length) return false;
  const n = Math.min(read.fields.length, write.length);
  for (let i = 0; i < n; i++) if (read.fields[i] !== write[i]) return false;
  return true;
}

export { render, conjuncts, and, or, not, FALSE, TRUE };
export type { Cond, Term, Read };
