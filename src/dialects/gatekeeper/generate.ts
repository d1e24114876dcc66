/**
 * IR back to Gatekeeper mutators: one mutator per op (emit-mutator.ts), `applyTo`/`match` from the policy's
 * match block (emit-match.ts), existence guards as pathTests, conditions on the request's operation as
 * applyTo operations. What Gatekeeper cannot express is reported as unsupported (TM4001) at the construct's
 * origin and left out, never written approximately. Every refusal carries its class: `cannot` where a limit
 * of Gatekeeper is the reason (most sites), `yet` where Gatekeeper could say it. Kyverno constructs the
 * raisings left (strategic merges, JSON patches, loops, preconditions) are explained by explain-kyverno.ts,
 * in Gatekeeper's terms and at the construct's position. A binding (`let`) does nothing by itself: it is
 * passed over, and whatever reads it is refused with its own reason.
 *
 * The emitted set is then checked as Gatekeeper would install it: a mutator the implied-schema database
 * would disable is unsupported unless the IR disabled it too (a policy guarded by constant false, which is
 * how the parser records a schema conflict). Names keep Gatekeeper's sorted order equal to the IR's order:
 * mutators read from Gatekeeper keep theirs; otherwise `NN-<policy>` numbers them in IR order, and a
 * dependency that kind-first sorting would reorder is reported as lossy ordering (TM4002).
 */
import type { Origin } from '../../diagnostics/span.js';
import type { JsonObject } from '../../ir/json.js';
import type { Guard, LetOp, MatchSpec, Op, Policy, Rule } from '../../ir/nodes.js';
import type { Segment, SegmentTest } from '../../ir/path.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import { matchedKinds } from '../../lowering/raise-kyverno-kinds.js';
import { callsImpure } from '../../lowering/cel-kyverno/closed.js';
import { MPOL_ENV } from '../../lowering/cel-kyverno/env.js';
import { parse } from '../../cel/index.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { cannot, GenerationReport, isRefusal, type Refusal } from '../generate-report.js';
import type { MutatorKind } from './common.js';
import { isSinglePlace, locationText } from './emit-location.js';
import { emitMatch, sourceOfGuard } from './emit-match.js';
import { intersectMatch, matchEdges, resourcesAsKinds } from './emit-match-spec.js';
import { emitOp, type EmittedMutator } from './emit-mutator.js';
import { explainGuard, explainKyvernoOp, type ExplainContext } from './explain-kyverno.js';
import { proveOnePass } from './fixpoint-proof.js';
import { DIALECT } from './fields.js';
import type { ApplyToEntry, MatchSource } from './match.js';
import { compareMutators, MUTATIONS_GROUP } from './mutators.js';
import { findSchemaConflicts, type SchemaEntry } from './schema-conflicts.js';
import { clip, DNS1123_SUBDOMAIN, MAX_NAME, slug as slugName } from '../naming.js';

const KINDS: readonly MutatorKind[] = ['Assign', 'AssignImage', 'AssignMetadata', 'ModifySet'];

interface Planned {
  mutator: EmittedMutator;
  /** The IR op and the pathTests its guards add, for the fix-point proof. */
  op: Op;
  tests: Map<number, SegmentTest>;
  applyTo: JsonObject[] | undefined;
  match: JsonObject | undefined;
  policy: Policy;
  /** The IR op's origin. */
  origin: Origin;
  /** IR order. */
  index: number;
  disabled: boolean;
  /** The rule's name, for generated mutator names. */
  rule: string;
  name: string;
}

/** Gatekeeper's report: every refusal carries its class (cannot / yet) from the site that refuses. */
class Reporter extends GenerationReport {
  constructor(mode: NonNullable<GenerateOptions['unsupported']>) {
    super('Gatekeeper', DIALECT, mode);
  }
}

const MUTATED_OPERATIONS = ['CREATE', 'UPDATE'] as const;

/** Segments compared without their tests. */
function samePlace(a: Segment, b: Segment): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'field' && b.kind === 'field') return a.name === b.name;
  if (a.kind === 'keyed' && b.kind === 'keyed') return a.key === b.key && a.value === b.value;
  return false;
}

