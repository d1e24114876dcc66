/**
 * IR to MutatingAdmissionPolicy + MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1).
 *
 * - One MAP per IR policy; its rules' ops become ordered `mutations`. Gatekeeper mutators (fix-point
 *   policies) sharing one match become one MAP after lower-fixpoint.ts's `checkFixpoint` proved that one
 *   ordered pass reaches Gatekeeper's fix-point; a lone mutator is its own MAP (same proof on one policy).
 * - Path ops are JSONPatch expressions (emit-jsonpatch.ts): `has()` branches for missing parents, escaped keys.
 * - Policy guards become `matchConditions`; rule and `when` guards become CEL conditionals in the mutation.
 * - A policy read from MAP is written back as it was (its CEL passes through).
 * What MAP cannot state exactly is TM4001 at the IR node's origin; known differences are TM4002/TM4003.
 */
import { compile } from '../../cel/index.js';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { Origin } from '../../diagnostics/span.js';
import { PARAMS_VAR } from '../../engines/cel.js';
import { jsonEqual, type JsonObject } from '../../ir/json.js';
import type { Guard, MatchClause, MatchSpec, Op, Policy, Rule } from '../../ir/nodes.js';
import type { GvkPattern } from '../../ir/match.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { checkFixpoint } from '../kyverno/lower-fixpoint.js';
import { sourceOfGuard } from '../gatekeeper/emit-match.js';
import { celString, conditional } from './emit-cel.js';
import { jsonPatchOf } from './emit-jsonpatch.js';
import { emitMatch, type EmittedMatch } from './emit-match.js';
import { groupMatch } from './group-match.js';
import { applyConfigurationsOf, type ApplyConfiguration } from './emit-apply.js';
import { mergeLeaves } from './emit-merge.js';
import { forEachOps } from './emit-foreach.js';
import { schemaProblem } from './emit-schema.js';
import { emitGuard } from './emit-value.js';
import { DIALECT } from './lower.js';

const API_VERSION = 'admissionregistration.k8s.io/v1';
const MAX_NAME = 63;

class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  constructor(private readonly mode: NonNullable<GenerateOptions['unsupported']>) {}

  unsupported(what: string, origin: Origin | undefined): void {
    if (this.mode === 'ignore') return;
    this.push('TM4001', `MutatingAdmissionPolicy cannot express ${what}; not emitted`, origin, this.mode === 'warn' ? 'warning' : undefined);
  }

  push(code: DiagnosticCode, message: string, origin: Origin | undefined, severity?: 'warning'): void {
    this.diagnostics.push(diagnostic(code, { phase: 'emit', dialect: DIALECT, message, span: origin, ...(severity ? { severity } : {}) }));
  }
}

interface Mutation {
  patchType: 'ApplyConfiguration' | 'JSONPatch';
  expression: string;
}

interface Body {
  variables: { name: string; expression: string }[];
  mutations: Mutation[];
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .replace(/-{2,}/g, '-')
      .slice(0, MAX_NAME)
      .replace(/[-.]+$/, '') || 'policy'
  );
}

/** `when` blocks without `else` as guards on their ops. */
function flatten(ops: readonly Op[], guards: readonly Guard[]): { op: Op; guards: Guard[] }[] {
  return ops.flatMap((op) => {
    if (op.kind !== 'when' || (op.else && op.else.length > 0)) return [{ op, guards: [...guards] }];
    return flatten(op.then, [...guards, op.guard]);
  });
}

function conditionOf(guards: readonly Guard[], report: Reporter): string | undefined | false {
  const parts: string[] = [];
  for (const g of guards) {
    if (g.kind === 'const' && g.value) continue;
    const e = emitGuard(g);
    if ('why' in e) {
      report.unsupported(e.why, g.origin);
      return false;
    }
    parts.push(e.cel);
  }
  if (parts.length === 1) return parts[0];
  return parts.length > 0 ? parts.map((x) => (/ \|\| | \? /.test(x) ? `(${x})` : x)).join(' && ') : undefined;
}

