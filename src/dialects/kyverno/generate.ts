/**
 * IR back to Kyverno (kyverno.io/v1 ClusterPolicy / Policy).
 *
 * - Sequential policies (read from Kyverno, or any IR) become one policy each; rules in the parser's shapes
 *   are written back as the constructs they came from (emit-foreach.ts), path ops as Gatekeeper's walk would
 *   apply them (emit-path-op.ts).
 * - Fix-point policies (Gatekeeper mutators) become ONE ClusterPolicy whose rules follow Gatekeeper's order,
 *   after lower-fixpoint.ts has proven that one pass in that order reaches Gatekeeper's fix-point; where it
 *   cannot, the mutator is reported unsupported (TM4001) at its position.
 * - MutatingAdmissionPolicy invocations (after the cel-kyverno lowering inlined params and variables and
 *   folded closed CEL, and RAISE_MAP raised apply configurations and conditions) become one ClusterPolicy
 *   each: matchConditions and computed values are compiled from CEL to JMESPath with the exact condition
 *   under which the CEL fails (emit-map.ts, cel-kyverno/compile.ts), JSONPatch mutations are analysed into
 *   the preconditions under which Kyverno's JSON patch does what kube-apiserver's does (emit-map-json-patch.ts),
 *   and where kube-apiserver fails a mutation a rule fails too (failurePolicy Fail), so the request is denied
 *   as kube-apiserver denies it. A mutation is applied whole or not at all, as kube-apiserver applies it.
 * - MutatingPolicies take the same path with Kyverno's CEL environment (cel-kyverno/env.ts): their variables
 *   are inlined like MAP's, their PolicyExceptions are compiled as conditions, and the policy's one IR rule
 *   (every mutation, abandoned whole where one fails) is written like one MAP mutation. A
 *   NamespacedMutatingPolicy becomes a namespaced Policy; the autogen variants of a MutatingPolicy become the
 *   controller rules of its ClusterPolicy (`autogen-<name>`, `autogen-cronjob-<name>`, Kyverno's own names),
 *   whose autogen is then off.
 * What Kyverno cannot state exactly is TM4001 at the IR node's origin and left out; a known difference that
 * is still emitted is TM4002/TM4003. Nothing is written approximately without a diagnostic.
 */
import type { Origin } from '../../diagnostics/span.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { Guard, MatchSpec, Op, Policy, Rule } from '../../ir/nodes.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { GenerationReport } from '../generate-report.js';
import { AUTOGEN_ANNOTATION } from './autogen.js';
import { conditionsOf, nativeBody } from './emit-foreach.js';
import { guardPreconditions, type CompiledGuards } from './emit-guard.js';
import { holdsAfter, writeOf, type Write } from './guard-stability.js';
import { emitMatch } from './emit-match.js';
import { emitPathOp, type ComputedValue } from './emit-path-op.js';
import { jsonPatchText } from './emit-json-patch.js';
import { planMapJsonPatch } from './emit-map-json-patch.js';
import { and, celScope, compileCondition, compileGuardTree, compileValue, failingMutate, FALSE, guardCond, holdsCel, not, objectSelectorGuard, or, overlaps, render, TRUE, type Cond, type MapScope, type Read } from './emit-map.js';
import { applyConfigurationAlwaysFails, applyConfigurationReason, closedFailure, mapJsonPatchSteps } from './map-cel.js';
import { checkFixpoint } from './lower-fixpoint.js';
import { DIALECT } from './reader.js';
import { PARAMS_VAR } from '../../engines/cel.js';
import { lookupResource } from '../../k8s/resources.js';
import { parse as parseCel } from '../../cel/index.js';
import { exprText } from '../../lowering/cel-kyverno/closed.js';
import { readsParams } from '../../lowering/cel-kyverno/inline.js';
import { shapeAt } from '../../lowering/cel-kyverno/schema-path.js';
import { cannot, isRefusal, notYet, type Refusal } from '../generate-report.js';
import { celEnvOf, MPOL_ENV } from '../../lowering/cel-kyverno/env.js';
import { compileCelText, isTerm } from '../../lowering/cel-kyverno/compile.js';
import { jmesLiteral } from './emit-text.js';
import { clip, MAX_NAME, mutatorGroupName, slug, withSuffix } from '../naming.js';


/** Why a rewritten image may not come out as the source's: it is written into the patch text inside double quotes. */
const REWRITTEN_IMAGE_NOTE =
  'an image is rewritten through a quoted {{ }} hole in the JSON patch text: an image holding "{{" is substituted again by Kyverno, and one holding a double quote or a backslash breaks the text; either fails the rule, where Gatekeeper rewrites it';

/** Why a pruned list may not come out as the source's: Kyverno substitutes the written-back values again. */
const PRUNED_VALUES_NOTE =
  'a set prune writes the remaining values back through a {{ }} hole in the JSON patch text, which Kyverno scans for holes again: a value holding "{{" fails the rule where it names no variable, and is replaced where it names one';

/** Kyverno's report: `unsupported` is a construct not translated yet, unless its site says the target cannot. */
class Reporter extends GenerationReport {
  constructor(mode: NonNullable<GenerateOptions['unsupported']>) {
    super('Kyverno', DIALECT, mode);
  }

  unsupported(what: string, origin: Origin | undefined): void {
    this.notYet(what, origin);
  }

  /** Gatekeeper's fix-point in one sequential pass: Kyverno runs each rule once. */
  notReproduced(why: string, origin: Origin | undefined): void {
    this.cannot(`Gatekeeper's fix-point in one pass: ${why}`, origin);
  }
}

function isEmptyMatch(m: MatchSpec): boolean {
  return !m.any?.length && !m.all?.length && !m.exclude?.any?.length && !m.exclude?.all?.length;
}

/** `ns/name` with the match the parser gives a namespaced Policy. */
function namespacedPolicy(p: Policy): { namespace: string; name: string } | undefined {
  const slash = p.id.indexOf('/');
  if (slash < 0 || p.match.globs !== 'wildcard' || p.match.all || p.match.exclude || p.match.any?.length !== 1) return undefined;
  const c = p.match.any[0]!;
  const namespace = p.id.slice(0, slash);
  if (c.scope !== 'Namespaced' || c.namespaces?.length !== 1 || c.namespaces[0] !== namespace || Object.keys(c).length !== 2) return undefined;
  return { namespace, name: p.id.slice(slash + 1) };
}

/**
 * Policy guards: dropped where Kyverno needs none, else carried to every rule as preconditions (MAP
 * matchConditions raised to structured guards, or compiled from CEL, emit-map.ts). Returns false when the
 * policy never applies, undefined when a guard cannot be stated. `fails` is where a MAP policy's
 * matchConditions fail: kube-apiserver skips the invocation when a condition is false, else fails it when
 * one fails (matchconditions/matcher.go).
 */