/** The operation a guard decides on alone (`request.operation`), evaluated for one operation. */
function onOperation(g: Guard, operation: string): boolean | undefined {
  const isOperation = (p: { root: string; segments: readonly Segment[] }) =>
    p.root === 'request' && p.segments.length === 1 && p.segments[0]!.kind === 'field' && p.segments[0]!.name === 'operation';
  const literal = (v: { kind: string; json?: unknown }) => (v.kind === 'literal' ? v.json : undefined);
  switch (g.kind) {
    case 'eq':
    case 'neq':
      if (!isOperation(g.path) || g.value.kind !== 'literal') return undefined;
      return (literal(g.value) === operation) === (g.kind === 'eq');
    case 'in':
    case 'notIn':
      if (!isOperation(g.path) || g.values.some((v) => v.kind !== 'literal')) return undefined;
      return g.values.some((v) => literal(v) === operation) === (g.kind === 'in');
    case 'not': {
      const inner = onOperation(g.arg, operation);
      return inner === undefined ? undefined : !inner;
    }
    case 'and':
    case 'or': {
      const parts = g.args.map((a) => onOperation(a, operation));
      if (parts.some((x) => x === undefined)) return undefined;
      return g.kind === 'and' ? parts.every(Boolean) : parts.some(Boolean);
    }
    default:
      return undefined;
  }
}

interface Conditions {
  tests: Map<number, SegmentTest>;
  /** The operations Gatekeeper may mutate on (absent: both). */
  operations?: string[];
  /** A guard that never holds: the op never applies. */
  never?: boolean;
}

/**
 * Guards the way Gatekeeper can say them: constant true (nothing), constant false (disabled: a schema
 * conflict at the policy, an op that never applies below it), `request.source` (match.source), the request's
 * operation (applyTo operations), and existence of a place on the path the op writes (a pathTest at that
 * depth). Returns the tests by depth for a given op path, or why not.
 */
function guardConditions(guards: readonly Guard[], opSegments: readonly Segment[] | undefined, ctx: ExplainContext, policyGuards: readonly Guard[]): Conditions | { refusal: Refusal; origin: Origin } {
  const tests = new Map<number, SegmentTest>();
  let operations: string[] = [...MUTATED_OPERATIONS];
  let never = false;
  const written = opSegments ? `which writes ${describeSegments(opSegments)}` : undefined;
  for (const g of guards) {
    if (sourceOfGuard(g)) continue;
    if (g.kind === 'const') {
      if (!g.value && !policyGuards.includes(g)) never = true;
      continue;
    }
    const create = onOperation(g, 'CREATE');
    if (create !== undefined) {
      operations = operations.filter((o) => onOperation(g, o));
      continue;
    }
    if ((g.kind === 'exists' || g.kind === 'notExists') && g.path.root === 'object' && opSegments && isSinglePlace(g.path.segments)) {
      const segs = g.path.segments;
      if (segs.length > 0 && segs.length <= opSegments.length && segs.every((s, i) => samePlace(s, opSegments[i]!))) {
        const depth = segs.length - 1;
        const test: SegmentTest = g.kind === 'exists' ? 'exist' : 'notExist';
        if (tests.has(depth) && tests.get(depth) !== test) {
          return { refusal: cannot('both MustExist and MustNotExist on one segment (Gatekeeper rejects conflicting pathTests; the op would never apply)'), origin: g.origin };
        }
        tests.set(depth, test);
        continue;
      }
    }
    return { refusal: explainGuard(g, ctx, written), origin: g.origin };
  }
  const out: Conditions = { tests };
  if (operations.length < MUTATED_OPERATIONS.length) out.operations = operations;
  if (never || operations.length === 0) out.never = true;
  return out;
}

