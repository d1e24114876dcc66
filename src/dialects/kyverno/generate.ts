/**
 * IR back to Kyverno (kyverno.io/v1 ClusterPolicy / Policy).
 *
 * - Sequential policies (read from Kyverno, or any IR) become one policy each; rules in the parser's shapes
 *   are written back as the constructs they came from (emit-foreach.ts), path ops as Gatekeeper's walk would
 *   apply them (emit-path-op.ts).
 * - Fix-point policies (Gatekeeper mutators) become ONE ClusterPolicy whose rules follow Gatekeeper's order,
 *   after lower-fixpoint.ts has proven that one pass in that order reaches Gatekeeper's fix-point; where it
 *   cannot, the mutator is reported unsupported (TM4001) at its position.
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
import { guardPreconditions } from './emit-guard.js';
import { holdsAfter, writeOf, type Write } from './guard-stability.js';
import { emitMatch } from './emit-match.js';
import { emitPathOp } from './emit-path-op.js';
import { checkFixpoint } from './lower-fixpoint.js';
import { DIALECT } from './reader.js';

const MAX_NAME = 63;
/** The name of the one ClusterPolicy a set of Gatekeeper mutators becomes. */
export const FIXPOINT_POLICY_NAME = 'gatekeeper-mutators';

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

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/-{2,}/g, '-') || 'rule'
  );
}

function ruleName(base: string, suffix: string): string {
  return `${base.slice(0, MAX_NAME - suffix.length).replace(/-+$/, '')}${suffix}`;
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
 * matchConditions raised to structured guards). Returns false when the policy never applies, undefined when
 * a guard cannot be stated.
 */
function policyGuards(p: Policy, report: Reporter): Guard[] | false | undefined {
  const carried: Guard[] = [];
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
    const entry = guardPreconditions([g]);
    if (typeof entry === 'string') {
      report.unsupported(g.kind === 'cel' ? `the CEL condition ${g.expr.text.trim()}` : `a policy-wide condition (${entry})`, g.origin);
      return undefined;
    }
    carried.push(g);
  }
  return carried;
}

function ruleMatch(p: Policy, rule: Rule, policyMatch: boolean, report: Reporter): { match: JsonObject; exclude?: JsonObject } | undefined {
  const specs: MatchSpec[] = [];
  if (policyMatch && !isEmptyMatch(p.match)) specs.push(p.match);
  if (rule.match && !isEmptyMatch(rule.match)) specs.push(rule.match);
  const m = emitMatch(specs);
  if (typeof m === 'string') {
    report.unsupported(m, rule.match?.origin ?? p.match.origin ?? p.origin);
    return undefined;
  }
  for (const note of m.lossy) report.push('TM4003', `match ${note}`, p.match.origin ?? p.origin, 'warning');
  return m.exclude ? { match: m.match, exclude: m.exclude } : { match: m.match };
}

/** A body op with the conditions of the `when` blocks around it. */
interface GuardedOp {
  op: Op;
  guards: Guard[];
}

