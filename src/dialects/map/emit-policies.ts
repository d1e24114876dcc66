/**
 * IR policies as CEL mutating policies, the part MutatingAdmissionPolicy and Kyverno's MutatingPolicy share
 * (map/generate.ts and kyverno-mpol/generate.ts write the documents).
 *
 * - One CEL policy per IR policy; its rules' ops become ordered `mutations`. Gatekeeper mutators (fix-point
 *   policies) sharing one match become one policy after lower-fixpoint.ts's `checkFixpoint` proved that one
 *   ordered pass reaches Gatekeeper's fix-point; a lone mutator is its own policy (same proof on one policy).
 * - Path ops are JSONPatch expressions (emit-jsonpatch.ts): `has()` branches for missing parents, escaped keys;
 *   runs of sets server-side apply writes exactly become ApplyConfiguration (emit-apply.ts).
 * - Policy guards become `matchConditions`; rule and `when` guards become CEL conditionals in the mutation.
 * - CEL read from MAP or MutatingPolicy is carried over where it means the same in the target (cel-target.ts).
 * What the target cannot state exactly is refused (TM4001, `cannot` or `yet`) at the IR node's origin. A
 * refused rule is left out and the policy's other rules are still emitted; the report's level decides what
 * that means for the output (generate-report.ts).
 */
import { homogenize } from '../../cel/homogeneous.js';
import { compile, parse } from '../../cel/index.js';
import type { Origin } from '../../diagnostics/span.js';
import { PARAMS_VAR } from '../../engines/cel.js';
import { jsonEqual, type JsonObject } from '../../ir/json.js';
import type { Guard, MatchSpec, Op, Policy, Rule } from '../../ir/nodes.js';
import { cannot, isRefusal, notYet, type GenerationReport, type Refusal } from '../generate-report.js';
import { qualifiedNameErrors } from '../../validate/object-meta.js';
import { kyvernoRulePatches } from './kyverno/rule.js';
import { imagesChanged, type EarlierRule } from './kyverno/images-order.js';
import { checkFixpoint } from '../kyverno/lower-fixpoint.js';
import { sourceOfGuard } from '../gatekeeper/emit-match.js';
import type { CelTarget } from './cel-target.js';
import { celLiteral, conditional } from './emit-cel.js';
import { jsonPatchOf } from './emit-jsonpatch.js';
import { emitMatch, type EmittedMatch } from './emit-match.js';
import { groupMatch } from './group-match.js';
import { applyConfigurationsOf, type ApplyConfiguration } from './emit-apply.js';
import { mergeLeaves } from './emit-merge.js';
import { forEachOps } from './emit-foreach.js';
import { initializerProblem, schemaProblem } from './emit-schema.js';
import { annotationMutation, changeTest } from './emit-annotations.js';
import type { MutationAnnotations } from '../dialect.js';
import { emitGuard } from './emit-value.js';
import { hoistRuleMatch, ruleKinds, stripOrigin } from './hoist-match.js';
import { clip, mutatorGroupName, withSuffix } from '../naming.js';


export interface Named {
  name: string;
  expression: string;
}

export interface Mutation {
  patchType: 'ApplyConfiguration' | 'JSONPatch';
  expression: string;
}