function describeSegments(segments: readonly Segment[]): string {
  return segments.map((s) => (s.kind === 'field' ? s.name : s.kind === 'keyed' ? `[${s.key}: ${JSON.stringify(s.value)}]` : s.kind === 'keyedGlob' ? `[${s.key}: *]` : `[${s.kind}]`)).join('.').replace(/\.\[/g, '[');
}

function sourceOf(guards: readonly Guard[]): MatchSource | undefined {
  for (const g of guards) {
    const s = sourceOfGuard(g);
    if (s) return s;
  }
  return undefined;
}

function isDisabled(p: Policy): boolean {
  return p.guards.some((g) => g.kind === 'const' && !g.value);
}

/** Ops with the guards of the `when` blocks around them (a `when` without `else` guards its ops). */
function flatten(ops: readonly Op[], guards: readonly Guard[]): { op: Op; guards: Guard[] }[] {
  return ops.flatMap((op) => {
    if (op.kind !== 'when' || (op.else && op.else.length > 0)) return [{ op, guards: [...guards] }];
    const inner = op.guard.kind === 'and' ? op.guard.args : [op.guard];
    return flatten(op.then, [...guards, ...inner]);
  });
}

/** Whether an op may become an AssignMetadata (which has no applyTo): a write of one label or annotation. */
function mayBeMetadata(op: Op): boolean {
  if (op.kind !== 'set' || op.path.root !== 'object') return false;
  const [a, b, c, ...rest] = op.path.segments;
  return rest.length === 0 && a?.kind === 'field' && a.name === 'metadata' && b?.kind === 'field' && (b.name === 'labels' || b.name === 'annotations') && c?.kind === 'field';
}

/** The rule's bindings, by name (the last of each name), for explanations. */
function letsOf(ops: readonly Op[], into = new Map<string, LetOp>()): Map<string, LetOp> {
  for (const op of ops) {
    if (op.kind === 'let') into.set(op.name, op);
    else if (op.kind === 'when') {
      letsOf(op.then, into);
      if (op.else) letsOf(op.else, into);
    }
  }
  return into;
}

/** Whether a binding has no effect of its own: lazy (read only where used), or a constant. */
function inert(op: LetOp): boolean {
  return op.lazy === true || op.value.kind === 'literal';
}

/** Whether any op after a binding reads it (a use is refused on its own, with its reason). */
function readLater(ops: readonly { op: Op }[], from: number, name: string): boolean {
  const word = new RegExp(`(^|[^A-Za-z0-9_$])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_]|$)`);
  return ops.slice(from + 1).some(({ op }) => word.test(JSON.stringify(op)));
}

/** A MutatingPolicy variable calling Kyverno's resource, http, globalContext or image-data libraries. */
function readsClusterOrNetwork(l: LetOp): boolean {
  if (l.value.kind !== 'cel') return false;
  const parsed = parse(l.value.expr.text);
  return parsed.ok && callsImpure(parsed.value, MPOL_ENV);
}

/** Plans every op of every policy, in IR order. */
function plan(policies: readonly Policy[], report: Reporter): Planned[] {
  const planned: Planned[] = [];
  for (const policy of policies) {
    const let0 = policy.lets?.[0];
    if (let0) {
      const reads = policy.lets!.find(readsClusterOrNetwork);
      // A variable read from the cluster or the network has no value at translation time; parameters are
      // known data: one mutator set per binding with them substituted could say it.
      if (reads) report.cannot(`the variable ${reads.name}, which reads the cluster or the network at admission (Gatekeeper mutators read only the object, and external data providers only for values at a location)`, reads.origin);
      else report.notYet(`the policy-level binding ${let0.name}, a MAP parameter object (Gatekeeper mutators take no parameters: its values inlined)`, let0.origin);
      continue;
    }
    const disabled = isDisabled(policy);
    const ops = policy.rules.flatMap((rule) => flatten(rule.body, []).map(({ op, guards }) => ({ rule, op, guards })));
    if (disabled && ops.length === 0) {
      report.push('TM4003', `policy ${policy.id} never applies and is not emitted (Gatekeeper's bound on passes counts one mutator fewer)`, policy.origin, 'warning');
      continue;
    }
    if (policy.semantics.applyRules === 'one' && policy.rules.length > 1) {
      report.cannot(`applyRules: one in ${policy.id}, which stops after the first rule that changes the object (Gatekeeper runs every matching mutator)`, policy.origin);
    }
    const source = sourceOf(policy.guards);
    const specs = new Map<Rule, MatchSpec | Refusal>();
    const contexts = new Map<Rule, ExplainContext>();
    const specOf = (rule: Rule): MatchSpec | Refusal => {
      let spec = specs.get(rule);
      if (spec === undefined) {
        // Every mutator carries the whole condition: the policy's match and its rule's.
        const both = intersectMatch(policy.match, rule.match);
        spec = isRefusal(both) ? both : resourcesAsKinds(both);
        specs.set(rule, spec);
        if (!isRefusal(spec)) for (const edge of matchEdges(spec)) report.push('TM4003', edge, spec.origin ?? policy.origin, 'warning');
      }
      return spec;
    };
    const contextOf = (rule: Rule): ExplainContext => {
      let c = contexts.get(rule);
      if (!c) {
        const kinds = matchedKinds(policy, rule);
        c = { lets: letsOf(rule.body), ...(kinds ? { kinds } : {}) };
        contexts.set(rule, c);
      }
      return c;
    };
    // A match the op's mutator kind cannot carry refuses the op before anything in it (once per rule).
    const matchRefused = new Map<string, Refusal | undefined>();
    const reportedMatch = new Set<Rule>();
    const matchRefusalOf = (rule: Rule, spec: MatchSpec, needsApplyTo: boolean): Refusal | undefined => {
      const key = `${policy.rules.indexOf(rule)}/${needsApplyTo}`;
      if (!matchRefused.has(key)) {
        const m = emitMatch(spec, source, needsApplyTo);
        matchRefused.set(key, isRefusal(m) ? m : undefined);
      }
      const refusal = matchRefused.get(key);
      if (refusal && !reportedMatch.has(rule)) {
        reportedMatch.add(rule);
        report.refuse(refusal, spec.origin ?? rule.origin);
      }
      return refusal;
    };
    const shared = sharedGuardProblem(ops);
    if (shared) report.push('TM4002', shared.message, shared.origin);
    ops.forEach(({ rule, op, guards }, index) => {
      const spec = specOf(rule);
      if (isRefusal(spec)) {
        report.refuse(spec, rule.match?.origin ?? rule.origin);
        return;
      }
      if (matchRefusalOf(rule, spec, !mayBeMetadata(op))) return;
      const ctx = contextOf(rule);
      // A binding does nothing by itself: whatever reads it is refused with its own reason.
      if (op.kind === 'let' && (inert(op) || readLater(ops, index, op.name))) return;
      const segments = 'path' in op && op.path.root === 'object' ? op.path.segments : undefined;
      const conditions = guardConditions([...policy.guards, ...rule.guards, ...guards], segments, ctx, policy.guards);
      if ('refusal' in conditions) {
        report.refuse(conditions.refusal, conditions.origin);
        return;
      }
      // An op under a guard that never holds does nothing, in either engine.
      if (conditions.never) return;
      const emit = (step: Op): Refusal | undefined => {
        const m = emitOp(step, new Map());
        return isRefusal(m) ? m : undefined;
      };
      const explained = op.kind === 'set' || op.kind === 'setMembers' || op.kind === 'image' || op.kind === 'remove' ? undefined : explainKyvernoOp(op, ctx, emit);
      if (explained) {
        report.refuse(explained, op.origin);
        return;
      }
      const mutator = emitOp(op, conditions.tests);
      if (isRefusal(mutator)) {
        report.refuse(mutator, op.origin);
        return;
      }
      const m = emitMatch(spec, source, mutator.kind !== 'AssignMetadata', conditions.operations);
      if (isRefusal(m)) {
        report.refuse(m, spec.origin ?? policy.origin);
        return;
      }
      planned.push({ mutator, op, tests: conditions.tests, applyTo: m.applyTo, match: m.match, policy, origin: op.origin, index: planned.length, disabled, rule: rule.name, name: '' });
    });
  }
  return planned;
}

/**
 * A guard the source tests once for several ops (a rule's preconditions) becomes a pathTest each mutator
 * checks when it runs: the same only while no earlier op of the group writes where the guard looks.
 */
function sharedGuardProblem(ops: readonly { rule: Rule; op: Op; guards: Guard[] }[]): { message: string; origin: Origin } | undefined {
  for (let j = 0; j < ops.length; j++) {
    const b = ops[j]!;
    const looks = [...b.rule.guards, ...b.guards].filter((g) => g.kind === 'exists' || g.kind === 'notExists');
    for (const g of looks) {
      if (g.kind !== 'exists' && g.kind !== 'notExists') continue;
      for (let i = 0; i < j; i++) {
        const a = ops[i]!;
        if (a.rule !== b.rule || !('path' in a.op) || a.op.path.root !== 'object') continue;
        const shares = a.rule.guards.includes(g) || a.guards.includes(g);
        const w = a.op.path.segments;
        const r = g.path.segments;
        const n = Math.min(w.length, r.length);
        if (shares && w.slice(0, n).every((s, k) => samePlace(s, r[k]!))) {
          return { message: `the source tests ${g.kind} once before rule ${b.rule.name}; Gatekeeper tests it before each mutator, after an earlier one wrote there`, origin: g.origin };
        }
      }
    }
  }
  return undefined;
}

/** `Kind/name` of a policy read from Gatekeeper, when the emitted mutator is of that kind. */
function gatekeeperName(p: Planned): string | undefined {
  const slash = p.policy.id.indexOf('/');
  if (slash < 0 || p.policy.id.slice(0, slash) !== p.mutator.kind) return undefined;
  const name = p.policy.id.slice(slash + 1);
  // Gatekeeper's own check is the length (core.ValidateName); the API server also wants a DNS-1123 subdomain.
  return name !== '' && name.length <= MAX_NAME && DNS1123_SUBDOMAIN.test(name) ? name : undefined;
}

function slug(s: string): string {
  return slugName(s, '');
}

/** A mutator's name from its source: the policy's (a MAP policy's without its binding), then the rule's. */
function baseName(p: Planned): string {
  const id = p.policy.id;
  const fromGatekeeper = /^(Assign|AssignImage|AssignMetadata|ModifySet)\//.test(id);
  const policyName = fromGatekeeper ? id.slice(id.indexOf('/') + 1) : id.split('/')[0]!;
  const rule = p.policy.rules.length > 1 && slug(p.rule) !== slug(policyName) ? `-${p.rule}` : '';
  return slug(policyName + rule) || 'mutator';
}

/**
 * Keeps Gatekeeper names when every mutator has one (one op per policy, names unique per kind); otherwise
 * numbers all of them in IR order, and reports where sorting by kind first reorders dependent writes.
 */
function assignNames(planned: Planned[], report: Reporter): void {
  const kept = planned.map(gatekeeperName);
  const perPolicy = new Map<Policy, number>();
  for (const p of planned) perPolicy.set(p.policy, (perPolicy.get(p.policy) ?? 0) + 1);
  const ids = kept.map((n, i) => `${planned[i]!.mutator.kind}/${n}`);
  if (kept.every((n) => n !== undefined) && [...perPolicy.values()].every((n) => n === 1) && new Set(ids).size === ids.length) {
    planned.forEach((p, i) => (p.name = kept[i]!));
    return;
  }
  // A translated policy keeps its own name (a MAP policy's, without the binding; the rule's only when the
  // policy has several). Numbers are added only where Gatekeeper's by-name order within a kind must follow
  // the source's order (several mutators of one kind) or where names would collide.
  const bases = planned.map(baseName);
  const perKind = new Map<string, number>();
  for (const p of planned) perKind.set(p.mutator.kind, (perKind.get(p.mutator.kind) ?? 0) + 1);
  const width = String(planned.length).length;
  planned.forEach((p, i) => {
    const numbered = perKind.get(p.mutator.kind)! > 1;
    const prefix = numbered ? `${String(i + 1).padStart(width, '0')}-` : '';
    p.name = clip(`${prefix}${bases[i]!}`);
  });
  // Gatekeeper runs every Assign before any AssignImage, AssignMetadata, ModifySet: a later op of an earlier
  // kind that writes where an earlier op writes (or below or above it) runs first.
  for (let j = 0; j < planned.length; j++) {
    for (let i = 0; i < j; i++) {
      const a = planned[i]!;
      const b = planned[j]!;
      if (KINDS.indexOf(b.mutator.kind) < KINDS.indexOf(a.mutator.kind) && overlaps(a, b)) {
        report.push('TM4002', `${b.mutator.kind} ${b.name} runs before ${a.mutator.kind} ${a.name} in Gatekeeper (kinds sort first) and both write ${a.mutator.spec.location}`, b.origin);
        break;
      }
    }
  }
}

/** One location is a prefix of the other, by field names and list key fields. */
function overlaps(a: Planned, b: Planned): boolean {
  const x = a.mutator.location.nodes;
  const y = b.mutator.location.nodes;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p.type !== q.type) return true;
    if (p.type === 'Object' && q.type === 'Object' && p.reference !== q.reference) return false;
  }
  return true;
}