function policyGuards(p: Policy, report: Reporter, scope?: MapScope): { carried: Guard[]; fails: Cond } | false | undefined {
  const carried: Guard[] = [];
  let anyFalse: Cond = FALSE;
  let anyFails: Cond = FALSE;
  for (const g of p.guards) {
    if (g.kind === 'const') {
      if (!g.value) return false;
      continue;
    }
    if (g.kind === 'eq' && g.path.root === 'request' && g.path.segments.length === 1 && g.path.segments[0]!.kind === 'field' && g.path.segments[0]!.name === 'source') {
      if (g.value.kind === 'literal' && g.value.json === 'Original') {
        report.push('TM4003', `Kyverno sees only admission requests, which Gatekeeper treats as source Original; objects Gatekeeper generates by expansion are not mutated`, g.origin, 'warning');
        continue;
      }
      report.cannot('a match on generated (expansion) objects: Kyverno sees only admission requests', g.origin);
      return undefined;
    }
    if (scope && holdsCel(g)) {
      const c = compileGuardTree(g, scope);
      if (isRefusal(c)) {
        report.refuse(c, g.origin);
        return undefined;
      }
      carried.push(...c.holds.filter((x) => x.kind !== 'const'));
      anyFails = or(anyFails, c.fails);
      anyFalse = or(anyFalse, and(not(c.fails), ...c.negated.map((x) => guardCond(x, scope) ?? FALSE)));
      continue;
    }
    const entry = guardPreconditions([g]);
    if (typeof entry === 'string') {
      report.unsupported(g.kind === 'cel' ? `the CEL condition ${g.expr.text.trim()}` : `a policy-wide condition (${entry})`, g.origin);
      return undefined;
    }
    if (scope) anyFalse = or(anyFalse, not(guardCond(g, scope) ?? FALSE));
    carried.push(g);
  }
  if (anyFalse.k === 'const' && anyFalse.v) return false;
  return { carried, fails: and(not(anyFalse), anyFails) };
}

interface RuleMatch {
  match: JsonObject;
  exclude?: JsonObject;
  /** Precondition entries the match needs (MAP resourceNames: the request's name). */
  extra: JsonObject[];
}

function ruleMatch(p: Policy, rule: Rule, policyMatch: boolean, report: Reporter): RuleMatch | undefined {
  const specs: MatchSpec[] = [];
  const extra: JsonObject[] = [];
  if (policyMatch && !isEmptyMatch(p.match)) {
    const split = celEnvOf(p.origin.dialect) ? nameExclusions(p.match) : { spec: p.match, names: [] };
    specs.push(split.spec);
    for (const names of split.names) extra.push({ key: `{{ !contains(${jmesLiteral(names)}, request.name || '') }}`, operator: 'Equals', value: true });
  }
  if (rule.match && !isEmptyMatch(rule.match)) specs.push(rule.match);
  const m = emitMatch(specs);
  if (typeof m === 'string') {
    // Kyverno's patterns have no escape: a literal `*` or `?` of the source cannot be written.
    const impossible = m.includes('(a wildcard in Kyverno, a literal character here)');
    report.refuse(impossible ? cannot(m) : notYet(m), rule.match?.origin ?? p.match.origin ?? p.origin);
    return undefined;
  }
  for (const note of m.lossy) report.push('TM4003', `match ${note}`, p.match.origin ?? p.origin, 'warning');
  // Kubernetes matches resourceNames on the request's name, empty for a CREATE relying on generateName.
  if (m.needsName) extra.unshift({ key: "{{ (request.name || '') != '' }}", operator: 'Equals', value: true });
  return { match: m.match, ...(m.exclude ? { exclude: m.exclude } : {}), extra };
}

/** `outer` (a list of values, `*` for any) holds every value of `inner`. */
function covers(outer: readonly string[] | undefined, inner: readonly string[] | undefined): boolean {
  if (outer === undefined || outer.length === 0 || outer.includes('*')) return true;
  if (inner === undefined || inner.length === 0 || inner.includes('*')) return false;
  return inner.every((x) => outer.includes(x));
}

/**
 * A MAP match whose exclusions by resourceNames cover every resource the match admits: each such exclusion
 * is "the request's name is one of these" (Kubernetes compares the request's name, which Kyverno's exclude
 * would not: it reads generateName for an empty name), written as a precondition instead.
 */
function nameExclusions(spec: MatchSpec): { spec: MatchSpec; names: string[][] } {
  const ex = spec.exclude?.any;
  if (!ex?.length || spec.exclude?.all?.length) return { spec, names: [] };
  const admitted = (spec.all ?? []).filter((c) => c.resources?.length);
  const names: string[][] = [];
  const kept = ex.filter((c) => {
    const rules = c.resources ?? [];
    const list = rules[0]?.resourceNames;
    if (!list?.length || Object.keys(c).length !== 1 || rules.some((r) => JSON.stringify(r.resourceNames) !== JSON.stringify(list) || (r.scope && r.scope !== '*'))) return true;
    // Every resource rule of some clause of the match falls under one of the exclusion's rules.
    const whole = admitted.some((a) =>
      a.resources!.every((m) => rules.some((r) => covers(r.groups, m.groups) && covers(r.versions, m.versions) && covers(r.resources, m.resources) && covers(r.operations, m.operations))),
    );
    if (!whole) return true;
    names.push([...list]);
    return false;
  });
  if (names.length === 0) return { spec, names };
  const out: MatchSpec = { ...spec };
  if (kept.length) out.exclude = { any: kept };
  else delete out.exclude;
  return { spec: out, names };
}

/** A body op with the conditions of the `when` blocks around it. */
interface GuardedOp {
  op: Op;
  guards: Guard[];
  /** The conjunction of the `when` conditions around the op (MAP policies: cel-kyverno conditions). */
  chain: Cond;
  /** Where a condition on the way fails (a MAP ApplyConfiguration's `c ? A : B` whose `c` fails). */
  fails: Cond;
  /** What the compiled conditions on the way read. */
  reads: Read[];
}

/** Guards of an `else` branch and the guards of the `then` branch that must keep holding before it. */
type Partners = Map<Guard, Guard[]>;

/**
 * Flattens `when` blocks into the conditions of the ops they hold. Without a MAP scope a `when` with `else`
 * is returned (not written); with one, CEL conditions are compiled and `else` branches carry the negation,
 * with the `then` guards as partners (guard stability: the else branch must not start to hold because the
 * then branch wrote).
 */
function flattenWhens(ops: readonly Op[], guards: Guard[], scope?: MapScope, partners?: Partners, chain: Cond = TRUE, fails: Cond = FALSE, reads: Read[] = []): GuardedOp[] | Op | { refusal: Refusal; origin: Origin } {
  const out: GuardedOp[] = [];
  for (const op of ops) {
    if (op.kind !== 'when') {
      out.push({ op, guards, chain, fails, reads });
      continue;
    }
    if (!scope) {
      if (op.else?.length) return op;
      const inner = flattenWhens(op.then, [...guards, op.guard]);
      if (!Array.isArray(inner)) return inner;
      out.push(...inner);
      continue;
    }
    const compiled = whenCondition(op.guard, scope);
    if (isRefusal(compiled)) return { refusal: compiled, origin: op.guard.origin };
    const innerFails = or(fails, and(chain, compiled.fails));
    const innerReads = [...reads, ...compiled.reads];
    const thenChain = and(chain, ...compiled.holds.map((g) => guardCond(g, scope) ?? FALSE));
    const then = flattenWhens(op.then, [...guards, ...compiled.holds], scope, partners, thenChain, innerFails, innerReads);
    if (!Array.isArray(then)) return then;
    out.push(...then);
    if (op.else?.length) {
      for (const g of compiled.negated) partners?.set(g, compiled.holds);
      const elseChain = and(chain, ...compiled.negated.map((g) => guardCond(g, scope) ?? FALSE));
      const otherwise = flattenWhens(op.else, [...guards, ...compiled.negated], scope, partners, elseChain, innerFails, innerReads);
      if (!Array.isArray(otherwise)) return otherwise;
      out.push(...otherwise);
    }
  }
  return out;
}

