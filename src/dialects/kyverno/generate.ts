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
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { Origin } from '../../diagnostics/span.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { MatchSpec, Policy, Rule } from '../../ir/nodes.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { AUTOGEN_ANNOTATION } from './autogen.js';
import { conditionsOf, nativeBody } from './emit-foreach.js';
import { emitMatch } from './emit-match.js';
import { emitPathOp } from './emit-path-op.js';
import { checkFixpoint } from './lower-fixpoint.js';
import { DIALECT } from './reader.js';

const MAX_NAME = 63;
/** The name of the one ClusterPolicy a set of Gatekeeper mutators becomes. */
export const FIXPOINT_POLICY_NAME = 'gatekeeper-mutators';

class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  constructor(private readonly mode: NonNullable<GenerateOptions['unsupported']>) {}

  unsupported(what: string, origin: Origin | undefined): void {
    if (this.mode === 'ignore') return;
    this.push('TM4001', `Kyverno cannot express ${what}; not emitted`, origin, this.mode === 'warn' ? 'warning' : undefined);
  }

  /** The rules are still written (in Gatekeeper's order) for inspection, but their result may differ. */
  notReproduced(why: string, origin: Origin | undefined): void {
    if (this.mode === 'ignore') return;
    this.push('TM4001', `Kyverno cannot reproduce Gatekeeper's fix-point: ${why}`, origin, this.mode === 'warn' ? 'warning' : undefined);
  }

  push(code: DiagnosticCode, message: string, origin: Origin | undefined, severity?: 'warning'): void {
    this.diagnostics.push(diagnostic(code, { phase: 'emit', dialect: DIALECT, message, span: origin, ...(severity ? { severity } : {}) }));
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

/** Policy guards Kyverno can drop or state; returns false when the policy never applies. */
function policyGuards(p: Policy, report: Reporter): boolean | undefined {
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
      report.unsupported('a match on generated (expansion) objects', g.origin);
      return undefined;
    }
    report.unsupported(`a policy-wide guard of kind ${g.kind}`, g.origin);
    return undefined;
  }
  return true;
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

/** The Kyverno rules of one IR rule. */
function emitRule(p: Policy, rule: Rule, base: string, policyMatch: boolean, report: Reporter): JsonObject[] {
  const m = ruleMatch(p, rule, policyMatch, report);
  if (!m) return [];
  const head = (name: string): JsonObject => ({ name, match: m.match, ...(m.exclude ? { exclude: m.exclude } : {}) });

  const ruleConditions = rule.guards.map(conditionsOf);
  if (rule.guards.length <= 1 && ruleConditions.every((c) => c !== undefined)) {
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
  if (rule.guards.length > 0) {
    report.unsupported(`a rule guard of kind ${rule.guards[0]!.kind}`, rule.guards[0]!.origin);
    return [];
  }
  const rules: JsonObject[] = [];
  for (const op of rule.body) {
    if (op.kind !== 'set' && op.kind !== 'setMembers' && op.kind !== 'image') {
      report.unsupported(`an op of kind ${op.kind} in this position`, op.origin);
      continue;
    }
    const emitted = emitPathOp(op);
    if (typeof emitted === 'string') {
      report.unsupported(emitted, op.origin);
      continue;
    }
    if (emitted.length === 0) report.push('TM4003', `${p.id} can never write (MustNotExist on a glob is never satisfied); no rule emitted`, op.origin, 'warning');
    const opBase = rule.body.length > 1 ? `${base}-${rules.length + 1}` : base;
    for (const e of emitted) {
      const out = head(ruleName(opBase, e.suffix));
      if (e.preconditions) out.preconditions = e.preconditions;
      out.mutate = e.mutate;
      rules.push(out);
    }
  }
  return rules;
}

/** Whether Kyverno's autogen could add controller rules for this rule (it matches Pods). */
function matchesPods(rule: JsonObject): boolean {
  return JSON.stringify(rule.match ?? null).match(/"(?:[^"]*\/)?Pod"/) !== null;
}

function policyDocument(name: string, rules: JsonObject[], p: Policy | undefined, namespace?: string): JsonObject {
  const spec: JsonObject = {};
  if (p?.semantics.failurePolicy === 'ignore') spec.failurePolicy = 'Ignore';
  spec.rules = rules;
  const metadata: JsonObject = namespace === undefined ? { name } : { name, namespace };
  // Every rule the IR runs is written out (autogen rules included), so Kyverno must not add controller rules.
  if (rules.some(matchesPods)) metadata.annotations = { [AUTOGEN_ANNOTATION]: 'none' };
  return { apiVersion: 'kyverno.io/v1', kind: namespace === undefined ? 'ClusterPolicy' : 'Policy', metadata, spec };
}

function sequentialPolicy(p: Policy, report: Reporter): JsonObject | undefined {
  if (p.semantics.order === 'ordered' && p.semantics.reinvocation === 'ifNeeded') {
    report.push('TM4002', `${p.id} is reinvoked when a later policy changes the object; Kyverno runs each rule once`, p.origin, 'warning');
  }
  const applies = policyGuards(p, report);
  if (applies === undefined) return undefined;
  const ns = namespacedPolicy(p);
  const name = slug(ns ? ns.name : p.id).slice(0, MAX_NAME);
  if (!applies) return policyDocument(name, [], p, ns?.namespace);
  const rules: JsonObject[] = [];
  const seen = new Set<string>();
  for (const rule of p.rules) {
    let base = rule.name !== '' ? rule.name.slice(0, MAX_NAME) : `rule-${rules.length + 1}`;
    if (seen.has(base)) base = ruleName(base, `-${rules.length + 1}`);
    seen.add(base);
    rules.push(...emitRule(p, rule, base, !ns, report));
  }
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
    let base = slug(p.id).slice(0, MAX_NAME - 4);
    while (seen.has(base)) base = `${base}-x`;
    seen.add(base);
    for (const rule of p.rules) rules.push(...emitRule(p, rule, p.rules.length > 1 ? slug(`${base}-${rule.name}`) : base, true, report));
  }
  return policyDocument(FIXPOINT_POLICY_NAME, rules, undefined);
}

export function generateKyverno(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new Reporter(opts.unsupported ?? 'error');
  const documents: JsonObject[] = [];
  const fixpoint = policies.filter((p) => p.semantics.order === 'fixpoint');
  let fixpointDone = false;
  policies.forEach((p, i) => {
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
    const doc = sequentialPolicy(p, report);
    if (doc) documents.push(doc);
  });
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: report.diagnostics };
}
