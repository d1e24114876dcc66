/**
 * Kyverno mutate-existing rules (`mutate.targets`, kyverno.md §1.13) written as MutatingPolicies that mutate
 * existing resources (`spec.evaluation.mutateExisting`). The Kyverno parser leaves these rules out of the
 * admission IR (they never change the request's object), so this generator reads them from the source
 * documents: each rule is cut out of its policy (a derived document whose spans point at the original rule)
 * and read with the Kyverno dialect's own readers (match, context, preconditions, patch), then compiled with
 * the Kyverno-to-CEL rule compiler in its mutate-existing scope (src/dialects/map/kyverno: `object` is the
 * target, Kyverno's `target`; `request.object` is the trigger, which Kyverno's CEL request carries).
 *
 * One rule, one MutatingPolicy (a NamespacedMutatingPolicy for a namespaced Policy), as the background
 * controller runs it (kyverno-mpol/mutate-existing.ts):
 * - matchConstraints: the trigger kinds and operations (the webhook that sees triggers; DELETE only when the
 *   rule names it, as Kyverno's mutate-existing handler skips DELETE otherwise);
 * - targetMatchConstraints: the target's group/version/resource, its exact name (resourceNames), its label
 *   selector (objectSelector); targetMatchConditions: what Kyverno decides per trigger and target:
 *   1. `has(request.requestKind)`: only an admission request (or the CLI's) triggers the rule. A
 *      MutatingPolicy is also run on every target when installed and at each background reconcile, with a
 *      request the controller makes up for the target (no requestKind); the Kyverno rule is not;
 *   2. the trigger: the rule's whole match as Kyverno reads it (map/match-cel.ts) over the trigger, because
 *      `kyverno test` evaluates a mutate-existing MutatingPolicy without matching the trigger;
 *   3. the target's namespace and name patterns (wildcards, variables) where resource rules cannot say them;
 *   4. the rule's preconditions (on the trigger), then the target's preconditions;
 * - variables: the rule's context entries, then the target's;
 * - mutations: the patch (one JSONPatch expression, or one per foreach entry), on an object of the target's
 *   kind only: `kyverno test` admits each test resource with every MutatingPolicy, targets or not.
 * Refused, with the reason: `mutateExistingOnPolicyUpdate` (cannot), several target specs, wildcard or
 * templated kinds and versions (cannot), patterns a target spec may hold that CEL conditions do not state
 * exactly (yet), and whatever the rule compiler refuses.
 */
import { parse as parseCel } from '../../cel/index.js';
import { homogenize } from '../../cel/homogeneous.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Origin } from '../../diagnostics/span.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { GvkPattern, MatchSpec } from '../../ir/match.js';
import type { Guard, LetOp, Op } from '../../ir/nodes.js';
import { remappedDoc, type SourceDoc, type YamlPath } from '../../io/source.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import { guessResource, lookupKind } from '../../k8s/resources.js';
import type { GenerateOptions } from '../dialect.js';
import { cannot, GenerationReport, isRefusal, notYet, type Refusal } from '../generate-report.js';
import { contextLets } from '../kyverno/context.js';
import { patchOnTarget } from '../kyverno/mutate-existing.js';
import { parseKyverno, recognizesKyverno } from '../kyverno/parse.js';
import { preconditionsGuard } from '../kyverno/preconditions.js';
import { Reader } from '../kyverno/reader.js';
import { freeIdentifiers, MPOL_TARGET } from '../map/cel-target.js';
import { celString, REQUEST_NAMESPACE } from '../map/emit-cel.js';
import { emitMatch } from '../map/emit-match.js';
import { slug } from '../map/emit-policies.js';
import { resourceRuleTest } from '../map/group-match.js';
import { and, paren, type Cel } from '../map/kyverno/cel-patch.js';
import { wildcardCel } from '../map/kyverno/pattern.js';
import { frag } from '../../lowering/jmes-cel/frag.js';
import { dynamicWildcardRegex } from '../../lowering/jmes-cel/wildcard.js';
import { bindLets, bodyPatches, guardToCel, RuleCompiler, type Named } from '../map/kyverno/rule.js';
import { kyvernoMatchCel } from '../map/match-cel.js';
import { MPOL_API_VERSIONS } from './generate.js';
import { DIALECT, GROUP } from './model.js';
import { existingMpolDocuments } from './existing-passthrough.js';