/** The condition of a `when` in a MAP policy: compiled from CEL, or a structured guard as it is. */
function whenCondition(g: Guard, scope: MapScope): { holds: Guard[]; negated: Guard[]; fails: Cond; reads: Read[] } | Refusal {
  if (g.kind === 'cel') return compileCondition(g.expr.text, g.origin, scope);
  if (g.kind === 'not' && g.arg.kind === 'cel') {
    const c = compileCondition(g.arg.expr.text, g.arg.origin, scope);
    return isRefusal(c) ? c : { holds: c.negated, negated: c.holds, fails: c.fails, reads: c.reads };
  }
  const negation: Guard = g.kind === 'not' ? g.arg : g.kind === 'exists' ? { kind: 'notExists', path: g.path, origin: g.origin } : g.kind === 'notExists' ? { kind: 'exists', path: g.path, origin: g.origin } : { kind: 'not', arg: g, origin: g.origin };
  return { holds: [g], negated: [negation], fails: FALSE, reads: [] };
}

/** Conditions put in front of a generated rule's own preconditions. */
function withConditions(pre: JsonObject | undefined, extra: { all: JsonObject[]; any: JsonObject[] }): JsonObject | undefined {
  const all = [...extra.all, ...((pre?.all as JsonValue[] | undefined) ?? [])];
  if (all.length === 0 && extra.any.length === 0) return pre;
  const out: JsonObject = {};
  if (extra.any.length) out.any = extra.any;
  if (all.length) out.all = all;
  return out;
}

/** An extra `{{ cond }} Equals true` entry (nothing for `true`). */
function condEntries(c: Cond): { all: JsonObject[]; any: JsonObject[] } {
  if (c.k === 'const' && c.v) return { all: [], any: [] };
  return { all: [{ key: `{{ ${render(c)} }}`, operator: 'Equals', value: true }], any: [] };
}

/** The object fields a write reaches before its first list segment. */
function writeFields(path: Write['path']): string[] {
  const out: string[] = [];
  for (const s of path.segments) {
    if (s.kind !== 'field') break;
    out.push(s.name);
  }
  return out;
}

/** Whether a guard still holds after the writes: compiled guards by what they read, others as guard-stability.ts decides. */
function stableAfter(g: Guard, writes: readonly Write[], scope: MapScope | undefined): boolean {
  const c = scope?.compiled.get(g);
  if (!c) return holdsAfter(g, writes);
  return writes.every((w) => w.path.root !== 'object' || !c.reads.some((r) => overlaps(r, writeFields(w.path))));
}

/**
 * A MAP policy whose objectSelectors (in the conjunction of its match) become guards (emit-map.ts
 * objectSelectorGuard): Kyverno's `selector` reads the new object only, kube-apiserver the new or the old one.
 */
function objectSelectors(p: Policy, scope: MapScope): { policy: Policy; guards: Guard[] } {
  const all = p.match.all ?? [];
  const guards: Guard[] = [];
  const stripped = all.map((c) => {
    const sel = c.labelSelector;
    if (!sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && !sel.matchExpressions?.length)) return c;
    guards.push(objectSelectorGuard(sel, scope, p.match.origin ?? p.origin));
    const { labelSelector: _s, ...rest } = c;
    return rest;
  });
  if (guards.length === 0) return { policy: p, guards };
  return { policy: { ...p, match: { ...p.match, all: stripped } }, guards };
}

/** The engine and invocation failing: `kube-apiserver (policy P, binding B)` for a MAP invocation's id `P/B[/param]`, `Kyverno (MutatingPolicy P)`. */
function mapInvocation(p: Policy): string {
  if (p.origin.dialect === 'kyverno-mpol') {
    const colon = p.id.indexOf(':');
    return colon < 0 ? `Kyverno (MutatingPolicy ${p.id})` : `Kyverno (NamespacedMutatingPolicy ${p.id.slice(colon + 1)} in ${p.id.slice(0, colon)})`;
  }
  const [policy, binding, ...param] = p.id.split('/');
  return `kube-apiserver (policy ${policy}, binding ${binding}${param.length ? `, param ${param.join('/')}` : ''})`;
}

/** What one IR rule of a CEL policy is: one MAP mutation, or every mutation of a MutatingPolicy. */
function unitOf(p: Policy): string {
  return p.origin.dialect === 'kyverno-mpol' ? 'MutatingPolicy' : 'MAP mutation';
}

/** Why reading an earlier write of the same unit is refused. */
function beforeIt(p: Policy): string {
  return p.origin.dialect === 'kyverno-mpol' ? '' : ' (kube-apiserver computes the mutation on the object before it)';
}

/** Whether a MutatingPolicy's guards hold its PolicyExceptions (kyverno-mpol/lower.ts: a `not` at the policy's own position). */
function exemptedByExceptions(p: Policy): boolean {
  return p.origin.dialect === 'kyverno-mpol' && p.guards.some((g) => g.kind === 'not' && g.origin.line === p.origin.line && g.origin.col === p.origin.col);
}

/** What fails, for the failing rule's message: `mutation N` of a MAP, the mutations of a MutatingPolicy. */
function failingPart(rule: Rule): string {
  const m = /^mutations\[(\d+)\]$/.exec(rule.name);
  return m ? `mutation ${Number(m[1]) + 1}` : 'its mutations';
}

/** A rule of a MAP policy that fails where `fails` holds (after the policy's carried guards), or undefined when refused. */
function failRule(p: Policy, name: string, policyMatch: boolean, report: Reporter, carried: readonly Guard[], fails: Cond, scope: MapScope, why: string): JsonObject | undefined {
  const dummy: Rule = { name, guards: [], body: [], origin: p.origin };
  const m = ruleMatch(p, dummy, policyMatch, report);
  if (!m) return undefined;
  const conditions = guardPreconditions(carried, scope.compiled as CompiledGuards);
  if (typeof conditions === 'string') {
    report.unsupported(conditions, p.origin);
    return undefined;
  }
  const out: JsonObject = { name, match: m.match, ...(m.exclude ? { exclude: m.exclude } : {}) };
  const pre = withConditions(withConditions(undefined, condEntries(fails)), { all: [...m.extra, ...conditions.all], any: conditions.any });
  if (pre) out.preconditions = pre;
  out.mutate = failingMutate(why);
  return out;
}

/** One branch of a JSONPatch expression `c ? A : B`: its text and the conditions it runs under. */
interface PatchBranch {
  text: string;
  guards: Guard[];
  chain: Cond;
  /** Where a condition on the way fails. */
  fails: Cond;
  reads: Read[];
}

/**
 * The branches of a JSONPatch expression: `c ? A : B` (nested too) is A where c holds and B where it does
 * not (with c's failure); anything else is one branch. The else branch's conditions are partners of the then
 * branch's (its rule comes after and must not start to hold because the then branch wrote).
 */
function jsonPatchBranches(text: string, origin: Origin, scope: MapScope, partners: Partners): PatchBranch[] | Refusal {
  const parsed = parseCel(text);
  if (!parsed.ok) return notYet('an expression that does not parse');
  const e = parsed.value;
  if (e.kind !== 'call' || e.fn !== '_?_:_' || e.target !== undefined || e.args.length !== 3) return [{ text, guards: [], chain: TRUE, fails: FALSE, reads: [] }];
  const c = compileCondition(exprText(text, e.args[0]!), origin, scope);
  if (isRefusal(c)) return c;
  const holds = and(...c.holds.map((x) => guardCond(x, scope) ?? FALSE));
  const negated = and(...c.negated.map((x) => guardCond(x, scope) ?? FALSE));
  // Exclusive both ways: whichever branch's rules come first, the other's must not start to hold after them.
  for (const x of c.negated) partners.set(x, c.holds);
  for (const x of c.holds) partners.set(x, c.negated);
  const out: PatchBranch[] = [];
  for (const [arg, guards, cond] of [
    [e.args[1]!, c.holds, holds],
    [e.args[2]!, c.negated, negated],
  ] as const) {
    const inner = jsonPatchBranches(exprText(text, arg), origin, scope, partners);
    if (isRefusal(inner)) return inner;
    for (const b of inner) out.push({ text: b.text, guards: [...guards, ...b.guards], chain: and(cond, b.chain), fails: or(c.fails, and(cond, b.fails)), reads: [...c.reads, ...b.reads] });
  }
  return out;
}