/** The mutations (and variables) of a policy's rules, in order. */
function bodyOf(p: Policy, report: Reporter, body: Body): boolean {
  for (const rule of p.rules) {
    if (rule.match) {
      report.unsupported(`a rule-level match (rule ${rule.name})`, rule.match.origin ?? rule.origin);
      return false;
    }
    for (const { op, guards } of flatten(rule.body, rule.guards)) {
      const cond = conditionOf(guards, report);
      if (cond === false) return false;
      if (op.kind === 'let') {
        if (op.name === PARAMS_VAR) {
          report.unsupported('a parameter object (paramKind) in a generated policy', op.origin);
          return false;
        }
        if (op.value.kind !== 'cel' || cond) {
          report.unsupported(`a variable bound to a ${op.value.kind} value`, op.origin);
          return false;
        }
        const v = { name: op.name, expression: op.value.expr.text };
        const seen = body.variables.find((x) => x.name === v.name);
        if (seen && seen.expression !== v.expression) {
          report.unsupported(`two variables named ${v.name}`, op.origin);
          return false;
        }
        if (!seen) body.variables.push(v);
        continue;
      }
      // A MAP mutation read back: its expression is the mutation.
      if (op.kind === 'merge' && op.strategy === 'ssa' && op.value.kind === 'cel' && op.path.segments.length === 0 && !cond) {
        body.mutations.push({ patchType: 'ApplyConfiguration', expression: op.value.expr.text });
        continue;
      }
      if (op.kind === 'jsonPatch' && op.profile === 'evanphx-v4' && op.steps.length === 0 && op.stepsFrom?.kind === 'cel' && !cond) {
        body.mutations.push({ patchType: 'JSONPatch', expression: op.stepsFrom.expr.text });
        continue;
      }
      const kinds = ruleKinds.get(rule) ?? p.match;
      const expanded = op.kind === 'merge' && op.strategy !== 'ssa' ? mergeLeaves(op, kinds) : { ops: op.kind === 'forEach' ? forEachOps(op) : [op], guards: [] };
      const leaves = typeof expanded === 'string' ? expanded : expanded.ops;
      if (typeof leaves === 'string') {
        report.unsupported(leaves, op.origin);
        return false;
      }
      const all = typeof expanded === 'string' ? [] : expanded.guards;
      const when = [cond, ...all].filter((x): x is string => !!x).map((x) => (all.length > 0 && / \|\| | \? /.test(x) ? `(${x})` : x)).join(' && ') || undefined;
      for (const leaf of leaves) {
        const misfit = schemaProblem(leaf, kinds);
        if (misfit) {
          report.unsupported(`a write the API server rejects when it decodes the object (${misfit})`, leaf.origin);
          return false;
        }
      }
      // Runs of leaves SSA writes exactly become ApplyConfiguration; the others JSONPatch, in the same order.
      for (const run of runsOf(leaves, kinds)) {
        if (run.applied) {
          for (const ac of run.applied) {
            const test = [when, ac.condition].filter((x): x is string => !!x).map((x) => (when && ac.condition && / \|\| | \? /.test(x) ? `(${x})` : x)).join(' && ');
            body.mutations.push({ patchType: 'ApplyConfiguration', expression: test ? conditional(test, ac.object, 'Object{}') : ac.object });
          }
          continue;
        }
        const patch = jsonPatchOf(run.leaf);
        if (typeof patch !== 'string') {
          report.unsupported(patch.why, run.leaf.origin);
          return false;
        }
        body.mutations.push({ patchType: 'JSONPatch', expression: when ? conditional(when, patch, '[]') : patch });
      }
    }
  }
  return true;
}

type Run = { applied: ApplyConfiguration[] } | { applied?: undefined; leaf: Op };