/** Why MutatingAdmissionPolicy has no translation of a mutate-existing rule. */
export const MAP_CANNOT_MUTATE_EXISTING =
  'MutatingAdmissionPolicy cannot express a rule that mutates existing resources (mutate.targets): it runs only at admission, on the object of the request';

/** The operations a mutate-existing rule without `operations` is triggered by (webhook default minus DELETE). */
const DEFAULT_TRIGGER_OPERATIONS = ['CREATE', 'UPDATE', 'CONNECT'];
const NO_AUTOGEN = { 'pod-policies.kyverno.io/autogen-controllers': 'none' };
const AT_HOLE = /\{\{\s*@\s*\}\}/;

type R<T> = T | Refusal;

const obj = (v: JsonValue | undefined): JsonObject | undefined => (isJsonObject(v) ? v : undefined);
const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** A Kyverno rule that mutates existing resources. */
export interface ExistingRule {
  doc: SourceDoc;
  index: number;
  rule: JsonObject;
}

function targetsOf(rule: JsonObject | undefined): JsonValue[] {
  const t = obj(rule?.mutate)?.targets;
  return Array.isArray(t) ? t : [];
}

/** The `mutate.targets` rules of the Kyverno documents among `docs`, in document and rule order. */
export function mutateExistingRules(docs: readonly SourceDoc[]): ExistingRule[] {
  const out: ExistingRule[] = [];
  for (const doc of docs) {
    if (!recognizesKyverno(doc)) continue;
    const rules = obj(obj(doc.value)?.spec)?.rules;
    if (!Array.isArray(rules)) continue;
    rules.forEach((raw, index) => {
      const rule = obj(raw);
      if (rule && targetsOf(rule).length > 0) out.push({ doc, index, rule });
    });
  }
  return out;
}

/** Whether the policy document has mutate rules other than `rule` (their own MutatingPolicy takes its name). */
function sharesPolicy(doc: SourceDoc, index: number): boolean {
  const rules = obj(obj(doc.value)?.spec)?.rules;
  return Array.isArray(rules) && rules.some((r, i) => i !== index && isJsonObject(r) && r.mutate !== undefined && r.mutate !== null);
}

/**
 * A document holding only `rule` (targets removed, so the Kyverno parser reads it), whose spans point at the
 * original rule: the rule's match and patch as the parser reads them.
 */
function derivedDoc(doc: SourceDoc, index: number, rule: JsonObject): SourceDoc {
  const policy = obj(doc.value)!;
  const metadata = obj(policy.metadata) ?? {};
  const value: JsonObject = {
    ...policy,
    kind: 'ClusterPolicy',
    metadata: { ...metadata, annotations: { ...(obj(metadata.annotations) ?? {}), ...NO_AUTOGEN } },
    spec: { ...(obj(policy.spec) ?? {}), rules: [rule] },
  };
  const at: YamlPath = ['spec', 'rules', index];
  const mapPath = (path: YamlPath): YamlPath => (path[0] === 'spec' && path[1] === 'rules' && path[2] === 0 ? [...at, ...path.slice(3)] : path);
  return remappedDoc(doc, value, mapPath);
}