/** A part of a MAP mutation's failure: where, what it reads, the planned item whose op it belongs to. */
interface Failure {
  cond: Cond;
  reads: Read[];
  item?: number;
  /** The item's own preconditions already exclude it. */
  covered: boolean;
}

/** What one op of a MAP mutation becomes before the rules are written. */
interface Planned {
  g: GuardedOp;
  /** The op's position among the rule's ops (rule names are numbered by it). */
  index: number;
  /** Kyverno rules of the op, before the mutation's own failure condition is added (Ignore). */
  emitted: { suffix: string; preconditions?: JsonObject; mutate: JsonObject }[];
  writes: Write[];
  own?: Write;
}

/**
 * The Kyverno rules of one IR rule. `carried` are the policy's guards, which the source engine decides once
 * before all rules (as it decides a `when` once before its block); Kyverno decides a precondition again
 * before each rule, so `written` collects, per guard, what the rules carrying it wrote (guard-stability.ts).
 *
 * A rule of a MAP policy is one mutation, which kube-apiserver applies whole or not at all: where it fails
 * (a condition, a value or a patch step fails, emit-map.ts), the mutation's rules are preceded by a rule
 * that fails then (failurePolicy Fail), or carry the negation (Ignore). Values and conditions of the mutation
 * are computed on the object before it, so nothing its rules read may be written by an earlier rule of it.
 */