/** Consecutive leaves with an exact ApplyConfiguration grouped; every other leaf alone (JSONPatch). */
function runsOf(leaves: readonly Op[], match: MatchSpec): Run[] {
  const out: Run[] = [];
  let pending: Op[] = [];
  const flush = (): void => {
    if (pending.length > 0) out.push({ applied: applyConfigurationsOf(pending, match)! });
    pending = [];
  };
  for (const leaf of leaves) {
    if (applyConfigurationsOf([leaf], match)) pending.push(leaf);
    else {
      flush();
      out.push({ leaf });
    }
  }
  flush();
  return out;
}

/** Policy guards: `request.source == Original` is all MAP sees; the rest become matchConditions. */
function policyConditions(p: Policy, report: Reporter): { name: string; expression: string }[] | undefined {
  const out: { name: string; expression: string }[] = [];
  for (const g of p.guards) {
    if (g.kind === 'const' && g.value) continue;
    const source = sourceOfGuard(g);
    if (source === 'Original') {
      report.push('TM4003', 'MAP sees only admission requests (Gatekeeper source Original); objects Gatekeeper generates by expansion are not mutated', g.origin, 'warning');
      continue;
    }
    if (source === 'Generated') {
      report.unsupported('a match on generated (expansion) objects', g.origin);
      return undefined;
    }
    const e = emitGuard(g);
    if ('why' in e) {
      report.unsupported(e.why, g.origin);
      return undefined;
    }
    out.push({ name: `condition-${out.length + 1}`, expression: e.cel });
  }
  return out;
}

function checkCel(name: string, body: Body, conditions: readonly { expression: string }[], origin: Origin, report: Reporter): boolean {
  const checks: [string, 'Object' | 'JSONPatchList' | 'bool' | 'any'][] = [
    ...body.mutations.map((m): [string, 'Object' | 'JSONPatchList'] => [m.expression, m.patchType === 'ApplyConfiguration' ? 'Object' : 'JSONPatchList']),
    ...conditions.map((c): [string, 'bool'] => [c.expression, 'bool']),
  ];
  for (const [text, expect] of checks) {
    const r = compile(text, { expect });
    if (!r.ok) {
      report.unsupported(`the generated CEL of ${name} (${r.diagnostics[0]?.message ?? 'does not compile'}): ${text}`, origin);
      return false;
    }
  }
  return true;
}

function documents(name: string, p: Policy, match: JsonObject, bindingMatch: JsonObject | undefined, conditions: { name: string; expression: string }[], body: Body): JsonObject[] {
  const spec: JsonObject = { matchConstraints: match };
  if (body.variables.length > 0) spec.variables = body.variables.map((v) => ({ ...v }));
  if (conditions.length > 0) spec.matchConditions = conditions.map((c) => ({ ...c }));
  spec.mutations = body.mutations.map((m): JsonObject =>
    m.patchType === 'ApplyConfiguration' ? { patchType: m.patchType, applyConfiguration: { expression: m.expression } } : { patchType: m.patchType, jsonPatch: { expression: m.expression } },
  );
  spec.failurePolicy = p.semantics.failurePolicy === 'ignore' ? 'Ignore' : 'Fail';
  spec.reinvocationPolicy = p.semantics.reinvocation === 'ifNeeded' ? 'IfNeeded' : 'Never';
  const binding = slug(`${name}-binding`);
  return [
    { apiVersion: API_VERSION, kind: 'MutatingAdmissionPolicy', metadata: { name }, spec },
    { apiVersion: API_VERSION, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: binding }, spec: bindingMatch ? { policyName: name, matchResources: bindingMatch } : { policyName: name } },
  ];
}

/** The MAP name: a policy read from MAP keeps its name (the id is `<policy>/<binding>[/param]`). */
function nameOf(p: Policy, used: Set<string>): string {
  const fromMap = p.origin.dialect === DIALECT ? p.id.split('/')[0]! : p.id;
  let name = slug(fromMap);
  for (let n = 2; used.has(name); n++) name = slug(`${fromMap}-${n}`);
  used.add(name);
  return name;
}