/** `{{ … request.object … }}` read as `request.oldObject` (vars.go, for a DELETE request), everywhere in `v`. */
function onDelete(v: JsonValue): JsonValue {
  if (typeof v === 'string') return v.replace(/\{\{[\s\S]*?\}\}/g, (hole) => hole.replaceAll('request.object', 'request.oldObject'));
  if (Array.isArray(v)) return v.map(onDelete);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: onDelete(v[k]!), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/** Every operation a match block names, or undefined for none; a refusal when alternatives disagree. */
function triggerOperations(m: MatchSpec): R<string[]> {
  const anyOps = (m.any ?? []).map((c) => c.operations);
  const allOps = (m.all ?? []).map((c) => c.operations).filter((x): x is string[] => x !== undefined);
  if (anyOps.length > 1 && anyOps.some((o) => JSON.stringify(o ?? null) !== JSON.stringify(anyOps[0] ?? null))) {
    return notYet('a mutate-existing rule whose alternative match clauses name different operations');
  }
  let ops: string[] | undefined = anyOps[0];
  for (const o of allOps) ops = ops ? ops.filter((x) => o.includes(x)) : [...o];
  return ops ?? DEFAULT_TRIGGER_OPERATIONS;
}

/** The trigger's kinds (every clause), for the webhook's resource rules. */
function triggerKinds(m: MatchSpec): GvkPattern[] {
  const out: GvkPattern[] = [];
  for (const c of [...(m.any ?? []), ...(m.all ?? [])]) for (const k of c.kinds ?? []) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(k))) out.push(k);
  return out;
}

/** `text` with the free identifiers of `renames` replaced (CEL read by the rule compiler, so it parses). */
function renameFree(text: Cel, renames: ReadonlyMap<string, string>): Cel {
  const parsed = parseCel(text);
  if (!parsed.ok) return text;
  let out = '';
  let at = 0;
  for (const id of freeIdentifiers(parsed.value).sort((a, b) => a.start - b.start)) {
    const to = renames.get(id.name);
    if (to === undefined) continue;
    out += text.slice(at, id.start) + to;
    at = id.end;
  }
  return out + text.slice(at);
}

/** A name or namespace of a target spec: where Kyverno's listing is exact in resource rules, or a CEL test. */
interface PatternOut {
  /** An exact value (resourceNames / GET). */
  exact?: string;
  /** A condition on the target, when the pattern is not exact. */
  test?: Cel;
  /** The pattern may be empty at run time (a variable): Kyverno then lists every name / namespace. */
  dynamic: boolean;
}

/** Variables that hold names Kubernetes validates (no `*` or `?` can be in them). */
const NAME_VARIABLE = /^\{\{-?\s*(request\.(object|oldObject)\.metadata\.(name|namespace)|request\.(name|namespace))\s*\}\}$/;

function patternOf(rc: RuleCompiler, subject: Cel, pattern: string | undefined, what: string): R<PatternOut> {
  if (pattern === undefined || pattern === '') return { dynamic: false };
  if (!pattern.includes('{{')) {
    if (!/[*?]/.test(pattern)) return { exact: pattern, dynamic: false };
    return { test: wildcardCel(subject, pattern), dynamic: false };
  }
  // Kyverno substitutes the variable, then matches the result as a wildcard pattern (dclient GetResources:
  // a GET where neither holds a wildcard, else a listing filtered by wildcard.Match): a value that cannot hold
  // wildcards (an object's name or namespace) is a plain comparison, any other is matched at run time.
  const value = rc.template(pattern.trim());
  if (isRefusal(value)) return value;
  const matched = NAME_VARIABLE.test(pattern.trim()) ? `${subject} == ${paren(value)}` : `${subject}.matches(${dynamicWildcardRegex(frag(paren(value), 'string'))})`;
  // An empty value lists every name / namespace (dclient GetResources `match`).
  return { test: `${paren(value)} == "" || ${matched}`, dynamic: true };
}

interface Emitted {
  document: JsonObject;
  notes: { message: string; origin: Origin }[];
}