function emitRule(p: Policy, rule: Rule, base: string, policyMatch: boolean, report: Reporter, carried: readonly Guard[], written: Map<Guard, Write[]>, scope?: MapScope, reverseBranches = false): JsonObject[] {
  const m = ruleMatch(p, rule, policyMatch, report);
  if (!m) return [];
  const head = (name: string): JsonObject => ({ name, match: m.match, ...(m.exclude ? { exclude: m.exclude } : {}) });

  const ruleConditions = rule.guards.map(conditionsOf);
  if (!scope && m.extra.length === 0 && carried.length === 0 && rule.guards.length <= 1 && ruleConditions.every((c) => c !== undefined)) {
    const native = nativeBody(rule.body, ruleConditions[0]);
    if (typeof native === 'string') {
      report.unsupported(native, rule.origin);
      return [];
    }
    if (native) {
      const out = head(base);
      if (native.context) out.context = native.context;
      if (native.preconditions !== undefined) out.preconditions = native.preconditions as JsonValue;
      out.mutate = native.mutate;
      return [out];
    }
  }
  const partners: Partners = new Map();
  const flat = flattenWhens(rule.body, [...carried, ...rule.guards], scope, partners);
  if (!Array.isArray(flat)) {
    if ('refusal' in flat) report.refuse(flat.refusal, flat.origin);
    else report.unsupported('a conditional with an else branch', flat.origin);
    return [];
  }
  const ops = scope ? flat.filter((o) => !(o.op.kind === 'let' && o.op.lazy)) : flat;
  const compiled = scope?.compiled as CompiledGuards | undefined;
  // MAP: where the mutation fails (each part with what it reads and the item it belongs to), what its rules
  // read, what they wrote so far.
  const failures: Failure[] = [];
  const mutationReads: Read[] = [];
  const mutationWrites: string[][] = [];
  // The writes of the ops before the current one. Every failure is stated on the object before the rule's
  // first write (the failing rule comes first; under Ignore every rule skips where another part fails): a
  // failure that reads what an earlier op writes (a later mutation of a MutatingPolicy, computed on the
  // object the earlier ones leave) is not stated.
  let opStart = 0;
  let failureAfterWrite: Origin | undefined;
  const fail = (cond: Cond, reads: readonly Read[], item?: number, covered = false): void => {
    if (cond.k === 'const' && !cond.v) return;
    if (reads.some((r) => mutationWrites.slice(0, opStart).some((w) => overlaps(r, w)))) failureAfterWrite ??= currentOrigin;
    failures.push({ cond, reads: [...reads], ...(item !== undefined ? { item } : {}), covered });
  };
  let currentOrigin: Origin = rule.origin;
  // The failure of the `when` conditions around the current op, given to the op's first rule.
  let pendingWhen: { failure: Failure; at: number } | undefined;
  const attachWhen = (): void => {
    if (pendingWhen && pendingWhen.at === planned.length) {
      pendingWhen.failure.item = planned.length;
      pendingWhen.failure.covered = true;
    }
    pendingWhen = undefined;
  };
  const readsWritten = (reads: readonly Read[]): boolean => reads.some((r) => mutationWrites.some((w) => overlaps(r, w)));
  const planned: Planned[] = [];
  for (const g of ops) {
    const { op, guards } = g;
    if (guards.some((x) => x.kind === 'const' && !x.value)) continue;
    opStart = mutationWrites.length;
    currentOrigin = op.origin;
    if (scope) {
      // A `when` condition that fails: the conditions of the op's rules exclude it (a part of every other
      // rule's failure); when the op has no rule, it belongs to none.
      fail(g.fails, g.reads);
      const whenFailure = failures[failures.length - 1];
      if (whenFailure && whenFailure.cond === g.fails) pendingWhen = { failure: whenFailure, at: planned.length };
      mutationReads.push(...g.reads);
      if (readsWritten(g.reads)) {
        report.unsupported(`a condition on what an earlier part of the same ${unitOf(p)} writes${beforeIt(p)}`, op.origin);
        return [];
      }
    }
    // A MAP mutation kube-apiserver rejects on every object it reaches: it fails wherever its conditions hold.
    if (scope && op.kind === 'merge' && op.strategy === 'ssa' && op.value.kind === 'cel') {
      const why = applyConfigurationAlwaysFails(op.value.expr.text, op.origin, scope.kinds, scope.cel);
      if (why === undefined) {
        report.unsupported(`the apply configuration ${op.value.expr.text.trim()} (${applyConfigurationReason(op.value.expr.text, op.origin, scope.kinds)})`, op.origin);
        return [];
      }
      fail(g.chain, g.reads);
      continue;
    }
    if (scope && op.kind === 'jsonPatch' && op.profile === 'evanphx-v4' && op.steps.length === 0 && op.stepsFrom?.kind === 'cel') {
      const text = op.stepsFrom.expr.text;
      const branches = jsonPatchBranches(text, op.origin, scope, partners);
      if (isRefusal(branches)) {
        report.refuse({ ...branches, why: `the JSON patch computed by ${text.trim()}: ${branches.why}` }, op.origin);
        return [];
      }
      for (const b of reverseBranches ? [...branches].reverse() : branches) {
        const chain = and(g.chain, b.chain);
        fail(and(g.chain, b.fails), b.reads, planned.length, true);
        mutationReads.push(...b.reads);
        if (readsWritten(b.reads)) {
          report.unsupported(`a condition on what an earlier part of the same ${unitOf(p)} writes${beforeIt(p)}`, op.origin);
          return [];
        }
        const steps = mapJsonPatchSteps(b.text, op.origin, scope.env);
        if ('alwaysFails' in steps) {
          fail(chain, [...g.reads, ...b.reads]);
          continue;
        }
        if (isRefusal(steps)) {
          report.refuse({ ...steps, why: `the JSON patch computed by ${text.trim()}: ${steps.why}` }, op.origin);
          return [];
        }
        for (const s of steps.steps) if (s.value?.kind === 'computed') {
          mutationReads.push(...s.value.term.reads);
          scope.reads.push(...s.value.term.reads);
          if (readsWritten(s.value.term.reads)) {
            report.unsupported(`a value computed from what an earlier part of the same ${unitOf(p)} writes`, op.origin);
            return [];
          }
        }
        const plan = planMapJsonPatch(steps.steps, scope.kinds ?? [], scope.env.facts);
        if (isRefusal(plan)) {
          report.refuse({ ...plan, why: `the JSON patch computed by ${text.trim()}: ${plan.why}` }, op.origin);
          return [];
        }
        // The plan's own precondition (ok) excludes where it fails.
        fail(and(chain, plan.fails), [...g.reads, ...b.reads, ...plan.reads], planned.length, true);
        if (plan.undeclared) {
          // kube-apiserver's strict decode fails every successful application, whatever the failure policy.
          if (scope.failurePolicy === 'ignore') {
            report.cannot(`a JSON patch whose result ${scope.cel.engine} rejects (fields the kind does not declare) under failurePolicy Ignore: Kyverno would ignore the failure`, op.origin);
            return [];
          }
          fail(and(chain, plan.ok), [...g.reads, ...b.reads, ...plan.reads]);
          continue;
        }
        // An empty patch (`c ? [...] : []`) changes nothing: no rule.
        if (plan.steps.length === 0) continue;
        const pre = condEntries(plan.ok);
        const writes = plan.writes.map((t): Write => ({ path: { root: 'object', segments: t.map((name) => ({ kind: 'field' as const, name })) } }));
        for (const t of plan.writes) mutationWrites.push(t);
        scope.writes.push(...plan.writes);
        const branchOp: GuardedOp = { ...g, guards: [...g.guards, ...b.guards], chain };
        attachWhen();
        planned.push({ g: branchOp, index: ops.indexOf(g), emitted: [{ suffix: branches.length > 1 ? `-${branches.indexOf(b) + 1}` : '', ...(pre.all.length ? { preconditions: { all: pre.all } } : {}), mutate: { patchesJson6902: jsonPatchText(plan.steps) } }], writes });
      }
      // The `when` failure of an op without rules belongs to no rule.
      if (pendingWhen?.at === planned.length) pendingWhen = undefined;
      continue;
    }
    if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') {
      const what =
        op.kind === 'merge' && op.value.kind === 'cel'
          ? `the ${op.strategy === 'ssa' ? 'apply configuration' : 'merge'} ${op.value.expr.text.trim()}`
          : op.kind === 'jsonPatch' && op.stepsFrom?.kind === 'cel'
            ? `the JSON patch computed by ${op.stepsFrom.expr.text.trim()}`
            : `an op of kind ${op.kind} in this position`;
      report.unsupported(what, op.origin);
      if (scope) return [];
      continue;
    }
    let computed: ComputedValue | undefined;
    if (scope && op.kind === 'set' && op.value.kind === 'cel' && closedFailure(op.value.expr.text, op.origin, scope.cel) !== undefined) {
      // A value that reads nothing from the request and fails: the mutation fails wherever it runs.
      fail(g.chain, g.reads);
      continue;
    }
    if (scope && op.kind === 'set' && op.value.kind === 'cel') {
      const t = compileValue(op.value.expr.text, scope);
      if (isRefusal(t)) {
        report.refuse(t, op.origin);
        return [];
      }
      const fields = writeFields(op.path);
      const shape = fields.length === op.path.segments.length ? shapeAt(scope.kinds ?? [], fields) : undefined;
      if (shape === undefined || shape !== t.ty) {
        report.unsupported(`the value ${op.value.expr.text.trim()}, whose type is not known to be the field's`, op.origin);
        return [];
      }
      if (t.ty === 'string' && !t.plain) {
        report.unsupported(`the string value ${op.value.expr.text.trim()}, which may need escaping in the patch`, op.origin);
        return [];
      }
      if (readsWritten(t.reads)) {
        report.unsupported(`a value computed from what an earlier part of the same ${unitOf(p)} writes${beforeIt(p)}`, op.origin);
        return [];
      }
      mutationReads.push(...t.reads);
      // Not excluded by the op's own conditions: its rule must skip where the value fails (Ignore).
      fail(and(g.chain, t.err), [...g.reads, ...t.reads], planned.length, false);
      computed = () => ({ kind: 'computed', expr: t.j, string: t.ty === 'string' });
    }
    const emitted = emitPathOp(op, computed);
    if (typeof emitted === 'string') {
      report.unsupported(emitted, op.origin);
      if (scope) return [];
      continue;
    }
    // The pruned list is written back through a `{{ }}` hole in the patch text, which Kyverno scans again after
    // substituting: a remaining value that holds `{{ ... }}` is substituted in turn (mutate/patch: the text is
    // substituted, then parsed).
    if (op.kind === 'setMembers' && op.mode === 'prune') report.push('TM4003', PRUNED_VALUES_NOTE, op.origin, 'warning');
    if (op.kind === 'image') report.push('TM4003', REWRITTEN_IMAGE_NOTE, op.origin, 'warning');
    const own = writeOf(op);
    if (own && scope) {
      mutationWrites.push(writeFields(own.path));
      scope.writes.push(writeFields(own.path));
    }
    attachWhen();
    planned.push({ g, index: ops.indexOf(g), emitted, writes: own ? [own] : [], ...(own ? { own } : {}) });
  }

  if (failureAfterWrite) {
    report.unsupported(`a failure of a ${unitOf(p)} that depends on what an earlier part of it writes (Kyverno states it before the first write)`, failureAfterWrite);
    return [];
  }
  const mutationFails = or(...failures.map((f) => f.cond));
  if (scope && mutationFails.k === 'const' && mutationFails.v && scope.failurePolicy === 'ignore') return [];
  // MAP, failurePolicy Ignore: where the mutation fails, kube-apiserver applies none of it. Each rule skips
  // where another part fails, unless that part only fails where the rule does not run (its own conditions, or
  // the other branch of its conditional); Kyverno evaluates those conditions after the earlier rules wrote,
  // so they must read nothing those rules (that ran with it) wrote.
  const skipWhere: Cond[] = planned.map(() => FALSE);
  if (scope && scope.failurePolicy === 'ignore') {
    const exclusiveItems = (a: number, b: number): boolean => {
      const ga = planned[a]!.g.guards;
      const gb = planned[b]!.g.guards;
      const excl = (x: readonly Guard[], y: readonly Guard[]): boolean => x.some((n) => (partners.get(n) ?? []).some((h) => y.includes(h)));
      return excl(ga, gb) || excl(gb, ga);
    };
    for (let k = 0; k < planned.length; k++) {
      const relevant = failures.filter((f) => (f.item === k ? !f.covered : f.item === undefined || !exclusiveItems(f.item, k)));
      skipWhere[k] = or(...relevant.map((f) => f.cond));
      const earlierWrites = planned.slice(0, k).filter((_, j) => !exclusiveItems(j, k)).flatMap((x) => x.writes.map((w) => writeFields(w.path)));
      const cross = relevant.filter((f) => f.item !== k).flatMap((f) => f.reads);
      if (cross.some((r) => earlierWrites.some((w) => overlaps(r, w)))) {
        report.unsupported(`a ${unitOf(p)} whose failure depends on what it writes, under failurePolicy Ignore`, rule.origin);
        return [];
      }
    }
  }

  const rules: JsonObject[] = [];
  if (scope && scope.failurePolicy === 'fail' && !(mutationFails.k === 'const' && !mutationFails.v)) {
    const unstable = carried.find((c) => !stableAfter(c, written.get(c) ?? [], scope));
    if (unstable) {
      report.unsupported('a condition that an earlier write of the same policy may change (Kyverno tests it again before each rule)', unstable.origin);
      return [];
    }
    const failing = failRule(p, withSuffix(base, '-fail'), policyMatch, report, carried, mutationFails, scope, `${mapInvocation(p)} fails ${failingPart(rule)}`);
    if (!failing) return [];
    rules.push(failing);
    if (mutationFails.k === 'const' && mutationFails.v) return rules;
  }
  let lastSimple: JsonObject | undefined;
  let lastGuards: readonly Guard[] = [];
  // The guards each write of this rule was made under.
  const writtenUnder = new Map<Write, readonly Guard[]>();
  for (const item of planned) {
    const { g, emitted, own, index } = item;
    const { op, guards } = g;
    const conditions = guardPreconditions(guards, compiled);
    if (typeof conditions === 'string') {
      report.unsupported(conditions, guards.find((x) => typeof guardPreconditions([x], compiled) === 'string')?.origin ?? op.origin);
      if (scope) return [];
      continue;
    }
    conditions.all.push(...condEntries(not(skipWhere[planned.indexOf(item)]!)).all);
    // An else branch whose condition stays false after the then branch wrote (its partners stay true) does
    // not run after it: the then branch's writes cannot change its other conditions' outcome.
    const exclusive = new Set(guards.flatMap((x) => partners.get(x) ?? []));
    const partnersHold = [...exclusive].every((h) => stableAfter(h, written.get(h) ?? [], scope));
    const unstable = guards.find((x) => {
      let writes = [...(written.get(x) ?? []), ...(emitted.length > 1 && own ? [own] : [])];
      if (partnersHold) writes = writes.filter((w) => !(writtenUnder.get(w) ?? []).some((h) => exclusive.has(h)));
      if (!stableAfter(x, writes, scope)) return true;
      return !partnersHold && exclusive.size > 0;
    });
    if (unstable) {
      report.unsupported('a condition that an earlier write of the same policy may change (Kyverno tests it again before each rule)', unstable.origin);
      if (scope) return [];
      continue;
    }
    for (const w of item.writes) {
      writtenUnder.set(w, guards);
      for (const x of guards) written.set(x, [...(written.get(x) ?? []), w]);
    }
    if (emitted.length === 0) report.push('TM4003', `${p.id} can never write (MustNotExist on a glob is never satisfied); no rule emitted`, op.origin, 'warning');
    // Unconditional patches of consecutive ops under the same conditions share one rule, as a user writes them.
    const single = emitted.length === 1 && !emitted[0]!.preconditions && typeof emitted[0]!.mutate.patchesJson6902 === 'string' && Object.keys(emitted[0]!.mutate).length === 1;
    const last = rules[rules.length - 1];
    if (single && last && lastSimple === last && sameGuards(lastGuards, guards)) {
      (last.mutate as JsonObject).patchesJson6902 = `${String((last.mutate as JsonObject).patchesJson6902)}${String(emitted[0]!.mutate.patchesJson6902)}`;
      continue;
    }
    const opBase = ops.length > 1 ? `${base}-${index + 1}` : base;
    for (const e of emitted) {
      const out = head(single && mergeable(ops, index) ? base : withSuffix(opBase, e.suffix));
      const pre = withConditions(e.preconditions, { all: [...m.extra, ...conditions.all], any: conditions.any });
      if (pre) out.preconditions = pre;
      out.mutate = { ...e.mutate };
      rules.push(out);
      lastSimple = single ? out : undefined;
      lastGuards = guards;
    }
  }
  return rules;
}