function isEmptyMatch(m: MatchSpec | undefined): boolean {
  return !m || (!m.any?.length && !m.all?.length && !m.exclude?.any?.length && !m.exclude?.all?.length);
}

/**
 * A MAP has one match: the policy's, or the rules' when they all share one (Kyverno writes match per rule),
 * held together with the policy's (a namespaced Kyverno Policy's namespace clause). Returns the policy with
 * that match hoisted, or why not.
 */
function hoistRuleMatch(p: Policy): Policy | string {
  const withMatch = p.rules.filter((r) => r.match);
  if (withMatch.length === 0) return p;
  if (withMatch.length !== p.rules.length) return `a rule-level match on some rules only (rule ${withMatch[0]!.name})`;
  const hoisted = hoistRules(p.rules);
  if (typeof hoisted === 'string') return hoisted;
  const match = isEmptyMatch(p.match) ? hoisted.match : bothMatches(p.match, hoisted.match);
  if (typeof match === 'string') return `${match} (rule ${withMatch[0]!.name} under the policy's match)`;
  return { ...p, match, rules: hoisted.rules };
}

/** `outer` and `inner` both holding, as one match spec, or why one spec cannot say it. */
function bothMatches(outer: MatchSpec, inner: MatchSpec): MatchSpec | string {
  if (outer.globs !== inner.globs) return 'a policy match and a rule match with different name patterns';
  const outerAny = outer.any ?? [];
  const innerAny = inner.any ?? [];
  if (outerAny.length > 1 && innerAny.length > 0) return 'alternatives in both the policy match and the rule match';
  if (outer.exclude?.all?.length || inner.exclude?.all?.length) return 'an exclusion that needs all of several clauses';
  const all = [...(outer.all ?? []), ...(outerAny.length === 1 ? outerAny : []), ...(inner.all ?? [])];
  const any = outerAny.length > 1 ? outerAny : innerAny;
  const exclude = [...(outer.exclude?.any ?? []), ...(inner.exclude?.any ?? [])];
  const origin = inner.origin ?? outer.origin;
  return {
    globs: inner.globs,
    ...(any.length > 0 ? { any } : {}),
    ...(all.length > 0 ? { all } : {}),
    ...(exclude.length > 0 ? { exclude: { any: exclude } } : {}),
    ...(origin ? { origin } : {}),
  };
}

/** The rules' one match: shared by all, or the union of their kinds with each rule testing its own in CEL. */
function hoistRules(rules: readonly Rule[]): { match: MatchSpec; rules: Rule[] } | string {
  const first = rules[0]!.match!;
  const strip = (r: Rule): Rule => {
    const { match: _m, ...rest } = r;
    return rest;
  };
  if (rules.every((r) => jsonEqual(stripOrigin(r.match!), stripOrigin(first)))) return { match: first, rules: rules.map(strip) };
  // Rules that differ only in kinds (Kyverno autogen): the union matches, each rule tests its kinds in CEL.
  const out: Rule[] = [];
  const any: MatchClause[] = [];
  const patterns = rules.flatMap((r) => [...(r.match!.any ?? []), ...(r.match!.all ?? [])].flatMap((c) => c.kinds ?? []));
  const operationSets = new Set(rules.flatMap((r) => (r.match!.any ?? []).map((c) => JSON.stringify(c.operations?.includes('*') ? null : (c.operations ?? null)))));
  for (const { match, ...r } of rules) {
    const test = kindTest(match!, patterns, operationSets.size > 1);
    if (!test || match!.globs !== first.globs) return `rules with different matches in one policy (rule ${r.name}): a MAP has one matchConstraints`;
    for (const c of match!.any!) if (!any.some((x) => jsonEqual(x as JsonObject, c as JsonObject))) any.push(c);
    const rule: Rule = { ...r, guards: [{ kind: 'cel', expr: { text: test, origin: match!.origin ?? r.origin }, origin: match!.origin ?? r.origin }, ...r.guards] };
    ruleKinds.set(rule, match!);
    out.push(rule);
  }
  return { match: { globs: first.globs, any, ...(first.origin ? { origin: first.origin } : {}) }, rules: out };
}