/** Flattens `when` blocks without `else` into the conditions of the ops they hold; a `when` with `else` is returned. */
function flattenWhens(ops: readonly Op[], guards: Guard[]): GuardedOp[] | Op {
  const out: GuardedOp[] = [];
  for (const op of ops) {
    if (op.kind === 'when') {
      if (op.else?.length) return op;
      const inner = flattenWhens(op.then, [...guards, op.guard]);
      if (!Array.isArray(inner)) return inner;
      out.push(...inner);
    } else out.push({ op, guards });
  }
  return out;
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

/**
 * The Kyverno rules of one IR rule. `carried` are the policy's guards, which the source engine decides once
 * before all rules (as it decides a `when` once before its block); Kyverno decides a precondition again
 * before each rule, so `written` collects, per guard, what the rules carrying it wrote (guard-stability.ts).
 */
function emitRule(p: Policy, rule: Rule, base: string, policyMatch: boolean, report: Reporter, carried: readonly Guard[], written: Map<Guard, Write[]>): JsonObject[] {
  const m = ruleMatch(p, rule, policyMatch, report);
  if (!m) return [];
  const head = (name: string): JsonObject => ({ name, match: m.match, ...(m.exclude ? { exclude: m.exclude } : {}) });

  const ruleConditions = rule.guards.map(conditionsOf);
  if (carried.length === 0 && rule.guards.length <= 1 && ruleConditions.every((c) => c !== undefined)) {
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
  const ops = flattenWhens(rule.body, [...carried, ...rule.guards]);
  if (!Array.isArray(ops)) {
    report.unsupported('a conditional with an else branch', ops.origin);
    return [];
  }
  const rules: JsonObject[] = [];
  let lastSimple: JsonObject | undefined;
  let lastGuards: readonly Guard[] = [];
  ops.forEach(({ op, guards }, index) => {
    if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') {
      const what =
        op.kind === 'merge' && op.value.kind === 'cel'
          ? `the ${op.strategy === 'ssa' ? 'apply configuration' : 'merge'} ${op.value.expr.text.trim()}`
          : op.kind === 'jsonPatch' && op.stepsFrom?.kind === 'cel'
            ? `the JSON patch computed by ${op.stepsFrom.expr.text.trim()}`
            : `an op of kind ${op.kind} in this position`;
      report.unsupported(what, op.origin);
      return;
    }
    const conditions = guardPreconditions(guards);
    if (typeof conditions === 'string') {
      report.unsupported(conditions, guards.find((g) => typeof guardPreconditions([g]) === 'string')?.origin ?? op.origin);
      return;
    }
    const emitted = emitPathOp(op);
    if (typeof emitted === 'string') {
      report.unsupported(emitted, op.origin);
      return;
    }
    const own = writeOf(op);
    const unstable = guards.find((g) => !holdsAfter(g, [...(written.get(g) ?? []), ...(emitted.length > 1 && own ? [own] : [])]));
    if (unstable) {
      report.unsupported('a condition that an earlier write of the same policy may change (Kyverno tests it again before each rule)', unstable.origin);
      return;
    }
    if (own) for (const g of guards) written.set(g, [...(written.get(g) ?? []), own]);
    if (emitted.length === 0) report.push('TM4003', `${p.id} can never write (MustNotExist on a glob is never satisfied); no rule emitted`, op.origin, 'warning');
    // Unconditional patches of consecutive ops under the same conditions share one rule, as a user writes them.
    const single = emitted.length === 1 && !emitted[0]!.preconditions && typeof emitted[0]!.mutate.patchesJson6902 === 'string' && Object.keys(emitted[0]!.mutate).length === 1;
    const last = rules[rules.length - 1];
    if (single && last && lastSimple === last && sameGuards(lastGuards, guards)) {
      (last.mutate as JsonObject).patchesJson6902 = `${String((last.mutate as JsonObject).patchesJson6902)}${String(emitted[0]!.mutate.patchesJson6902)}`;
      return;
    }
    const opBase = ops.length > 1 ? `${base}-${index + 1}` : base;
    for (const e of emitted) {
      const out = head(single && mergeable(ops, index) ? base : ruleName(opBase, e.suffix));
      const pre = withConditions(e.preconditions, conditions);
      if (pre) out.preconditions = pre;
      out.mutate = { ...e.mutate };
      rules.push(out);
      lastSimple = single ? out : undefined;
      lastGuards = guards;
    }
  });
  return rules;
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
  spec.rules = rules;
  const metadata: JsonObject = namespace === undefined ? { name } : { name, namespace };
  // Every rule the IR runs is written out (autogen rules included), so Kyverno must not add controller rules.
  if (rules.some(matchesPods)) metadata.annotations = { [AUTOGEN_ANNOTATION]: 'none' };
  return { apiVersion: 'kyverno.io/v1', kind: namespace === undefined ? 'ClusterPolicy' : 'Policy', metadata, spec };
}

/** The Kyverno name of an IR policy: a MAP invocation `policy/binding` keeps its policy's name when unique. */
function policyName(p: Policy, unique: (name: string) => boolean): string {
  if (p.origin.dialect === 'map') {
    const own = slug(p.id.split('/')[0]!).slice(0, MAX_NAME);
    if (unique(own)) return own;
  }
  return slug(p.id).slice(0, MAX_NAME);
}

function sequentialPolicy(p: Policy, report: Reporter, unique: (name: string) => boolean): JsonObject | undefined {
  if (p.semantics.order === 'ordered' && p.semantics.reinvocation === 'ifNeeded') {
    report.push('TM4002', `${p.id} is reinvoked when a later policy changes the object; Kyverno runs each rule once`, p.origin, 'warning');
  }
  const carried = policyGuards(p, report);
  if (carried === undefined) return undefined;
  const ns = namespacedPolicy(p);
  const name = ns ? slug(ns.name).slice(0, MAX_NAME) : policyName(p, unique);
  if (carried === false) return policyDocument(name, [], p, ns?.namespace);
  const rules: JsonObject[] = [];
  const seen = new Set<string>();
  const written = new Map<Guard, Write[]>();
  p.rules.forEach((rule, i) => {
    // A MAP mutation has no name of its own: the rules take the policy's, numbered when there are several.
    let base = p.origin.dialect === 'map' ? (p.rules.length > 1 ? ruleName(name, `-${i + 1}`) : name) : rule.name !== '' ? rule.name.slice(0, MAX_NAME) : `rule-${rules.length + 1}`;
    if (seen.has(base)) base = ruleName(base, `-${rules.length + 1}`);
    seen.add(base);
    rules.push(...emitRule(p, rule, base, !ns, report, carried, written));
  });
  return policyDocument(name, rules, p, ns?.namespace);
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
    if (applies.length > 0) {
      report.unsupported('a condition on a Gatekeeper mutator', applies[0]!.origin);
      continue;
    }
    let base = slug(p.id).slice(0, MAX_NAME - 4);
    while (seen.has(base)) base = `${base}-x`;
    seen.add(base);
    for (const rule of p.rules) rules.push(...emitRule(p, rule, p.rules.length > 1 ? slug(`${base}-${rule.name}`) : base, true, report, [], new Map()));
  }
  return policyDocument(FIXPOINT_POLICY_NAME, rules, undefined);
}

export function generateKyverno(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new Reporter(opts.unsupported ?? 'error');
  const documents: JsonObject[] = [];
  const fixpoint = policies.filter((p) => p.semantics.order === 'fixpoint');
  const mapNames = policies.filter((p) => p.origin.dialect === 'map').map((p) => slug(p.id.split('/')[0]!));
  const unique = (name: string): boolean => mapNames.filter((n) => n === name).length === 1;
  let fixpointDone = false;
  policies.forEach((p, i) => {
    const let0 = p.lets?.[0];
    if (let0) {
      // A MAP invocation's param object: Kyverno has no parameter resources for mutate rules.
      report.unsupported(`the policy-level binding ${let0.name} (a MAP parameter object)`, let0.origin);
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
      return;
    }
    const doc = sequentialPolicy(p, report, unique);
    if (doc) documents.push(doc);
  });
  report.finish(documents.length, policies[0]?.origin);
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: report.diagnostics };
}
