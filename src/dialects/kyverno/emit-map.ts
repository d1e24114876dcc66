/**
 * What the Kyverno generator writes for the CEL of a MutatingAdmissionPolicy (after the cel-kyverno
 * lowering has inlined params and variables and folded closed parts):
 * - a CEL condition (matchCondition, or the condition of an ApplyConfiguration's `c ? A : B`) becomes
 *   precondition entries that hold where the CEL is true and does not fail, and the condition under which
 *   it fails (cel-kyverno/compile.ts);
 * - a computed value becomes a `{{ }}` hole, with the condition under which it fails;
 * - where kube-apiserver fails the mutation (and so, under failurePolicy Fail, denies the request), a rule
 *   that fails exactly then: its patch tests the whole object against a string, which never holds, so
 *   Kyverno reports the rule as failed and denies the request as kube-apiserver does. Under Ignore both
 *   engines go on without the mutation, and no such rule is needed.
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
import { notYet, type Refusal } from '../generate-report.js';
import { jsonPatchText } from './emit-json-patch.js';
import { evaluateClosedJson } from './map-cel.js';

/** What the generator knows while writing one MAP-sourced policy. */
export interface MapScope {
  failurePolicy: 'fail' | 'ignore';
  env: CompileEnv;
  kinds: readonly KindSchema[] | undefined;
  /** Guards standing for compiled conditions: their JMESPath and what they read. */
  compiled: Map<Guard, { j: string; reads: Read[] }>;
}

export function mapScope(p: Policy): MapScope {
  const kinds = matchedKindSchemas(p);
  return {
    failurePolicy: p.semantics.failurePolicy === 'ignore' ? 'ignore' : 'fail',
    env: { facts: kindFacts(kinds), ...(kinds ? { kinds } : {}) },
    kinds,
    compiled: new Map(),
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
  if (isClosed(parsed.value)) {
    const v = evaluateClosedJson(text, origin);
    if (!v.ok) return constant('fails', origin);
    if (typeof v.value !== 'boolean') return constant('fails', origin);
    return constant(v.value, origin);
  }
  const t = compileCelText(text, scope.env);
  if (!isTerm(t)) return { ...t, why: `the CEL condition ${text.trim()}: ${t.why}` };
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

/** A computed value, or why it cannot be stated exactly. */
export function compileValue(text: string, scope: MapScope): Term | Refusal {
  const t = compileCelText(text, scope.env);
  if (!isTerm(t)) return { ...t, why: `the value ${text.trim()}: ${t.why}` };
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
  return { patchesJson6902: jsonPatchText([{ op: 'test', path: '', value: { kind: 'literal', json: `${why} here, which its failurePolicy Fail turns into a denial` } }]) };
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