/**
 * A source that runs once (Kyverno's sequential rules, MAP's ordered policies) keeps its meaning in
 * Gatekeeper's fix-point only when one pass already is the fix-point (fixpoint-proof.ts); otherwise say why.
 */
function checkOnePass(planned: readonly Planned[], report: Reporter): void {
  const once = [...new Set(planned.map((p) => p.policy))].filter((p) => p.semantics.order !== 'fixpoint');
  if (once.length === 0) return;
  const ordered = [...planned].sort((a, b) => compareMutators({ kind: a.mutator.kind, name: a.name }, { kind: b.mutator.kind, name: b.name }));
  const problems = proveOnePass(
    ordered.map((p) => ({ op: p.op, tests: p.mutator.location.tests, id: `${p.mutator.kind}/${p.name}`, readsLabels: p.match?.labelSelector !== undefined, origin: p.origin })),
  );
  for (const p of once) {
    if (problems.length === 0) continue;
    report.push('TM4002', `policy ${p.id} runs ${p.semantics.order === 'ordered' ? 'once, in order' : 'its rules once, in order'}; Gatekeeper repeats every mutator until nothing changes, and one pass is not provably the fix-point: ${problems.map((x) => x.message).join('; ')}`, p.origin);
  }
}

function applyToEntries(applyTo: readonly JsonObject[]): ApplyToEntry[] {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return applyTo.map((a) => ({ groups: list(a.groups), versions: list(a.versions), kinds: list(a.kinds), operations: list(a.operations) }));
}