/** One mutate-existing rule as one MutatingPolicy document, or why not. */
function emitRule(er: ExistingRule, apiVersion: string, diagnostics: Diagnostic[]): Emitted | (Refusal & { origin: Origin }) {
  const { doc, index } = er;
  const at: YamlPath = ['spec', 'rules', index];
  const origin = (path: YamlPath): Origin => ({ ...doc.spanOf(path), dialect: 'kyverno' });
  const refuse = (r: Refusal, path: YamlPath = at) => ({ ...r, origin: origin(path) });
  const policy = obj(doc.value)!;
  const spec = obj(policy.spec) ?? {};
  const policyName = str(obj(policy.metadata)?.name) ?? '';
  const namespaced = policy.kind === 'Policy';
  const policyNamespace = namespaced ? (str(obj(policy.metadata)?.namespace) ?? 'default') : undefined;
  const ruleName = str(er.rule.name) ?? '';
  const mutate = obj(er.rule.mutate)!;

  const onUpdate = typeof mutate.mutateExistingOnPolicyUpdate === 'boolean' ? mutate.mutateExistingOnPolicyUpdate : spec.mutateExistingOnPolicyUpdate === true;
  if (onUpdate) {
    return refuse(
      cannot(
        'mutateExistingOnPolicyUpdate: Kyverno runs the rule for every existing trigger when the policy is created or updated and at each background reconcile (pkg/policy handleMutate, requeuePolicies); a MutatingPolicy runs then either without any trigger, on each target with a request the background controller makes up for it, or, with a targetMatchConstraints expression, once per existing trigger on policy events but never at a reconcile',
      ),
      [...at, 'mutate', 'mutateExistingOnPolicyUpdate'],
    );
  }
  const targets = targetsOf(er.rule);
  if (targets.length !== 1) return refuse(notYet(`${targets.length} target specs in one rule (each lists and patches its own targets)`), [...at, 'mutate', 'targets']);
  const tAt: YamlPath = [...at, 'mutate', 'targets', 0];
  const target = obj(targets[0]);
  if (!target) return refuse(notYet('a target spec that is not a mapping'), tAt);
  // `{{@}}` in the strategic merge patch reads the target, the MutatingPolicy's `object` (as the engine reads it).
  const onTarget = patchOnTarget(er.rule);
  if (AT_HOLE.test(JSON.stringify(onTarget))) return refuse(notYet('{{@}} in a mutate-existing rule other than in its patchStrategicMerge'), at);
  for (const k of Object.keys(target)) {
    if (!['apiVersion', 'kind', 'name', 'namespace', 'selector', 'context', 'preconditions'].includes(k)) return refuse(notYet(`the target field ${k}`), [...tAt, k]);
  }
  const apiVersion0 = str(target.apiVersion) ?? '';
  const kind = str(target.kind) ?? '';
  if (kind === '' || apiVersion0 === '') return refuse(notYet('a target without apiVersion or kind'), tAt);
  if (`${apiVersion0}${kind}`.includes('{{')) return refuse(cannot('a target kind or apiVersion from a variable (targetMatchConstraints resource rules are fixed)'), tAt);
  if (/[*?]/.test(apiVersion0 + kind)) {
    return refuse(cannot(`the target ${apiVersion0} ${kind}: Kyverno resolves wildcards in a target's apiVersion and kind through discovery at run time; targetMatchConstraints resource rules go through the REST mapper, which resolves no wildcard`), tAt);
  }
  if (kind.includes('/')) return refuse(notYet(`the target subresource ${kind}`), [...tAt, 'kind']);
  const slash = apiVersion0.indexOf('/');
  const group = slash < 0 ? '' : apiVersion0.slice(0, slash);
  const version = slash < 0 ? apiVersion0 : apiVersion0.slice(slash + 1);
  const info = lookupKind(group, kind);
  const resource = info?.resource ?? guessResource(kind);
  const notes: Emitted['notes'] = [];
  if (namespaced && str(obj(policy.metadata)?.namespace) === undefined) {
    notes.push({
      message: `Policy ${policyName} names no namespace: Kyverno applies it in the namespace it is created in, while the MutatingPolicy of its rule ${ruleName} is written for namespace "default" (its metadata and the namespaces its CEL compares), where the source lands when created without a namespace`,
      origin: origin(['metadata']),
    });
  }
  if (!info) notes.push({ message: `target kind ${kind} of ${apiVersion0} is not a built-in kind: its resource is taken to be "${resource}" (apimachinery's guess); a custom resource with another plural is not found`, origin: origin([...tAt, 'kind']) });

  // The rule's operations decide how `request.object` reads on a DELETE trigger.
  const derived = derivedDoc(doc, index, withoutTargets(onTarget));
  const parsed = parseKyverno([derived]);
  diagnostics.push(...parsed.diagnostics);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) return refuse(notYet('a rule the Kyverno dialect rejects'));
  const irRule = parsed.policies[0]?.rules[0];
  if (!irRule?.match) return refuse(notYet('a rule without a match'), [...at, 'match']);
  const ops = triggerOperations(irRule.match);
  if (isRefusal(ops)) return refuse(ops, [...at, 'match']);
  const deletes = ops.includes('DELETE');
  if (deletes && ops.length > 1 && JSON.stringify(onTarget).includes('request.object')) {
    return refuse(notYet('request.object in a rule triggered by DELETE and other operations (Kyverno reads request.oldObject in its place on DELETE only)'), [...at, 'match']);
  }
  // On DELETE Kyverno reads request.oldObject wherever a variable says request.object (vars.go).
  const rule = deletes ? (onDelete(onTarget) as JsonObject) : onTarget;
  const source: SourceDoc = deletes ? { ...doc, value: withRule(policy, index, rule) } : doc;
  const work = deletes ? parseKyverno([derivedDoc(source, index, withoutTargets(rule))]).policies[0]?.rules[0] : irRule;
  if (!work) return refuse(notYet('a rule the Kyverno dialect rejects'));

  // The compiler: `object` is the target, `request.object` the trigger; the rule's then the target's context.
  const targetMatch: MatchSpec = { globs: 'wildcard', any: [{ kinds: [{ group, version, kind }] }] };
  const rc = new RuleCompiler({ target: MPOL_TARGET, match: targetMatch, variables: [], mutateExisting: true });
  const reader = new Reader(source);
  const lets: LetOp[] = [...contextLets(reader, [...at, 'context'], () => undefined, diagnostics), ...contextLets(reader, [...tAt, 'context'], () => undefined, diagnostics)];
  const bound = bindLets(rc, lets);
  if (isRefusal(bound)) return refuse(bound, [...at, 'context']);

  const conditions: Named[] = [{ name: 'admission-trigger', expression: 'has(request.requestKind)' }];
  // The trigger as Kyverno matches it (on DELETE, the deleted object).
  const trigger = kyvernoMatchCel(irRule.match, 'kyverno-mpol');
  if (isRefusal(trigger)) return refuse(trigger, [...at, 'match']);
  const subject = !deletes ? 'request.object' : ops.length === 1 ? 'request.oldObject' : '(request.operation == "DELETE" ? request.oldObject : request.object)';
  // A trigger namespaceSelector reads the trigger's Namespace, which the target's evaluation does not carry
  // (its namespaceObject is the target's): read from the cluster, none for a cluster-scoped trigger.
  const triggerNamespace = `(${REQUEST_NAMESPACE} == "" ? null : resource.Get("v1", "namespaces", "", ${REQUEST_NAMESPACE}))`;
  const renames = new Map([
    ['object', subject],
    ['namespaceObject', triggerNamespace],
  ]);
  const triggerTest = and([policyNamespace !== undefined ? `${REQUEST_NAMESPACE} == ${celString(policyNamespace)}` : undefined, trigger === 'true' ? undefined : renameFree(trigger, renames)]);
  if (triggerTest) conditions.push({ name: 'trigger', expression: triggerTest });

  // The target's namespace and name, as dclient GetResources lists them; a namespaced Policy lists its own.
  const t = obj(targetsOf(rule)[0])!;
  const namespace = patternOf(rc, 'object.metadata.?namespace.orValue("")', policyNamespace ?? str(t.namespace), 'namespace');
  if (isRefusal(namespace)) return refuse(namespace, [...tAt, 'namespace']);
  const name = patternOf(rc, 'object.metadata.name', str(t.name), 'name');
  if (isRefusal(name)) return refuse(name, [...tAt, 'name']);
  const selector = obj(t.selector);
  if (selector && JSON.stringify(selector).includes('{{')) return refuse(cannot('a target label selector from variables (targetMatchConstraints.objectSelector is fixed)'), [...tAt, 'selector']);
  // A name and a namespace without wildcards are fetched (GET): the selector is not consulted then.
  const named = name.exact !== undefined || (name.test !== undefined && name.dynamic);
  const inNamespace = namespace.exact !== undefined || (namespace.test !== undefined && namespace.dynamic);
  const fetched = name.exact !== undefined && namespace.exact !== undefined;
  if (selector && named && inNamespace && !fetched) {
    return refuse(notYet('a target selector with a name and a namespace from a variable (Kyverno consults the selector only when one of them is empty)'), [...tAt, 'selector']);
  }
  if (namespace.exact !== undefined) conditions.push({ name: 'target-namespace', expression: `object.metadata.?namespace.orValue("") == ${celString(namespace.exact)}` });
  if (namespace.test !== undefined) conditions.push({ name: 'target-namespace', expression: namespace.test });
  if (name.test !== undefined) conditions.push({ name: 'target-name', expression: name.test });

  // Preconditions: the rule's on the trigger, then the target's.
  const rulePre = preconditionsGuard(reader, [...at, 'preconditions'], diagnostics);
  const targetPre = preconditionsGuard(reader, [...tAt, 'preconditions'], diagnostics);
  for (const [guard, cname, path] of [
    [rulePre, 'preconditions', [...at, 'preconditions']],
    [targetPre, 'target-preconditions', [...tAt, 'preconditions']],
  ] as [Guard | undefined, string, YamlPath][]) {
    if (!guard) continue;
    const c = guardToCel(rc, guard);
    if (isRefusal(c)) return refuse(c, path);
    conditions.push({ name: cname, expression: c });
  }

  // The patch: the body after the context entries the parser put first (none: context is bound above).
  // Each mutation writes only an object of the target's kind: `kyverno test` also admits each resource with
  // every MutatingPolicy, targets or not (engine Handle), which would apply the patch to the trigger.
  const body = work.body.filter((op) => op.kind !== 'let' || op.name.startsWith('$'));
  const ofTargetKind = `object.apiVersion == ${celString(apiVersion0)} && object.kind == ${celString(kind)}`;
  const mutations: JsonObject[] = [];
  for (const group of patchGroups(body)) {
    const p = bodyPatches(rc, group, rc.scope);
    if (isRefusal(p)) return refuse(p, [...at, 'mutate']);
    if (p !== '[]') mutations.push({ patchType: 'JSONPatch', jsonPatch: { expression: homogenize(`${ofTargetKind} ? ${paren(p)} : []`) } });
  }
  if (mutations.length > 1 && rc.variables.some((v) => /\bobject\b/.test(v.expression.replaceAll('request.object', '')))) {
    return refuse(notYet('several foreach entries with context that reads the target (each entry sees what the one before wrote)'), [...at, 'mutate']);
  }
  if (mutations.length === 0) return refuse(notYet('a mutate-existing rule whose patch writes nothing'), [...at, 'mutate']);
  for (const n of rc.notes) notes.push({ message: n, origin: origin(at) });

  // The webhook that sees triggers: the rule's kinds and operations (the trigger condition decides the rest).
  const kinds = triggerKinds(irRule.match);
  const emitted = emitMatch({ globs: 'wildcard', ...(kinds.length > 0 ? { any: [{ kinds }] } : {}) });
  if (typeof emitted === 'string' || isRefusal(emitted)) return refuse(typeof emitted === 'string' ? notYet(emitted) : emitted, [...at, 'match']);
  const matchConstraints = obj(JSON.parse(JSON.stringify(emitted.matchConstraints)) as JsonValue)!;
  for (const r of (matchConstraints.resourceRules as JsonObject[]) ?? []) r.operations = [...ops];
  const matchConditions: Named[] = [];
  if (emitted.bindingMatch) {
    const tests = ((emitted.bindingMatch.resourceRules as JsonObject[] | undefined) ?? []).map((r) => resourceRuleTest({ ...r, operations: ['*'] }));
    matchConditions.push({ name: 'resources', expression: tests.length === 1 ? tests[0]! : tests.map((t) => `(${t})`).join(' || ') });
  }

  const targetRule: JsonObject = { apiGroups: [group], apiVersions: [version], resources: [resource], operations: ['*'] };
  if (name.exact !== undefined) targetRule.resourceNames = [name.exact];
  const targetMatchConstraints: JsonObject = { resourceRules: [targetRule] };
  if (selector && !fetched) targetMatchConstraints.objectSelector = selector;

  const out: JsonObject = { mutateExisting: { enabled: true } };
  if (spec.skipBackgroundRequests === false) out.skipBackgroundRequests = false;
  const mpolSpec: JsonObject = { evaluation: out, matchConstraints };
  // Kyverno compiles with HomogeneousAggregateLiterals: mixed literal members are wrapped in dyn().
  if (matchConditions.length > 0) mpolSpec.matchConditions = matchConditions.map((c) => ({ ...c, expression: homogenize(c.expression) }));
  if (rc.variables.length > 0) mpolSpec.variables = rc.variables.map((v) => ({ ...v, expression: homogenize(v.expression) }));
  mpolSpec.targetMatchConstraints = targetMatchConstraints;
  mpolSpec.targetMatchConditions = conditions.map((c) => ({ ...c, expression: homogenize(c.expression) }));
  mpolSpec.mutations = mutations;
  mpolSpec.failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
  // Kyverno would add Pod-controller variants to a policy matching exactly Pods; they would run on every target.
  if (autogenEligible(matchConstraints)) mpolSpec.autogen = { podControllers: { controllers: [] } };
  const mpolName = sharesPolicy(doc, index) ? slug(`${policyName}-${ruleName}`) : policyName;
  const metadata: JsonObject = policyNamespace !== undefined ? { name: mpolName, namespace: policyNamespace } : { name: mpolName };
  return { document: { apiVersion, kind: policyNamespace !== undefined ? 'NamespacedMutatingPolicy' : 'MutatingPolicy', metadata, spec: mpolSpec }, notes };
}