/**
 * emitRule, and where it refuses a rule whose JSONPatch branches (`c ? A : B`) Kyverno would test again after
 * an earlier branch wrote, emitRule with the branches in the other order: the rules of `c ? [add /x] : (!has(x.y)
 * ? [add /x/y] : [])` written else-branches first leave each earlier branch's condition as it was (a write
 * below a presence test keeps it), so no later branch starts to hold. The first attempt's diagnostics stay
 * when the second refuses too.
 */
function emitRuleInSomeOrder(p: Policy, rule: Rule, base: string, policyMatch: boolean, report: Reporter, carried: readonly Guard[], written: Map<Guard, Write[]>, scope?: MapScope): JsonObject[] {
  const mark = { diagnostics: report.diagnostics.length, refusals: report.refusals, written: new Map(written), reads: scope?.reads.length ?? 0, writes: scope?.writes.length ?? 0 };
  const restore = (): void => {
    report.diagnostics.length = mark.diagnostics;
    report.refusals = mark.refusals;
    written.clear();
    for (const [k, v] of mark.written) written.set(k, v);
    if (scope) {
      scope.reads.length = mark.reads;
      scope.writes.length = mark.writes;
    }
  };
  const first = emitRule(p, rule, base, policyMatch, report, carried, written, scope);
  const branching = rule.body.some((op) => op.kind === 'jsonPatch' && op.stepsFrom?.kind === 'cel' && /\?/.test(op.stepsFrom.expr.text));
  if (!scope || report.refusals === mark.refusals || !branching) return first;
  const firstReport = { diagnostics: report.diagnostics.slice(mark.diagnostics), refusals: report.refusals };
  restore();
  const second = emitRule(p, rule, base, policyMatch, report, carried, written, scope, true);
  if (report.refusals === mark.refusals) return second;
  restore();
  report.diagnostics.push(...firstReport.diagnostics);
  report.refusals = firstReport.refusals;
  return first;
}

function sameGuards(a: readonly Guard[], b: readonly Guard[]): boolean {
  return a.length === b.length && a.every((g, i) => g === b[i]);
}

/** Whether the ops from `index` on are all plain sets under the same conditions (they become one rule). */
function mergeable(ops: readonly GuardedOp[], index: number): boolean {
  const first = ops[index]!;
  return ops.slice(index).every((o) => o.op.kind === 'set' && o.op.path.segments.every((s) => s.kind === 'field') && sameGuards(o.guards, first.guards)) && ops.length > 1 && index === 0;
}

/** Whether Kyverno's autogen could add controller rules for this rule (it matches Pods). */
function matchesPods(rule: JsonObject): boolean {
  return JSON.stringify(rule.match ?? null).match(/"(?:[^"]*\/)?Pod"/) !== null;
}

function policyDocument(name: string, rules: JsonObject[], p: Policy | undefined, namespace?: string): JsonObject {
  const spec: JsonObject = {};
  if (p?.semantics.failurePolicy === 'ignore') spec.failurePolicy = 'Ignore';
  if (p?.semantics.applyRules === 'one') spec.applyRules = 'One';
  // What transmute writes mutates at admission only (mutate-existing rules become MutatingPolicies), and
  // background mode changes nothing for such rules; but in background mode Kyverno's webhook refuses the
  // wildcard kind and user variables (validate.go validateWildcard, background.go containsUserVariables).
  spec.background = false;
  spec.rules = rules;
  // A source that named no namespace (Semantics.namespace) gives a Policy that names none either.
  const metadata: JsonObject = namespace === undefined || p?.semantics.namespace === 'implied' ? { name } : { name, namespace };
  // Every rule the IR runs is written out (autogen rules included), so Kyverno must not add controller rules.
  if (rules.some(matchesPods)) metadata.annotations = { [AUTOGEN_ANNOTATION]: 'none' };
  return { apiVersion: 'kyverno.io/v1', kind: namespace === undefined ? 'ClusterPolicy' : 'Policy', metadata, spec };
}