/** Gatekeeper's implied schema over the emitted set must disable exactly the policies the IR disabled. */
function checkSchema(planned: Planned[], report: Reporter): Planned[] {
  const entries: SchemaEntry[] = [];
  for (const p of planned) {
    if (!p.mutator.schema || !p.applyTo) continue;
    entries.push({ id: `${p.mutator.kind}/${p.name}`, location: p.mutator.location.nodes, applyTo: applyToEntries(p.applyTo), ...p.mutator.schema });
  }
  const conflicts = findSchemaConflicts(entries);
  return planned.filter((p) => {
    const conflict = conflicts.get(`${p.mutator.kind}/${p.name}`);
    if (conflict && !p.disabled) {
      report.cannot(`${locationText(p.mutator.location.nodes)} of ${p.policy.id} next to ${conflict.ids.join(', ')} (their locations conflict in Gatekeeper's implied schema, ${conflict.binding}, which disables all of them)`, p.origin);
      return false;
    }
    if (!conflict && p.disabled) {
      report.cannot(`the disabled policy ${p.policy.id} (a Gatekeeper mutator is disabled only by a schema conflict, and this one has none here)`, p.origin);
      return false;
    }
    return true;
  });
}

function documentOf(p: Planned): JsonObject {
  const spec: JsonObject = {};
  if (p.applyTo) spec.applyTo = p.applyTo;
  if (p.match) spec.match = p.match;
  Object.assign(spec, p.mutator.spec);
  return {
    apiVersion: `${MUTATIONS_GROUP}/${p.mutator.kind === 'AssignImage' ? 'v1alpha1' : 'v1'}`,
    kind: p.mutator.kind,
    metadata: { name: p.name },
    spec,
  };
}

export function generateGatekeeper(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new Reporter(opts.unsupported ?? 'error');
  const planned = plan(policies, report);
  assignNames(planned, report);
  checkOnePass(planned, report);
  const kept = checkSchema(planned, report);
  // Written in the order Gatekeeper runs them.
  kept.sort((a, b) => compareMutators({ kind: a.mutator.kind, name: a.name }, { kind: b.mutator.kind, name: b.name }));
  const documents = kept.map(documentOf);
  report.finish(documents.length, policies.length, policies[0]?.origin);
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: report.diagnostics };
}