function withoutTargets(rule: JsonObject): JsonObject {
  const { targets: _t, mutateExistingOnPolicyUpdate: _u, ...mutate } = obj(rule.mutate) ?? {};
  const { context: _c, preconditions: _p, ...rest } = rule;
  return { ...rest, mutate };
}

function withRule(policy: JsonObject, index: number, rule: JsonObject): JsonObject {
  const spec = obj(policy.spec) ?? {};
  const rules = Array.isArray(spec.rules) ? [...spec.rules] : [];
  rules[index] = rule;
  return { ...policy, spec: { ...spec, rules } };
}

/** The body's patch ops, one group per mutation (a `let $patch` stays with the JSON patch that follows it). */
function patchGroups(body: readonly Op[]): Op[][] {
  const out: Op[][] = [];
  for (let i = 0; i < body.length; i++) {
    const op = body[i]!;
    if (op.kind === 'let' && body[i + 1]) {
      out.push([op, body[i + 1]!]);
      i++;
    } else out.push([op]);
  }
  return out;
}

/** Whether Kyverno would autogen the policy: its matchConstraints are exactly core v1 pods (autogen.go). */
function autogenEligible(m: JsonObject): boolean {
  const rules = m.resourceRules as JsonObject[] | undefined;
  if (!rules || rules.length !== 1 || m.excludeResourceRules || m.namespaceSelector || m.objectSelector) return false;
  const r = rules[0]!;
  const one = (xs: JsonValue | undefined, v: string) => Array.isArray(xs) && xs.length === 1 && xs[0] === v;
  return !r.resourceNames && one(r.apiGroups, '') && one(r.apiVersions, 'v1') && one(r.resources, 'pods');
}