export interface EmittedPolicy {
  name: string;
  /** The IR policy it came from (the first of a Gatekeeper group). */
  source: Policy;
  matchConstraints: JsonObject;
  /** What a MAP binding's matchResources must add (a second clause restricting kinds). */
  bindingMatch?: JsonObject;
  conditions: Named[];
  variables: Named[];
  mutations: Mutation[];
  failurePolicy: 'Fail' | 'Ignore';
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

interface Body {
  variables: Named[];
  mutations: Mutation[];
}

/** A refusal at a place. */
type Refused = Refusal & { origin: Origin | undefined };

function refused(r: Refusal | string, origin: Origin | undefined): Refused {
  return typeof r === 'string' ? { why: r, class: 'yet', origin } : { ...r, origin };
}

/** A MAP name from any text: DNS-1123, with dots kept (a MAP name is a subdomain). */
export function slug(s: string): string {
  return (
    clip(
      s
        .toLowerCase()
        .replace(/[^a-z0-9.-]+/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^[-.]+|[-.]+$/g, ''),
    ) || 'policy'
  );
}

/** `when` blocks without `else` as guards on their ops. */
function flatten(ops: readonly Op[], guards: readonly Guard[]): { op: Op; guards: Guard[] }[] {
  return ops.flatMap((op) => {
    if (op.kind !== 'when' || (op.else && op.else.length > 0)) return [{ op, guards: [...guards] }];
    return flatten(op.then, [...guards, op.guard]);
  });
}

function guardCel(g: Guard, target: CelTarget, renames?: ReadonlyMap<string, string>): string | Refused {
  const e = emitGuard(g);
  if ('why' in e) return refused(e.why, g.origin);
  if (g.kind !== 'cel') return e.cel;
  const carried = target.carry(e.cel, g.expr.origin.dialect ?? '', renames);
  return typeof carried === 'string' ? carried : refused(carried, g.origin);
}

function conditionOf(guards: readonly Guard[], target: CelTarget, renames: ReadonlyMap<string, string>): string | undefined | Refused {
  const parts: string[] = [];
  for (const g of guards) {
    if (g.kind === 'const' && g.value) continue;
    const e = guardCel(g, target, renames);
    if (typeof e !== 'string') return e;
    parts.push(e);
  }
  if (parts.length === 1) return parts[0];
  return parts.length > 0 ? parts.map((x) => (/ \|\| | \? /.test(x) ? `(${x})` : x)).join(' && ') : undefined;
}

function and(parts: readonly (string | undefined)[]): string | undefined {
  const defined = parts.filter((x): x is string => !!x);
  if (defined.length <= 1) return defined[0];
  return defined.map((x) => (/ \|\| | \? /.test(x) ? `(${x})` : x)).join(' && ');
}

/** An `Object…{…}` initializer of a MAP expression naming a field a matched built-in kind does not declare. */
function undeclaredInitializer(expression: string, match: MatchSpec): string | undefined {
  const parsed = parse(expression);
  return parsed.ok ? initializerProblem(parsed.value, match) : undefined;
}

/**
 * Kyverno's webhook parses `images` once per admission request, from the request's object, for all its
 * policies (one policy context: webhooks/resource/mutation applyMutations); a CEL policy reads its own object.
 */
const IMAGES_ACROSS_POLICIES =
  "`images` are parsed by Kyverno's webhook from the request's object before any of its policies mutated it; the translation reads the object as the policies before it left it: the two differ where an earlier policy changed a container or its image";

/** A rule reading lists of `images` another earlier rule may have changed (images-order.ts `other`). */
const IMAGES_OTHER_LISTS =
  "`images` are read after an earlier rule of the policy may have changed another container list: Kyverno reads the images the object came with, where the translation fails if a container the earlier rule changed has no name or an image Kyverno cannot parse";

/** A Kyverno rule as one JSONPatch mutation (kyverno/rule.ts). */
function kyvernoRuleBody(rule: Rule, kinds: MatchSpec, target: CelTarget, body: Body, earlier: readonly EarlierRule[], notes: string[]): Refused | undefined {
  const out = kyvernoRulePatches(rule, { target, match: kinds, variables: body.variables });
  if (isRefusal(out)) return refused(out, rule.origin);
  if (out.imagesRead.length > 0) {
    const changed = imagesChanged(earlier, kinds, out.imagesRead);
    if (changed === 'read') {
      return refused(
        notYet(
          "`images` read after an earlier rule of the policy may have changed that container list: Kyverno parses `images` once, from the object the policy began with, where the CEL policy's variable reads the object as the mutations before it left it",
        ),
        rule.origin,
      );
    }
    if (changed === 'other') notes.push(IMAGES_OTHER_LISTS);
    notes.push(IMAGES_ACROSS_POLICIES);
  }
  body.variables.push(...out.variables);
  notes.push(...out.notes);
  for (const patches of out.patches) if (patches !== '[]') body.mutations.push({ patchType: 'JSONPatch', expression: patches });
  return undefined;
}

/** The mutations (and variables) of one rule, in order, or why the rule cannot be written. */
function ruleBody(p: Policy, rule: Rule, target: CelTarget, body: Body, renames: ReadonlyMap<string, string>, notes: string[]): Refused | undefined {
  if (rule.match) return refused(`a rule-level match (rule ${rule.name})`, rule.match.origin ?? rule.origin);
  for (const { op, guards } of flatten(rule.body, rule.guards)) {
    const cond = conditionOf(guards, target, renames);
    if (cond !== undefined && typeof cond !== 'string') return cond;
    // A configuration error belongs to the source's cluster (a paramKind nothing serves, params missing), not
    // to the policy: a translation would carry the error instead of the policy the source means.
    if (op.kind === 'fail') return refused(cannot(`the configuration error "${op.message}" of the source policy (give the CustomResourceDefinition or the params it needs)`), op.origin);
    if (op.kind === 'let') {
      if (op.name === PARAMS_VAR) return refused(notYet('a parameter object (paramKind) in a generated policy'), op.origin);
      if (op.value.kind !== 'cel' || cond) return refused(`a variable bound to a ${op.value.kind} value`, op.origin);
      const expression = target.carry(op.value.expr.text, op.value.expr.origin.dialect ?? '', renames);
      if (typeof expression !== 'string') return refused(expression, op.origin);
      const seen = body.variables.find((x) => x.name === op.name);
      if (seen && seen.expression !== expression) return refused(`two variables named ${op.name}`, op.origin);
      if (!seen) body.variables.push({ name: op.name, expression });
      continue;
    }
    // A CEL policy's mutation read back: its expression is the mutation.
    if (op.kind === 'merge' && op.strategy === 'ssa' && op.value.kind === 'cel' && op.path.segments.length === 0 && !cond) {
      const expression = target.carry(op.value.expr.text, op.value.expr.origin.dialect ?? '', renames);
      if (typeof expression !== 'string') return refused(expression, op.origin);
      body.mutations.push({ patchType: 'ApplyConfiguration', expression });
      continue;
    }
    if (op.kind === 'jsonPatch' && op.profile === 'evanphx-v4' && op.steps.length === 0 && op.stepsFrom?.kind === 'cel' && !cond) {
      const from = op.stepsFrom.expr.origin.dialect ?? '';
      const expression = target.carry(op.stepsFrom.expr.text, from, renames);
      if (typeof expression !== 'string') return refused(expression, op.origin);
      const misfit = from === 'map' && target.dialect !== 'map' ? undeclaredInitializer(expression, ruleKinds.get(rule) ?? p.match) : undefined;
      if (misfit) {
        return refused(
          cannot(`a JSONPatch value the API server rejects when it decodes the object (${misfit}): kube-apiserver denies the request, while Kyverno's webhook patch of the same field is decoded leniently and the field dropped`),
          op.origin,
        );
      }
      body.mutations.push({ patchType: 'JSONPatch', expression });
      continue;
    }
    const kinds = ruleKinds.get(rule) ?? p.match;
    const expanded = op.kind === 'merge' && op.strategy !== 'ssa' ? mergeLeaves(op, kinds) : { ops: op.kind === 'forEach' ? forEachOps(op) : [op], guards: [] };
    const leaves = typeof expanded === 'string' ? expanded : expanded.ops;
    if (typeof leaves === 'string') return refused(leaves, op.origin);
    const all = typeof expanded === 'string' ? [] : expanded.guards;
    const when = and([cond, ...all]);
    for (const leaf of leaves) {
      const misfit = schemaProblem(leaf, kinds);
      if (misfit) return refused(cannot(`a write the API server rejects when it decodes the object (${misfit})`), leaf.origin);
    }
    // Runs of leaves SSA writes exactly become ApplyConfiguration; the others JSONPatch, in the same order.
    for (const run of runsOf(leaves, kinds)) {
      if (run.applied) {
        for (const ac of run.applied) {
          const test = and([when, ac.condition]);
          body.mutations.push({ patchType: 'ApplyConfiguration', expression: test ? conditional(test, ac.object, 'Object{}') : ac.object });
        }
        continue;
      }
      const patch = jsonPatchOf(run.leaf);
      if (typeof patch !== 'string') return refused(patch.why, run.leaf.origin);
      body.mutations.push({ patchType: 'JSONPatch', expression: when ? conditional(when, patch, '[]') : patch });
    }
  }
  return undefined;
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

/** Policy guards: `request.source == Original` is all a CEL policy sees; the rest become matchConditions. */
function policyConditions(p: Policy, target: CelTarget, report: GenerationReport, renames: ReadonlyMap<string, string>): Named[] | Refused {
  const out: Named[] = [];
  for (const g of p.guards) {
    if (g.kind === 'const' && g.value) continue;
    const source = sourceOfGuard(g);
    if (source === 'Original') {
      report.lossy('TM4003', `${target.label} sees only admission requests (Gatekeeper source Original); objects Gatekeeper generates by expansion are not mutated`, g.origin);
      continue;
    }
    if (source === 'Generated') return refused(cannot('a match on generated (expansion) objects: it sees only admission requests'), g.origin);
    const e = guardCel(g, target, renames);
    if (typeof e !== 'string') return e;
    // kube-apiserver documents variables as unavailable to matchConditions (they run before the policy body).
    if (target.dialect === 'map' && /\bvariables\s*\./.test(e)) return refused(notYet(`the match condition ${e}, which reads the policy's variables (MAP documents them as unavailable there)`), g.origin);
    const name = g.kind === 'cel' && g.name ? g.name : `condition-${out.length + 1}`;
    out.push({ name: target.dialect === 'map' ? qualifiedConditionName(name) : name, expression: e });
  }
  return out;
}

/**
 * kube-apiserver requires a matchCondition name to be a qualified name; Kyverno's MutatingPolicy does not
 * (its validation never checks it), so a MutatingPolicy's "is not kube system" is written as the closest
 * qualified name. The name only labels the condition in error messages.
 */
function qualifiedConditionName(name: string): string {
  if (qualifiedNameErrors(name).length === 0) return name;
  const tidy = (s: string) => s.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
  const cut = tidy(tidy(name.replace(/[^A-Za-z0-9._-]+/g, '-')).slice(0, 63));
  return cut === '' ? 'condition' : cut;
}

/** Every generated expression compiles in the target's environment, or the policy is refused. */
/** The namespaces and functions of Kyverno's CEL libraries (MutatingPolicy's environment only). */
const KYVERNO_LIBRARIES = new Set(['resource', 'http', 'image', 'imagedata', 'globalContext', 'json', 'yaml', 'x509', 'hash', 'math', 'time', 'random', 'transform', 'gzip', 'user', 'base64', 'regex', 'registry', 'parseImageReference']);

function checkCel(name: string, body: Body, conditions: readonly Named[], origin: Origin, target: CelTarget): Refused | undefined {
  const env = { variables: target.variables, ...(target.k8sVersion ? { k8sVersion: target.k8sVersion } : {}), ...(target.dialect === 'kyverno-mpol' ? { extraLibraries: ['kyverno' as const] } : {}) };
  const checks: [string, 'Object' | 'JSONPatchList' | 'bool' | 'any'][] = [
    ...body.mutations.map((m): [string, 'Object' | 'JSONPatchList'] => [m.expression, m.patchType === 'ApplyConfiguration' ? 'Object' : 'JSONPatchList']),
    ...conditions.map((c): [string, 'bool'] => [c.expression, 'bool']),
    ...body.variables.map((v): [string, 'any'] => [v.expression, 'any']),
  ];
  for (const [text, expect] of checks) {
    const r = compile(text, { ...env, expect });
    if (!r.ok) {
      const message = r.diagnostics[0]?.message ?? 'does not compile';
      // A Kyverno CEL library (MutatingPolicy's image(), resource.Get(), regex...) has no kube-apiserver counterpart.
      const lib = /undeclared reference to '([A-Za-z_]+)'|found no matching overload for '([A-Za-z_.]+)'/.exec(message);
      const name2 = lib?.[1] ?? lib?.[2];
      if (target.dialect === 'map' && name2 && KYVERNO_LIBRARIES.has(name2.split('.')[0]!)) return refused(cannot(`Kyverno's ${name2.split('.')[0]} CEL library, which kube-apiserver's CEL environment does not have: ${text}`), origin);
      return refused(notYet(`the generated CEL of ${name} (${message}): ${text}`), origin);
    }
  }
  return undefined;
}

/** The policy name: a policy read from MAP keeps its name (the id is `<policy>/<binding>[/param]`). */
function nameOf(p: Policy, used: Set<string>): string {
  const fromMap = p.origin.dialect === 'map' ? p.id.split('/')[0]! : p.id;
  let name = slug(fromMap);
  for (let n = 2; used.has(name); n++) name = withSuffix(slug(fromMap), `-${n}`);
  used.add(name);
  return name;
}

/**
 * A policy whose source names no namespace (Semantics.namespace) and whose match still tests the namespace
 * it stands for: the emitted policy is written for `default` instead of the namespace it is created in.
 */
function namespacePinned(p: Policy): boolean {
  return p.semantics.namespace === 'implied' && [...(p.match.any ?? []), ...(p.match.all ?? [])].some((c) => c.namespaces !== undefined);
}

/**
 * The policy-level bindings as variables: a MAP invocation's param object (written into a target without
 * params as `variables.params`), and a MutatingPolicy's variables (lazy CEL, which MAP's and MutatingPolicy's
 * `variables` are too). Undefined when there are none.
 */
function policyVariables(p: Policy, target: CelTarget): { variables: Named[]; params: boolean } | Refused {
  const variables: Named[] = [];
  let params = false;
  for (const l of p.lets ?? []) {
    if (l.name === PARAMS_VAR) {
      if (target.dialect === 'map') return refused(notYet('a parameter object (paramKind) in a generated policy'), l.origin);
      const lit = l.value.kind === 'literal' ? (l.value.json === null ? 'null' : celLiteral(l.value.json)) : undefined;
      if (lit === undefined) return refused(cannot('a parameter object with values CEL cannot write exactly (MutatingPolicy has no paramKind)'), l.origin);
      variables.push({ name: 'params', expression: lit });
      params = true;
      continue;
    }
    if (l.value.kind !== 'cel' || !l.lazy) return refused(notYet(`the policy-level binding ${l.name}`), l.origin);
    const carried = target.carry(l.value.expr.text, l.value.expr.origin.dialect ?? '');
    if (typeof carried !== 'string') return refused(carried, l.origin);
    variables.push({ name: l.name, expression: carried });
  }
  return { variables, params };
}

function emitGroup(original: readonly Policy[], target: CelTarget, report: GenerationReport, used: Set<string>, opts: CelPolicyOptions, shared?: EmittedMatch): EmittedPolicy | undefined {
  const group: Policy[] = [];
  for (const p of original) {
    const h = hoistRuleMatch(p, target.dialect);
    if (typeof h === 'string') {
      report.refuse(notYet(h), p.rules.find((r) => r.match)?.match?.origin ?? p.origin, `policy ${p.id}`);
      return undefined;
    }
    group.push(h);
  }
  const head = group[0]!;
  const m = shared ?? emitMatch(head.match, target.dialect);
  if (typeof m === 'string' || isRefusal(m)) {
    report.refuse(typeof m === 'string' ? notYet(m) : m, head.match.origin ?? head.origin, `policy ${head.id}`);
    return undefined;
  }
  for (const note of m.notes) report.lossy('TM4003', `match: ${note}`, head.match.origin ?? head.origin);
  const pinned = group.find(namespacePinned);
  if (pinned) {
    report.lossy('TM4003', `${pinned.id} names no namespace: its source applies in the namespace it is created in; the ${target.label} matches the namespace "default" instead (where the source lands when created without a namespace)`, pinned.origin);
  }
  const conditions = m.conditions.map((c) => ({ ...c }));
  const body: Body = { variables: [], mutations: [] };
  const earlierRules: EarlierRule[] = [];
  const renames = new Map<string, string>();
  for (const p of group) {
    const lets = policyVariables(p, target);
    if ('why' in lets) {
      report.refuse(lets, lets.origin, `policy ${p.id}`);
      return undefined;
    }
    for (const v of lets.variables) if (!body.variables.some((x) => x.name === v.name)) body.variables.push(v);
    if (lets.params) {
      renames.set('params', 'variables.params');
      report.lossy('TM4003', `the parameter object of ${p.id} is written into the policy as variables.params: later changes to the param resource do not reach it`, p.lets!.find((l) => l.name === PARAMS_VAR)!.origin);
    }
    const c = policyConditions(p, target, report, renames);
    if (!Array.isArray(c)) {
      report.refuse(c, c.origin, `policy ${p.id}`);
      return undefined;
    }
    if (group.length > 1 && c.length > 0) {
      report.refuse(notYet(`the guards of ${p.id} inside a group of Gatekeeper mutators`), p.origin);
      return undefined;
    }
    conditions.push(...c);
    for (const rule of p.rules) {
      const scratch: Body = { variables: [...body.variables], mutations: [] };
      const notes: string[] = [];
      let why = ruleBody(p, rule, target, scratch, renames, notes);
      if (why && rule.origin.dialect === 'kyverno' && !rule.match) {
        // The path-op route writes the shapes it knows as a person would (ApplyConfiguration, short JSONPatch);
        // everything else from Kyverno goes through kyverno/rule.ts, which keeps the whole rule in one expression.
        scratch.variables = [...body.variables];
        scratch.mutations = [];
        why = kyvernoRuleBody(rule, ruleKinds.get(rule) ?? p.match, target, scratch, earlierRules, notes);
      }
      for (const n of new Set(notes)) report.lossy('TM4003', n, rule.origin);
      if (why) {
        report.refuse(why, why.origin, p.rules.length > 1 || rule.name !== '' ? `rule ${rule.name || '(unnamed)'} of policy ${p.id}` : `policy ${p.id}`);
        continue;
      }
      body.variables = scratch.variables;
      body.mutations.push(...scratch.mutations);
      earlierRules.push({ mutations: scratch.mutations, match: ruleKinds.get(rule) ?? p.match });
    }
  }
  if (opts.mutationAnnotations && group.some((p) => p.semantics.order === 'fixpoint')) {
    const annotated = annotate(group, target, opts.mutationAnnotations);
    if (typeof annotated !== 'string') {
      report.refuse(annotated, annotated.origin, `policy ${head.id}`);
      return undefined;
    }
    if (body.mutations.length > 0) body.mutations.unshift({ patchType: 'ApplyConfiguration', expression: annotated });
  }
  if (body.mutations.length === 0) {
    // A policy without admission rules (only mutate-existing ones, say) has nothing to say here.
    if (report.refusals === 0 && group.some((p) => p.rules.length > 0)) report.push('TM4003', `${head.id} writes nothing; no policy emitted`, head.origin, 'warning');
    return undefined;
  }
  // matchConditions is a list keyed by name: conditions of the same kind get numbered.
  const seenNames = new Map<string, number>();
  for (const c of conditions) {
    const n = (seenNames.get(c.name) ?? 0) + 1;
    seenNames.set(c.name, n);
    if (n > 1) c.name = `${c.name}-${n}`;
  }
  const name = group.length > 1 ? nameOf({ ...head, id: mutatorGroupName(group.map((g) => g.id)) }, used) : nameOf(head, used);
  // kube-apiserver and Kyverno compile with HomogeneousAggregateLiterals: mixed literal members get dyn().
  for (const m of body.mutations) m.expression = homogenize(m.expression);
  for (const v of body.variables) v.expression = homogenize(v.expression);
  for (const c of conditions) c.expression = homogenize(c.expression);
  const bad = checkCel(name, body, conditions, head.origin, target);
  if (bad) {
    report.refuse(bad, bad.origin, `policy ${head.id}`);
    return undefined;
  }
  return {
    name,
    source: head,
    matchConstraints: m.matchConstraints,
    ...(m.bindingMatch ? { bindingMatch: m.bindingMatch } : {}),
    conditions,
    variables: body.variables,
    mutations: body.mutations,
    failurePolicy: head.semantics.failurePolicy === 'ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: head.semantics.reinvocation === 'ifNeeded' ? 'IfNeeded' : 'Never',
  };
}

/**
 * The mutation writing Gatekeeper's `--mutation-annotations` for a group of one mutator (emit-annotations.ts),
 * or why not: MAP has no per-request UUID; several mutators need the mutators applied before a change known
 * to a later one.
 */
function annotate(group: readonly Policy[], target: CelTarget, opts: MutationAnnotations): string | Refused {
  const head = group[0]!;
  if (target.dialect === 'map') {
    return refused(cannot(`Gatekeeper's --mutation-annotations: its mutation id is a fresh UUID per request, and MAP's CEL has none (its request omits uid)`), head.origin);
  }
  if (group.length > 1) return refused(notYet(`Gatekeeper's --mutation-annotations for several mutators (${group.map((p) => p.id).join(', ')}) in one policy`), head.origin);
  const tests: string[] = [];
  for (const rule of head.rules) {
    for (const { op, guards } of flatten(rule.body, rule.guards)) {
      const t = changeTest(op, guards);
      if (typeof t !== 'string') return refused(notYet(`Gatekeeper's --mutation-annotations for ${t.why}`), op.origin);
      tests.push(tests.length > 0 || head.rules.length > 1 ? `(${t})` : t);
    }
  }
  return annotationMutation(tests.length > 0 ? tests.join(' || ') : 'false', head.id, opts);
}

function disabled(p: Policy): boolean {
  return p.guards.some((g) => g.kind === 'const' && !g.value);
}

/** The CEL policies of an IR policy set, in order; refusals go to `report`. */
export interface CelPolicyOptions {
  /** Gatekeeper's `--mutation-annotations` on the mutators translated (emit-annotations.ts). */
  mutationAnnotations?: MutationAnnotations;
}

export function emitCelPolicies(policies: readonly Policy[], target: CelTarget, report: GenerationReport, opts: CelPolicyOptions = {}): EmittedPolicy[] {
  const used = new Set<string>();
  const out: EmittedPolicy[] = [];
  const live = policies.filter((p) => {
    if (!disabled(p)) return true;
    // A policy that never applies (a Gatekeeper mutator disabled by a schema conflict) needs no policy at all.
    report.lossy('TM4003', `${p.id} never applies (disabled by its source dialect: a Gatekeeper schema conflict); nothing is emitted for it`, p.origin);
    return false;
  });
  const fixpoint = live.filter((p) => p.semantics.order === 'fixpoint');
  let shared: EmittedMatch | undefined;
  let fixpointBroken = false;
  if (fixpoint.length > 1) {
    const problems = checkFixpoint(fixpoint);
    for (const problem of problems) report.cannot(`Gatekeeper's fix-point in one ordered pass: ${problem.message}`, problem.origin);
    fixpointBroken = problems.length > 0;
    if (!fixpointBroken && fixpoint.some((p) => !jsonEqual(stripOrigin(p.match), stripOrigin(fixpoint[0]!.match)))) {
      const g = groupMatch(fixpoint);
      if (typeof g === 'string') {
        report.notYet(g, fixpoint[0]!.match.origin ?? fixpoint[0]!.origin);
        fixpointBroken = true;
      } else {
        shared = g.shared;
        fixpoint.splice(0, fixpoint.length, ...g.policies);
      }
    }
  } else if (fixpoint.length === 1) {
    for (const problem of checkFixpoint(fixpoint)) report.cannot(problem.message, problem.origin);
  }
  let fixpointDone = false;
  for (const p of live) {
    if (p.semantics.applyRules === 'one' && p.rules.length > 1) {
      report.notYet(`applyRules: one in ${p.id} (stop after the first rule that changes the object)`, p.origin);
      continue;
    }
    if (p.semantics.order === 'fixpoint') {
      if (fixpointDone || fixpointBroken) continue;
      fixpointDone = true;
      const e = emitGroup(fixpoint, target, report, used, opts, shared);
      if (e) out.push(e);
      continue;
    }
    const e = emitGroup([p], target, report, used, opts);
    if (e) out.push(e);
  }
  return out;
}