/** The Kyverno name of an IR policy: a MAP invocation `policy/binding` keeps its policy's name when unique. */
function policyName(p: Policy, unique: (name: string) => boolean): string {
  if (p.origin.dialect === 'map') {
    const own = clip(slug(p.id.split('/')[0]!));
    if (unique(own)) return own;
  }
  return clip(slug(p.id));
}

/** Claims a policy name, numbered when taken (two ids can share their first 63 characters). */
function claimName(name: string, taken: Set<string>): string {
  let out = name;
  for (let n = 2; taken.has(out); n++) out = withSuffix(name, `-${n}`);
  taken.add(out);
  return out;
}

/** What one sequential IR policy becomes: its rules, where they go, and what they read and write. */
interface Emitted {
  /** The policy name (and namespace, for a namespaced Policy). */
  name: string;
  namespace?: string;
  rules: JsonObject[];
  policy: Policy;
  scope?: MapScope;
}

/** The namespace of a NamespacedMutatingPolicy, and its IR policy without the namespace clause its reader adds (kyverno-mpol/lower.ts). */
function mpolNamespaced(p: Policy): { namespace: string; name: string; policy: Policy } | undefined {
  if (p.origin.dialect !== 'kyverno-mpol') return undefined;
  const colon = p.id.indexOf(':');
  if (colon < 0) return undefined;
  const namespace = p.id.slice(0, colon);
  const all = p.match.all ?? [];
  // A Kyverno Policy applies to the namespaced resources of its namespace only: the clause says that.
  const i = all.findIndex((c) => c.scope === 'Namespaced' && c.namespaces?.length === 1 && c.namespaces[0] === namespace && Object.keys(c).length === 2);
  if (i < 0) return undefined;
  return { namespace, name: p.id.slice(colon + 1), policy: { ...p, match: { ...p.match, all: all.filter((_, j) => j !== i) } } };
}

/** The autogen configuration of a MutatingPolicy's variant (`defaults`, `cronjobs`; kyverno-mpol/parse.ts lowerMpol), or undefined. */
function autogenConfig(p: Policy): string | undefined {
  if (p.origin.dialect !== 'kyverno-mpol' || p.rules.length !== 1) return undefined;
  return /^mutations \(autogen ([a-z]+)\)$/.exec(p.rules[0]!.name)?.[1];
}

/**
 * The Kyverno rules of one sequential IR policy. `variantOf` is the name of the ClusterPolicy an autogen
 * variant of a MutatingPolicy joins (its rules are named as Kyverno names the controller rules it generates).
 */
function sequentialPolicy(pIn: Policy, report: Reporter, unique: (name: string) => boolean, taken: Set<string>, variantOf?: string): Emitted | undefined {
  let p = pIn;
  if (p.semantics.order === 'ordered' && p.semantics.reinvocation === 'ifNeeded') {
    report.push('TM4002', `${p.id} is reinvoked when a later policy changes the object; Kyverno runs each rule once`, p.origin, 'warning');
  }
  const nmpol = mpolNamespaced(p);
  if (nmpol) p = nmpol.policy;
  const scope = celScope(p);
  let selectors: Guard[] = [];
  if (scope) ({ policy: p, guards: selectors } = objectSelectors(p, scope));
  const guards = policyGuards(p, report, scope);
  if (guards === undefined) return undefined;
  const ns = nmpol ?? namespacedPolicy(p);
  // A namespaced Kyverno Policy holds its rules' match; a NamespacedMutatingPolicy's rules carry the policy's.
  const policyMatch = nmpol !== undefined || !ns;
  const name = variantOf ?? (ns ? clip(slug(ns.name)) : claimName(policyName(p, unique), taken));
  const config = autogenConfig(p);
  const ruleBase = config === undefined ? name : withSuffix(`autogen-${config === 'cronjobs' ? 'cronjob-' : ''}${name}`, '');
  const emitted = (rules: JsonObject[]): Emitted => ({ name, ...(ns ? { namespace: ns.namespace } : {}), rules, policy: p, ...(scope ? { scope } : {}) });
  if (guards === false) return emitted([]);
  const carried = [...selectors, ...guards.carried];
  const rules: JsonObject[] = [];
  const seen = new Set<string>();
  const written = new Map<Guard, Write[]>();
  if (scope && !(guards.fails.k === 'const' && !guards.fails.v)) {
    // matchConditions that fail (and none is false): the engine fails the invocation before any mutation.
    const always = guards.fails.k === 'const';
    if (scope.failurePolicy === 'fail') {
      const failing = failRule(p, withSuffix(ruleBase, '-conditions-fail'), policyMatch, report, selectors, guards.fails, scope, `${mapInvocation(p)} fails its matchConditions${exemptedByExceptions(p) ? ' or a PolicyException' : ''}`);
      if (!failing) return undefined;
      rules.push(failing);
    }
    if (always) return emitted(rules);
  }
  const fromCel = celEnvOf(p.origin.dialect) !== undefined;
  p.rules.forEach((rule, i) => {
    // A MAP mutation (a MutatingPolicy's mutations) has no name of its own: the rules take the policy's, numbered when there are several.
    let base = fromCel ? (p.rules.length > 1 ? withSuffix(ruleBase, `-${i + 1}`) : ruleBase) : rule.name !== '' ? clip(rule.name) : `rule-${rules.length + 1}`;
    if (seen.has(base)) base = withSuffix(base, `-${rules.length + 1}`);
    seen.add(base);
    rules.push(...emitRuleInSomeOrder(p, rule, base, policyMatch, report, carried, written, scope));
  });
  return emitted(rules);
}

/** Gatekeeper mutators (fix-point policies, in Gatekeeper's order) as one ClusterPolicy. */
function fixpointPolicy(group: readonly Policy[], report: Reporter): JsonObject {
  for (const problem of checkFixpoint(group)) report.notReproduced(problem.message, problem.origin);
  const rules: JsonObject[] = [];
  const seen = new Set<string>();
  for (const p of group) {
    const applies = policyGuards(p, report);
    if (applies === false) {
      report.push('TM4003', `${p.id} never applies (disabled); no rule emitted`, p.origin, 'warning');
      continue;
    }
    if (applies === undefined) continue;
    if (applies.carried.length > 0) {
      report.unsupported('a condition on a Gatekeeper mutator', applies.carried[0]!.origin);
      continue;
    }
    let base = clip(slug(p.id, 'rule'), MAX_NAME - 4);
    while (seen.has(base)) base = `${base}-x`;
    seen.add(base);
    for (const rule of p.rules) rules.push(...emitRule(p, rule, p.rules.length > 1 ? clip(slug(`${base}-${rule.name}`)) : base, true, report, [], new Map()));
  }
  return policyDocument(mutatorGroupName(group.map((p) => p.id)), rules, undefined);
}

/**
 * A MAP invocation whose match can never hold: a scope next to resource rules that name only built-in
 * resources of the other scope (the binding variant for cluster-scoped requests of a namespaced paramRef
 * when the policy matches only namespaced resources). It has nothing to translate.
 */