export interface ExistingGeneration {
  documents: JsonObject[];
  text: string;
  diagnostics: Diagnostic[];
  /** The mutate-existing rules found (translated or refused). */
  rules: number;
  /** The rule each document of `documents` was written for, by the document (a MutatingPolicy passed through has none). */
  ruleOf: ReadonlyMap<JsonObject, string>;
}

/**
 * The mutate-existing rules of the Kyverno documents among `docs` as MutatingPolicies. Refusals and notes go
 * to the diagnostics with the rule's place, under the `--unsupported` level of `opts`.
 */
export function generateMutateExistingMpol(docs: readonly SourceDoc[], opts: GenerateOptions = {}): ExistingGeneration {
  const report = new GenerationReport('Kyverno MutatingPolicy', DIALECT, opts.unsupported ?? 'error');
  const apiVersion = `${GROUP}/${opts.apiVersion ?? MPOL_API_VERSIONS[0]}`;
  const rules = mutateExistingRules(docs);
  const documents: JsonObject[] = [];
  const diagnostics: Diagnostic[] = [];
  const ruleOf = new Map<JsonObject, string>();
  for (const er of rules) {
    const e = emitRule(er, apiVersion, diagnostics);
    const context = `rule ${str(er.rule.name) || '(unnamed)'} of policy ${str(obj(obj(er.doc.value)?.metadata)?.name) ?? ''}`;
    if ('why' in e) {
      report.refuse(e, e.origin, context);
      continue;
    }
    for (const n of e.notes) report.lossy('TM4003', n.message, n.origin);
    documents.push(e.document);
    ruleOf.set(e.document, str(er.rule.name) ?? '');
  }
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: [...diagnostics, ...report.diagnostics], rules: rules.length, ruleOf };
}