/** The match of a rule whose kinds test moved into CEL: its writes are checked against its own kinds. */
const ruleKinds = new WeakMap<Rule, MatchSpec>();

/**
 * `request.kind` tests for a match of alternative kinds only (same operations everywhere), or undefined.
 * `others` are the kind patterns of every rule of the policy: a kind name no other pattern claims is told
 * apart by its name alone (the hoisted matchConstraints admit it only in this rule's groups and versions).
 */
function kindTest(m: MatchSpec, others: readonly GvkPattern[], operationsDiffer: boolean): string | undefined {
  if (m.all?.length || m.exclude?.any?.length || m.exclude?.all?.length || !m.any?.length) return undefined;
  const full: string[] = [];
  const names: string[] = [];
  let byName = true;
  for (const c of m.any) {
    if (Object.keys(c).some((k) => k !== 'kinds' && k !== 'operations') || !c.kinds?.length) return undefined;
    for (const k of c.kinds) {
      const group = k.group === '*' ? undefined : k.group;
      const version = k.version === '*' ? undefined : k.version;
      if (k.subresource || /[*?]/.test(k.kind + (group ?? '') + (version ?? ''))) return undefined;
      const parts = [`request.kind.kind == ${celString(k.kind)}`];
      if (group !== undefined) parts.unshift(`request.kind.group == ${celString(group)}`);
      if (version !== undefined) parts.push(`request.kind.version == ${celString(version)}`);
      full.push(parts.join(' && '));
      if (others.every((o) => o.kind !== k.kind || jsonEqual(o as unknown as JsonObject, k as unknown as JsonObject))) names.push(k.kind);
      else byName = false;
    }
  }
  const ops = new Set(m.any.map((c) => JSON.stringify(c.operations ?? null)));
  if (ops.size > 1) return undefined;
  const uniqueNames = [...new Set(names)];
  const kinds = byName
    ? uniqueNames.length === 1
      ? `request.kind.kind == ${celString(uniqueNames[0]!)}`
      : `request.kind.kind in [${uniqueNames.map(celString).join(', ')}]`
    : full.length === 1
      ? full[0]!
      : full.map((t) => (t.includes('&&') ? `(${t})` : t)).join(' || ');
  const operations = m.any[0]!.operations;
  if (!operationsDiffer || !operations || operations.includes('*')) return kinds;
  const op = operations.length === 1 ? `request.operation == ${celString(operations[0]!)}` : `request.operation in [${operations.map(celString).join(', ')}]`;
  return `${kinds.includes(' || ') ? `(${kinds})` : kinds} && ${op}`;
}