function neverMatches(p: Policy): boolean {
  if (p.origin.dialect !== 'map') return false;
  const clauses = p.match.all ?? [];
  const scope = clauses.find((c) => c.scope === 'Cluster' || c.scope === 'Namespaced')?.scope;
  if (!scope) return false;
  return clauses.some((c) =>
    (c.resources?.length ?? 0) > 0 &&
    c.resources!.every((r) =>
      r.resources.every((res) => {
        const main = res.split('/')[0]!;
        if (main.includes('*') || r.groups.some((g) => g === '*')) return false;
        return r.groups.every((g) => {
          const info = lookupResource(g, main);
          return info !== undefined && info.namespaced === (scope === 'Cluster');
        });
      }),
    ),
  );
}

export function generateKyverno(policiesIn: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new Reporter(opts.unsupported ?? 'error');
  const policies = policiesIn.filter((p) => !neverMatches(p));
  const documents: JsonObject[] = [];
  const annotated = opts.mutationAnnotations ? policies.find((p) => p.semantics.order === 'fixpoint') : undefined;
  // Expressible with {{ request.uid }} and the mutators' change conditions, as the MutatingPolicy target does.
  if (annotated) report.notYet(`Gatekeeper's --mutation-annotations (a mutation id per request and the mutators applied) in a ClusterPolicy`, annotated.origin);
  const fixpoint = policies.filter((p) => p.semantics.order === 'fixpoint');
  const mapNames = policies.filter((p) => p.origin.dialect === 'map').map((p) => slug(p.id.split('/')[0]!));
  const unique = (name: string): boolean => mapNames.filter((n) => n === name).length === 1;
  const taken = new Set<string>();
  let fixpointDone = false;
  // The ClusterPolicy (or Policy) of each MutatingPolicy, which its autogen variants join.
  const mpolDocs = new Map<string, JsonObject>();
  // What the policies emitted so far write (undefined: not known), for reads of a MutatingPolicy's request.object.
  const earlier: { policy: Policy; writes: string[][] | undefined }[] = [];
  policies.forEach((p, i) => {
    const let0 = p.lets?.[0];
    if (let0 && p.origin.dialect === 'kyverno-mpol') {
      // A MutatingPolicy's variables are inlined where they are read (cel-kyverno/inline.ts); one left is read
      // where it cannot be (by has(), as a whole, or in an expression that does not parse). Where the variable
      // itself cannot be compiled, that is the reason to give.
      const own = let0.value.kind === 'cel' ? compileCelText(let0.value.expr.text, { cel: MPOL_ENV }) : undefined;
      if (own && !isTerm(own)) report.refuse({ ...own, why: `the MutatingPolicy variable ${let0.name}: ${own.why}` }, let0.origin);
      else report.unsupported(`the MutatingPolicy variable ${let0.name} where it is not inlined (read by has() or as a whole)`, let0.origin);
      return;
    }
    if (let0) {
      // A MAP invocation's param object: Kyverno has no parameter resources for mutate rules. The cel-kyverno
      // lowering writes a literal param object into the CEL; the translation then no longer follows it.
      if (let0.name !== PARAMS_VAR || p.lets!.length > 1 || let0.value.kind !== 'literal' || readsParams(p)) {
        report.unsupported(`the policy-level binding ${let0.name} (a MAP parameter object)`, let0.origin);
        return;
      }
      const param = let0.value.json;
      const meta = param !== null && typeof param === 'object' && !Array.isArray(param) ? (param.metadata as JsonObject | undefined) : undefined;
      const named = meta && typeof meta.name === 'string' ? ` ${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${meta.name}` : '';
      report.push('TM4003', `the param object${named} of ${p.id} is written into the policy as it is now: Kyverno has no parameter resources, so later changes to it are not seen`, let0.origin, 'warning');
    }
    // kube-apiserver runs an IfNeeded MAP invocation again when a later one changed the object (map.md §3.5);
    // Kyverno runs each rule once. Within this set, that happens whenever a later policy mutates.
    // The autogen variants of a MutatingPolicy match other kinds than it: they never run on its requests.
    const sibling = (q: Policy): boolean => q.origin.dialect === 'kyverno-mpol' && p.origin.dialect === 'kyverno-mpol' && q.id === p.id && q.origin.file === p.origin.file;
    if (p.semantics.order === 'ordered' && p.semantics.reinvocation === 'ifNeeded' && policies.slice(i + 1).some((q) => q.rules.length > 0 && !sibling(q))) {
      report.cannot(`the reinvocation of ${p.id} (reinvocationPolicy IfNeeded) after the later policies of this set change the object: Kyverno runs each rule once`, p.origin);
      return;
    }
    if (p.semantics.order === 'fixpoint') {
      if (fixpointDone) return;
      fixpointDone = true;
      const last = policies.lastIndexOf(fixpoint[fixpoint.length - 1]!);
      if (policies.slice(i, last).some((q) => q.semantics.order !== 'fixpoint')) {
        report.push('TM4002', 'sequential policies between Gatekeeper mutators run after all of them in Kyverno', p.origin, 'warning');
      }
      documents.push(fixpointPolicy(fixpoint, report));
      for (const q of fixpoint) earlier.push({ policy: q, writes: undefined });
      return;
    }
    const mpolKey = p.origin.dialect === 'kyverno-mpol' ? `${p.origin.file}\0${p.id}` : undefined;
    const config = autogenConfig(p);
    const joins = config !== undefined && mpolKey !== undefined ? mpolDocs.get(mpolKey) : undefined;
    const out = sequentialPolicy(p, report, unique, taken, joins ? String((joins.metadata as JsonObject).name) : undefined);
    if (!out) return;
    // A MutatingPolicy's request.object is the object the admission request brought (kyverno-mpol/cel-engine.ts),
    // Kyverno's the object as the rules before left it: no earlier policy may have written what it reads.
    const admissionReads = (out.scope?.reads ?? []).filter((r) => r.admission === true && r.root === 'object');
    const clash = admissionReads.length === 0 ? undefined : earlier.find((e) => !sibling(e.policy) && (e.writes === undefined || admissionReads.some((r) => e.writes!.some((w) => overlaps(r, w)))));
    if (clash) {
      report.unsupported(`request.object of ${p.id} (the object the admission request brought) after ${clash.policy.id}, which ${clash.writes === undefined ? 'may write' : 'writes'} what it reads: Kyverno's request.object is the object as the policies before left it`, p.origin);
      return;
    }
    earlier.push({ policy: p, writes: out.scope ? out.scope.writes : out.rules.length === 0 ? [] : undefined });
    if (joins) {
      (joins.spec as JsonObject).rules = [...((joins.spec as JsonObject).rules as JsonObject[]), ...out.rules];
      return;
    }
    const doc = policyDocument(out.name, out.rules, out.policy, out.namespace);
    // The first document of a MutatingPolicy (its own, or a variant's when its own was refused) takes the others.
    if (mpolKey !== undefined && !mpolDocs.has(mpolKey)) mpolDocs.set(mpolKey, doc);
    documents.push(doc);
  });
  // A MutatingPolicy's autogen variants (and a MAP mutation's failing rule) say the same thing at the same place once.
  const seenDiagnostics = new Set<string>();
  const distinct = report.diagnostics.filter((d) => {
    const key = JSON.stringify([d.code, d.severity, d.message, d.span]);
    if (seenDiagnostics.has(key)) return false;
    seenDiagnostics.add(key);
    return true;
  });
  const refusals = (ds: readonly { code: string }[]): number => ds.filter((d) => d.code === 'TM4001').length;
  report.refusals -= refusals(report.diagnostics) - refusals(distinct);
  report.diagnostics.splice(0, report.diagnostics.length, ...distinct);
  report.finish(documents.length, policies.length, policies[0]?.origin);
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: report.diagnostics };
}