const TARGET_LABELS: Record<string, string> = { map: 'MutatingAdmissionPolicy', gatekeeper: 'Gatekeeper', kyverno: 'Kyverno', ir: 'the IR' };

/**
 * The Kyverno mutate-existing rules among `docs` written in dialect `to` (and the MutatingPolicies that mutate
 * existing resources, existing-passthrough.ts), for whoever translates documents
 * (translate, migrate, conformance `--via`): MutatingPolicies for `kyverno-mpol`; for MAP and Gatekeeper, which
 * mutate only the object of an admission request, a `cannot` refusal per rule; a `yet` for the others. Empty
 * when `docs` hold no such rule. The admission IR never holds these rules (src/dialects/kyverno/parse.ts).
 */
export function translateMutateExistingRules(docs: readonly SourceDoc[], to: string, opts: GenerateOptions = {}): ExistingGeneration {
  const own = existingMpolDocuments(docs, to, { ...(opts.unsupported ? { unsupported: opts.unsupported } : {}), apiVersion: opts.apiVersion ?? MPOL_API_VERSIONS[0]! });
  const rules = translateKyvernoExistingRules(docs, to, opts);
  if (own.policies === 0) return rules;
  const documents = [...rules.documents, ...own.documents];
  return { documents, text: documents.length > 0 ? toYamlDocuments(documents) : '', diagnostics: [...rules.diagnostics, ...own.diagnostics], rules: rules.rules + own.policies, ruleOf: rules.ruleOf };
}