function emitGroup(original: readonly Policy[], report: Reporter, used: Set<string>, shared?: EmittedMatch): JsonObject[] {
  const group: Policy[] = [];
  for (const p of original) {
    const h = hoistRuleMatch(p);
    if (typeof h === 'string') {
      report.unsupported(h, p.rules.find((r) => r.match)?.match?.origin ?? p.origin);
      return [];
    }
    group.push(h);
  }
  const head = group[0]!;
  const m = shared ?? emitMatch(head.match);
  if (typeof m === 'string') {
    report.unsupported(m, head.match.origin ?? head.origin);
    return [];
  }
  for (const note of m.notes) report.push('TM4003', `match: ${note}`, head.match.origin ?? head.origin, 'warning');
  const conditions = [...m.conditions];
  const body: Body = { variables: [], mutations: [] };
  for (const p of group) {
    const let0 = p.lets?.[0];
    if (let0) {
      report.unsupported(let0.name === PARAMS_VAR ? 'a parameter object (paramKind) in a generated policy' : `the policy-level binding ${let0.name}`, let0.origin);
      return [];
    }
    const c = policyConditions(p, report);
    if (!c) return [];
    if (group.length > 1 && c.length > 0) {
      report.unsupported(`the guards of ${p.id} inside a group of Gatekeeper mutators`, p.origin);
      return [];
    }
    conditions.push(...c);
    if (!bodyOf(p, report, body)) return [];
  }
  if (body.mutations.length === 0) {
    report.push('TM4003', `${head.id} writes nothing; no policy emitted`, head.origin, 'warning');
    return [];
  }
  const name = group.length > 1 ? nameOf({ ...head, id: 'gatekeeper-mutators' }, used) : nameOf(head, used);
  if (!checkCel(name, body, conditions, head.origin, report)) return [];
  return documents(name, head, m.matchConstraints, m.bindingMatch, conditions, body);
}

function disabled(p: Policy): boolean {
  return p.guards.some((g) => g.kind === 'const' && !g.value);
}

export function generateMap(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new Reporter(opts.unsupported ?? 'error');
  const used = new Set<string>();
  const docs: JsonObject[] = [];
  const live = policies.filter((p) => {
    if (!disabled(p)) return true;
    report.unsupported(`${p.id}, which never applies (disabled by its source dialect)`, p.origin);
    return false;
  });
  const fixpoint = live.filter((p) => p.semantics.order === 'fixpoint');
  let shared: EmittedMatch | undefined;
  if (fixpoint.length > 1) {
    const problems = checkFixpoint(fixpoint);
    for (const problem of problems) report.unsupported(`Gatekeeper's fix-point in one ordered pass: ${problem.message}`, problem.origin);
    if (problems.length > 0) return { documents: [], text: '', diagnostics: report.diagnostics };
    if (fixpoint.some((p) => !jsonEqual(stripOrigin(p.match), stripOrigin(fixpoint[0]!.match)))) {
      const g = groupMatch(fixpoint);
      if (typeof g === 'string') {
        report.unsupported(g, fixpoint[0]!.match.origin ?? fixpoint[0]!.origin);
        return { documents: [], text: '', diagnostics: report.diagnostics };
      }
      shared = g.shared;
      fixpoint.splice(0, fixpoint.length, ...g.policies);
    }
  } else if (fixpoint.length === 1) {
    for (const problem of checkFixpoint(fixpoint)) report.unsupported(problem.message, problem.origin);
  }
  let fixpointDone = false;
  for (const p of live) {
    // MutatingPolicy CEL runs in Kyverno's environment (a `request` carrying the object, Kyverno's libraries,
    // variables matchConditions can read): passed through as MAP CEL it could re-execute differently.
    if (p.origin.dialect === 'kyverno-mpol') {
      report.unsupported(`${p.id}: Kyverno MutatingPolicy CEL, which runs in Kyverno's CEL environment, as MAP CEL`, p.origin);
      continue;
    }
    if (p.semantics.applyRules === 'one' && p.rules.length > 1) report.unsupported(`applyRules: one in ${p.id} (stop after the first rule that changes the object)`, p.origin);
    if (p.semantics.order === 'fixpoint') {
      if (fixpointDone) continue;
      fixpointDone = true;
      docs.push(...emitGroup(fixpoint, report, used, shared));
      continue;
    }
    docs.push(...emitGroup([p], report, used));
  }
  return { documents: docs, text: docs.length > 0 ? toYamlDocuments(docs) : '', diagnostics: report.diagnostics };
}

function stripOrigin(m: Policy['match']): JsonObject {
  const { origin: _origin, ...rest } = m;
  return JSON.parse(JSON.stringify(rest)) as JsonObject;
}