function translateKyvernoExistingRules(docs: readonly SourceDoc[], to: string, opts: GenerateOptions): ExistingGeneration {
  if (to === DIALECT) return generateMutateExistingMpol(docs, opts);
  const rules = mutateExistingRules(docs);
  const report = new GenerationReport(TARGET_LABELS[to] ?? to, to, opts.unsupported ?? 'error');
  for (const er of rules) {
    const name = str(er.rule.name) || '(unnamed)';
    const policy = str(obj(obj(er.doc.value)?.metadata)?.name) ?? '';
    const origin: Origin = { ...er.doc.spanOf(['spec', 'rules', er.index, 'mutate', 'targets']), dialect: 'kyverno' };
    if (to === 'map') report.refuse(cannot('a rule that mutates existing resources (mutate.targets): it runs only at admission, on the object of the request'), origin, `rule ${name} of policy ${policy}`);
    else if (to === 'gatekeeper') report.refuse(cannot('a rule that mutates existing resources (mutate.targets): Gatekeeper mutates only the object of an admission request'), origin, `rule ${name} of policy ${policy}`);
    else report.refuse(notYet('a rule that mutates existing resources (mutate.targets)'), origin, `rule ${name} of policy ${policy}`);
  }
  return { documents: [], text: '', diagnostics: report.diagnostics, rules: rules.length, ruleOf: new Map() };
}
