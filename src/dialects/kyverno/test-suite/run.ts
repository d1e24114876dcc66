/**
 * Runs a loaded `kyverno-test.yaml` as `kyverno test` does (commands/test: runTest, printTestResult,
 * checkResult, lookupEngineResponses, lookupRuleResponses): each policy is applied to each resource after the
 * policies before it, with the suite's PolicyExceptions, and each result entry is checked, per resource it
 * names, for the rule's result (pass / skip / fail / error) and the patched resource, as ./verdict.ts says.
 * A rule name also stands for its `autogen-` and `autogen-cronjob-` rules.
 *
 * Rows of validate, generate and verifyImages rules are `skipped`: not run (transmute runs mutations), with
 * the reason; they neither pass nor fail.
 *
 * Unlike the CLI, a resource that is not in the test, a policy that is not there or did not parse, and a rule
 * the policy does not have fail with that reason. With `asKyvernoTest` (the `transmute test` command) a rule
 * that matched nothing passes as "Excluded" and a MutatingPolicy or MAP that ran without changing anything is
 * `pass`; otherwise (transmute migrate's proof, which compares a rule with its translation) an excluded row
 * passes only when `skip` was expected and an unchanged CEL policy is `skip`, as a mutate rule is. A rule the
 * policy does not have is then "Excluded" too, for a resource of the test: the CLI finds the policy's
 * response for the resource (every policy answers every resource) and no rule response of that name in it
 * (printTestResult), and passes the row; the reason names the missing rule.
 */
import { impliedBindingDocs } from '../../map/implied-binding.js';
import { kyvernoRequest, withDefaultNamespace } from './request.js';
import { hasErrors, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../../../diagnostics/render.js';
import { apply } from '../../../interpreter/index.js';
import type { ApplyResult } from '../../../interpreter/api.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import { dialectFor } from '../../registry.js';
import { checkPatched, findPatched } from './compare.js';
import { readSuiteDocs } from './files.js';
import { mockedContextValues } from './mocked-context.js';
import { checkMpolMutateExisting, checkMpolTrigger, checkMutateExisting, runMutateExistingRule } from './mutate-existing.js';
import { objectsProvider } from '../../kyverno-mpol/mutate-existing.js';
import { clusterRuntime } from './cluster-resources.js';
import { globalContextOf } from './global-context.js';
import { cliTestTargets, cliTrigger, targetIdentity } from '../../kyverno-mpol/mutate-existing-cli.js';
import { mutatesExisting } from '../../kyverno-mpol/recognize.js';
import type { AdmissionRequest } from '../../../k8s/request.js';
import { deriveRuntime, type Runtime } from '../../../runtime/runtime.js';
import { createRuntime } from '../../../runtime/create.js';
import type { RowStatus, SuiteResult, SuiteRow, TestSuite } from './model.js';
import { findResource, kindOf, metadataOf, policyChain, resourceLabel, splitRef } from './select.js';
import { admitDocs, type ValidateMode } from '../../../validate/admit.js';
import { applyingExceptions, exemptingKeys, isKyvernoException, readExceptions, withExemptions, type KyvernoException } from './exceptions.js';
import { judge, ruleResponse, type PatchedState, type Verdict } from './verdict.js';

/** `targets`: the IR policies of the entry's policy (a MutatingAdmissionPolicy gives one per binding). */
type Prepared = { ok: true; policies: Policy[]; targets: Policy[]; doc: SourceDoc; dialect: string } | { ok: false; reason: string; notRun?: boolean };

export interface RunOptions {
  /** Judge as `kyverno test` does: a rule that matches nothing is an "Excluded" pass. */
  asKyvernoTest?: boolean;
  /** The runtime every policy runs with (the suite's cluster data is added where a policy reads it); default: createRuntime(). */
  runtime?: Runtime;
}

/** Runs every result entry of the suite; one row per entry and resource, in file order. */
export function runTestSuite(suite: TestSuite, validate: ValidateMode = 'strict', options: RunOptions = {}): SuiteRow[] {
  let runtime = options.runtime;
  // The suite's Context file images serve the image registry reads of its policies.
  if (suite.imageData) runtime = deriveRuntime(runtime ?? createRuntime(), { imageData: suite.imageData });
  if (suite.hasClusterResources) {
    const cluster = clusterRuntime(runtime ?? createRuntime(), fakeCluster(suite), suite.clusterCrds);
    if (!cluster.ok) return suite.results.map((entry) => failedEntry(suite, entry, `cluster resources: ${firstError(cluster.diagnostics)}`));
    runtime = cluster.value;
  } else if (runtime?.kyvernoData === undefined) {
    // kyverno test's fake context provider: the Context file's objects and the test's globalContextEntries (an
    // entry the test does not define reads as null).
    const objectsRead = suite.contextResources.length > 0 ? objectsProvider(suite.contextResources) : {};
    runtime = deriveRuntime(runtime ?? createRuntime(), { kyvernoData: { ...objectsRead, globalContext: globalContextOf(suite.globalContext) } });
  }
  const run = new SuiteRun(suite, validate, runtime ? { ...options, runtime } : options);
  return suite.results.flatMap((entry) => run.entryRows(entry));
}

/** One failed row for the whole entry. */
function failedEntry(suite: TestSuite, entry: SuiteResult, reason: string): SuiteRow {
  return { file: suite.file, policy: entry.policy, rule: entry.rule ?? '', resource: resourceLabel(entry.kind, entry.resources.join(', ')), status: 'failed', reason };
}

/** An applied chain: the interpreter's result and the PolicyExceptions that exempted rules of it. */
type Applied = { result: ApplyResult; exceptions: KyvernoException[] };

class SuiteRun {
  private readonly prepared = new Map<string, Prepared>();
  private readonly applied = new Map<string, Applied>();
  private readonly resources: JsonObject[];
  private readonly targets: JsonObject[];
  private readonly values: JsonObject | undefined;
  private readonly exceptions: { exceptions: KyvernoException[]; problem?: string };

  constructor(
    private readonly suite: TestSuite,
    private readonly validate: ValidateMode,
    private readonly options: RunOptions,
  ) {
    this.resources = objects(suite.resources);
    this.targets = objects(suite.targetResources);
    this.values = mockedContextValues(suite, fakeCluster(suite));
    const read = readExceptions(suite.exceptions, suite.file);
    this.exceptions = { exceptions: read.exceptions, ...(hasErrors(read.diagnostics) ? { problem: `a PolicyException of the test cannot be read: ${firstError(read.diagnostics)}` } : {}) };
  }

  entryRows(entry: SuiteResult): SuiteRow[] {
    const rule = entry.rule ?? '';
    const row = (resource: string, status: RowStatus, reason: string, diff?: string): SuiteRow => ({
      file: this.suite.file,
      policy: entry.policy,
      rule,
      resource,
      status,
      reason,
      ...(diff ? { diff } : {}),
    });
    // Without `resources`, every resource of the entry's kind is checked (none at all is a failure).
    const refs = entry.resources.length > 0 ? entry.resources : this.resources.filter((o) => entry.kind === '' || kindOf(o) === entry.kind).map(refOf);
    if (refs.length === 0) {
      // A policy transmute does not run is not run, whatever it is checked on (a ValidatingPolicy's JSON payload).
      const prepared = this.prepare(entry.policy);
      if (!prepared.ok && prepared.notRun) return [row(entry.kind, 'skipped', prepared.reason)];
      return [row(entry.kind, 'failed', `the result names no resource and the test has no ${entry.kind || 'resource'}`)];
    }
    if (this.mpolMutatesExisting(entry)) return this.mpolExistingRows(entry, row);
    if (this.exceptions.problem) return refs.map((r) => row(resourceLabel(entry.kind, r), 'failed', this.exceptions.problem!));
    const prepared = this.prepare(entry.policy);
    if (!prepared.ok) return refs.map((r) => row(resourceLabel(entry.kind, r), prepared.notRun ? 'skipped' : 'failed', prepared.reason));
    if (hasTargets(prepared.doc, rule)) return this.mutateExistingRows(entry, refs, row);
    // An entry without a rule checks every rule of the policy (as for a rule-less policy).
    const names = entry.ruleless || rule === '' ? undefined : [rule, `autogen-${rule}`, `autogen-cronjob-${rule}`];
    if (names) {
      const missing = missingRule(prepared, rule, names);
      if (missing?.absent && this.options.asKyvernoTest === true) {
        return refs.map((r) => {
          const found = findResource(this.resources, entry.kind, r) !== undefined;
          const label = resourceLabel(entry.kind, r);
          return found ? row(label, 'passed', `Excluded: ${missing.reason} (kyverno test finds no response of it)`) : row(label, 'failed', resourceNotFound(entry.kind, r));
        });
      }
      if (missing) return refs.map((r) => row(resourceLabel(entry.kind, r), missing.notRun ? 'skipped' : 'failed', missing.reason));
    }
    return refs.map((ref) => {
      const label = resourceLabel(entry.kind, ref);
      const checked = this.check(entry, prepared, names, ref);
      return row(label, checked.status, checked.reason, checked.diff);
    });
  }

  /** Whether the entry's policy is a MutatingPolicy that mutates existing resources, in a test with targets. */
  private mpolMutatesExisting(entry: SuiteResult): boolean {
    if (this.targets.length === 0) return false;
    const doc = policyChain(this.suite.policies, entry.policy)?.filter((d) => !kindOf(d.value).endsWith('Binding')).pop();
    return doc !== undefined && mutatesExisting(doc);
  }

  /**
   * Rows of a mutate-existing MutatingPolicy, as the CLI runs it (kyverno-mpol/mutate-existing.ts): each
   * resource of the test is admitted by every MutatingPolicy (`cliTrigger`) and then runs them on the targets
   * (`cliTestTargets`). A target is checked on its responses, a resource on its admission; without
   * `resources`, every resource and every target a response carries is checked.
   */
  private mpolExistingRows(entry: SuiteResult, row: (resource: string, status: RowStatus, reason: string, diff?: string) => SuiteRow): SuiteRow[] {
    const triggers: { object: JsonObject; request: AdmissionRequest }[] = [];
    const fail = (reason: string): SuiteRow[] => [row(resourceLabel(entry.kind, entry.resources.join(', ')), 'failed', reason)];
    for (const object of this.resources) {
      const request = kyvernoRequest(object, { values: this.values, userInfo: this.suite.userInfo, policy: entry.policy });
      if (typeof request === 'string') return fail(request);
      triggers.push({ object, request });
    }
    const docs = [...this.suite.policies, ...this.suite.exceptions];
    const cluster = clusterExtras(this.suite);
    const responses = cliTestTargets(docs, triggers, this.targets, cluster, this.options.runtime);
    if (typeof responses === 'string') return fail(responses);
    let patched: { name: string; docs: SourceDoc[] } | undefined;
    if (entry.patchedResources) {
      const read = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
      if (!read.ok) return fail(`patched resource: ${firstError(read.diagnostics)}`);
      patched = { name: entry.patchedResources, docs: read.value };
    }
    const provider = objectsProvider(fakeCluster(this.suite));
    const triggerCheck = (trigger: { object: JsonObject; request: AdmissionRequest }) => checkMpolTrigger(cliTrigger(docs, trigger.request, provider, this.options.runtime), entry.policy, entry.result, patched);
    if (entry.resources.length === 0) {
      // Every resource, each standing also for the targets its run reached (the CLI checks those too).
      return this.resources
        .filter((o) => entry.kind === '' || kindOf(o) === entry.kind)
        .map((object) => {
          const label = resourceLabel(entry.kind, refOf(object));
          const trigger = triggers.find((t) => t.object === object)!;
          const own = triggerCheck(trigger);
          if (own.status === 'failed') return row(label, own.status, own.reason, own.diff);
          for (const target of this.targets) {
            const reached = (responses.get(targetIdentity(target)) ?? []).filter((r) => r.trigger === object);
            if (!reached.some((r) => r.patched !== undefined)) continue;
            const c = checkMpolMutateExisting(reached, entry.result, patched);
            if (c.status === 'failed') return row(label, c.status, `target ${resourceLabel(kindOf(target), refOf(target))}: ${c.reason}`, c.diff);
          }
          return row(label, own.status, own.reason, own.diff);
        });
    }
    return entry.resources.map((ref) => {
      const label = resourceLabel(entry.kind, ref);
      const target = findResource(this.targets, entry.kind, ref);
      if (target) {
        const c = checkMpolMutateExisting(responses.get(targetIdentity(target)) ?? [], entry.result, patched);
        return row(label, c.status, c.reason, c.diff);
      }
      const object = findResource(this.resources, entry.kind, ref);
      const trigger = triggers.find((t) => t.object === object);
      if (!trigger) return row(label, 'failed', `resource not found: no ${entry.kind || 'resource'} ${ref} among the test's resources or targetResources`);
      const c = triggerCheck(trigger);
      return row(label, c.status, c.reason, c.diff);
    });
  }

  /** Rows of a `mutate.targets` rule: triggers run over `targetResources` (see ./mutate-existing.ts). */
  private mutateExistingRows(entry: SuiteResult, refs: readonly string[], row: (resource: string, status: RowStatus, reason: string, diff?: string) => SuiteRow): SuiteRow[] {
    const label = (ref: string) => resourceLabel(entry.kind, ref);
    const chain = policyChain(this.suite.policies, entry.policy) ?? [];
    const inputs = { values: this.values, userInfo: this.suite.userInfo, policy: entry.policy };
    const outcomes = runMutateExistingRule(chain, entry.rule ?? '', this.resources, this.targets, inputs, this.options.runtime);
    if (typeof outcomes === 'string') return refs.map((ref) => row(label(ref), 'failed', outcomes));
    let patched: { name: string; docs: SourceDoc[] } | undefined;
    if (entry.patchedResources) {
      const docs = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
      if (!docs.ok) return refs.map((ref) => row(label(ref), 'failed', `patched resource: ${firstError(docs.diagnostics)}`));
      patched = { name: entry.patchedResources, docs: docs.value };
    }
    return refs.map((ref) => {
      const subject = findResource(this.resources, entry.kind, ref) ?? findResource(this.targets, entry.kind, ref);
      if (!subject) return row(label(ref), 'failed', `resource not found: no ${entry.kind || 'resource'} ${ref} among the test's resources or targetResources`);
      const c = checkMutateExisting(outcomes, subject, entry.result, patched);
      return row(label(ref), c.status, c.reason, c.diff);
    });
  }

  private check(entry: SuiteResult, prepared: Extract<Prepared, { ok: true }>, names: string[] | undefined, ref: string): Verdict {
    const failed = (reason: string): Verdict => ({ status: 'failed', reason });
    const object = findResource(this.resources, entry.kind, ref);
    if (!object) {
      if (findResource(this.targets, entry.kind, ref)) {
        return failed(`resource ${ref} is a mutate-existing target (targetResources): mutate existing is not simulated yet`);
      }
      return failed(resourceNotFound(entry.kind, ref));
    }
    const applied = this.apply(entry.policy, prepared, object, ref, entry.operation);
    if (typeof applied === 'string') return failed(applied);
    const { result } = applied;
    const ids = new Set(prepared.targets.map((p) => p.id));
    let response = ruleResponse(result.trace, ids, names, this.options.asKyvernoTest === true);
    // A request denied where no rule or policy event records it (a kind no schema types) says why.
    const denial = result.allowed ? undefined : result.diagnostics.find((d) => d.severity === 'error');
    if (response.kind === 'none' && !response.deniedBefore && denial) response = { ...response, reason: `${response.reason}: the request was denied (${renderDiagnosticLine(denial)})` };
    if (response.kind === 'response' && response.result === 'skip') {
      // The engine's wording for a rule a PolicyException exempted.
      const keys = exemptedBy(applied.exceptions, prepared.targets, names, entry.policy);
      if (keys.length > 0) response = { ...response, message: `rule is skipped due to policy exceptions ${keys.join(', ')}` };
    }
    const actual = (result.object ?? object) as JsonValue;
    const patched = response.kind === 'response' ? this.patchedState(entry, actual) : ({ kind: 'none' } as const);
    return judge(entry.result, response, patched, {
      excludedPasses: this.options.asKyvernoTest === true,
      failOnMissingResources: entry.raw.failOnMissingResources === true,
    });
  }

  /** The patched-resource file against the actual resource (getAndCompareResource). */
  private patchedState(entry: SuiteResult, actual: JsonValue): PatchedState {
    if (!entry.patchedResources) return { kind: 'none' };
    const docs = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
    if (!docs.ok) return { kind: 'unreadable', reason: firstError(docs.diagnostics) };
    const expected = isJsonObject(actual) ? findPatched(docs.value, actual) : undefined;
    if (!expected) return { kind: 'missing', reason: `${entry.patchedResources} has no ${describe(actual)}` };
    const compared = checkPatched(expected, actual, entry.patchedResources);
    return compared.ok ? { kind: 'equal' } : { kind: 'differs', reason: compared.reason, ...(compared.diff ? { diff: compared.diff } : {}) };
  }

  /** The policies up to the entry's policy, parsed once per policy name. */
  private prepare(policyRef: string): Prepared {
    let p = this.prepared.get(policyRef);
    if (!p) {
      p = this.parseChain(policyRef);
      this.prepared.set(policyRef, p);
    }
    return p;
  }

  private parseChain(policyRef: string): Prepared {
    const chain = policyChain(this.suite.policies, policyRef);
    if (!chain) return { ok: false, reason: `policy ${policyRef} is not among the test's policies` };
    const doc = chain.filter((d) => !kindOf(d.value).endsWith('Binding')).pop()!;
    const nonMutating = nonMutatingPolicy(doc);
    if (nonMutating) return { ok: false, notRun: true, reason: `not run: policy ${policyRef} ${nonMutating}; transmute runs mutations only` };
    const dialect = dialectFor(doc);
    if (!dialect) return { ok: false, reason: `policy ${policyRef} did not run: no dialect reads ${String(isJsonObject(doc.value) ? doc.value.apiVersion : '')} ${kindOf(doc.value)}` };
    // The Kyverno CLI runs an unbound MutatingAdmissionPolicy as if bound without restriction.
    if (dialect.name === 'map') chain.push(...impliedBindingDocs(chain, `${this.suite.file} (binding the Kyverno CLI implies for ${policyRef})`));
    const recognized = chain.filter((d) => dialect.recognizes(d));
    // The suite's CEL PolicyExceptions reach the MutatingPolicy dialect as siblings; kyverno.io ones are applied here.
    const celExceptions = this.suite.exceptions.filter((d) => !isKyvernoException(d));
    const siblings = [...chain.filter((d) => !dialect.recognizes(d)), ...celExceptions, ...this.suite.paramResources, ...this.suite.clusterResources];
    const conformance: JsonObject = {};
    if (this.values) conformance.values = this.values;
    // `kyverno test` refuses a policy its validation refuses; the suite's policies are admitted as on a cluster.
    const admission = admitDocs(dialect, recognized, { mode: this.validate });
    if (hasErrors(admission.diagnostics)) return { ok: false, reason: `policy ${policyRef} did not run: ${firstError(admission.diagnostics)}` };
    // `kyverno test` picks a MutatingAdmissionPolicy's params its own way (params.ts kyvernoCliVariants).
    const parsed = dialect.parse(admission.admitted, { siblings, conformance, paramResolution: 'kyverno-cli' } as Parameters<typeof dialect.parse>[1]);
    if (hasErrors(parsed.diagnostics)) return { ok: false, reason: `policy ${policyRef} did not run: ${firstError(parsed.diagnostics)}` };
    const { namespace, name } = splitRef(policyRef);
    // Policy ids: `name` or `ns/name` (Kyverno), `ns:name` (NamespacedMutatingPolicy), `policy/binding[/param]` (MAP).
    const targets = parsed.policies.filter(
      (p) =>
        p.id === policyRef ||
        p.id === name ||
        (namespace !== undefined && p.id === `${namespace}:${name}`) ||
        (namespace === undefined && (p.id.endsWith(`/${name}`) || p.id.endsWith(`:${name}`) || (dialect.name !== 'kyverno' && p.id.startsWith(`${name}/`)))),
    );
    if (targets.length === 0) return { ok: false, reason: `policy ${policyRef} did not run: the ${dialect.name} dialect produced no policy of that name` };
    return { ok: true, policies: parsed.policies, targets, doc, dialect: dialect.name };
  }

  private mapRuntimeMade: Runtime | undefined;

  /**
   * The runtime of a MutatingAdmissionPolicy: kyverno test types its object with a schema deduced from the object
   * (pkg/admissionpolicy/mutate.go: managedfields.NewDeducedTypeConverter()), so a kind without a schema here (a
   * custom kind whose CRD the suite does not give) is deduced too, where kube-apiserver's dispatcher would fail
   * every mutation without the CRD. A kind with a schema keeps kube-apiserver's typing (the CLI deduces those
   * too: lists atomic, no field checked; transmute judges them as the API server would).
   */
  private mapRuntime(): Runtime {
    return (this.mapRuntimeMade ??= deriveRuntime(this.options.runtime ?? createRuntime(), { schemas: { unknownKinds: 'deduced' } }));
  }

  private apply(policyRef: string, prepared: Extract<Prepared, { ok: true }>, object: JsonObject, ref: string, operation: string | undefined): Applied | string {
    const key = `${policyRef}\u0000${this.resources.indexOf(object)}\u0000${operation ?? ''}`;
    let applied = this.applied.get(key);
    if (!applied) {
      const request = kyvernoRequest(object, { values: this.values, userInfo: this.suite.userInfo, policy: policyRef, operation });
      if (typeof request === 'string') return `resource ${ref}: ${request}`;
      const runtime = prepared.dialect === 'map' ? this.mapRuntime() : this.options.runtime;
      const exceptions = applyingExceptions(this.exceptions.exceptions, request, runtime);
      const policies = withExemptions(prepared.policies, exceptions, kyvernoPolicyKey);
      // `kyverno test` makes each policy its own context (ApplyOptions.kyvernoContext).
      applied = { result: apply(policies, request, { ...(runtime ? { runtime } : {}), kyvernoContext: 'cli' }), exceptions };
      this.applied.set(key, applied);
    }
    return applied;
  }
}

/**
 * Why a rule-based entry cannot be checked: the rule is absent from the policy (`absent`), or is of a kind
 * transmute does not run (not run: validate, generate, verifyImages), or did not parse (a failure).
 */
function missingRule(prepared: Extract<Prepared, { ok: true }>, rule: string, names: readonly string[]): { reason: string; notRun?: boolean; absent?: boolean } | undefined {
  if (prepared.targets.some((t) => t.rules.some((r) => names.includes(r.name)))) return undefined;
  const id = prepared.targets[0]!.id;
  const raw = rawRule(prepared.doc, rule);
  if (!isJsonObject(raw)) return { reason: `rule ${rule} is not a rule of policy ${id}`, absent: true };
  const mutate = isJsonObject(raw.mutate) ? raw.mutate : undefined;
  if (mutate && Array.isArray(mutate.targets) && mutate.targets.length > 0) return { reason: `rule ${rule} mutates existing resources (mutate.targets): not simulated yet` };
  const kind = NOT_RUN_RULE_KINDS.find((k) => raw[k] !== undefined && raw[k] !== null);
  if (kind) return { reason: `not run: rule ${rule} is ${article(kind)} ${kind} rule; transmute runs mutate rules only`, notRun: true };
  return { reason: `rule ${rule} of policy ${id} did not parse into a mutation` };
}

const NOT_RUN_RULE_KINDS = ['validate', 'generate', 'verifyImages'] as const;

/** "an" before a kind that starts with a vowel (an ImageValidatingPolicy), else "a". */
function article(kind: string): string {
  return /^[aeiou]/i.test(kind) ? 'an' : 'a';
}

function resourceNotFound(kind: string, ref: string): string {
  return `resource not found: no ${kind || 'resource'} ${ref} among the test's resources`;
}

function rawRule(doc: SourceDoc, rule: string): JsonValue | undefined {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : {};
  return (Array.isArray(spec.rules) ? spec.rules : []).find((r) => isJsonObject(r) && r.name === rule);
}

/**
 * Policy kinds that never mutate, by API group: `kyverno test` runs them (validation, generation, deletion,
 * image verification), transmute does not.
 */
const NON_MUTATING_KINDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [
    'policies.kyverno.io',
    new Set(['ValidatingPolicy', 'NamespacedValidatingPolicy', 'ImageValidatingPolicy', 'NamespacedImageValidatingPolicy', 'GeneratingPolicy', 'NamespacedGeneratingPolicy', 'DeletingPolicy', 'NamespacedDeletingPolicy']),
  ],
  ['admissionregistration.k8s.io', new Set(['ValidatingAdmissionPolicy'])],
  ['kyverno.io', new Set(['CleanupPolicy', 'ClusterCleanupPolicy'])],
]);

/**
 * What the policy is instead of a mutation, when it has none: a kind that never mutates ("is a
 * ValidatingPolicy"), or rules without a mutate rule ("has only validate rules"): nothing to run.
 */
function nonMutatingPolicy(doc: SourceDoc): string | undefined {
  const v = doc.value;
  if (isJsonObject(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && NON_MUTATING_KINDS.get(v.apiVersion.split('/')[0]!)?.has(v.kind)) return `is ${article(v.kind)} ${v.kind}`;
  const spec = isJsonObject(v) && isJsonObject(v.spec) ? v.spec : {};
  const rules = (Array.isArray(spec.rules) ? spec.rules : []).filter(isJsonObject);
  if (rules.length === 0 || rules.some((r) => r.mutate !== undefined && r.mutate !== null)) return undefined;
  const kinds = [...new Set(rules.flatMap((r) => NOT_RUN_RULE_KINDS.filter((k) => r[k] !== undefined && r[k] !== null)))];
  return kinds.length > 0 ? `has only ${kinds.join(', ')} rules` : undefined;
}

/** The name PolicyExceptions give a Kyverno policy (cache.MetaObjectToName): `namespace/name` or `name`. */
function kyvernoPolicyKey(p: Policy): string | undefined {
  return p.origin.dialect === 'kyverno' ? p.id : undefined;
}

/** The exceptions that exempted the entry's rule (every rule, for a rule-less entry) of the target policies. */
function exemptedBy(applying: readonly KyvernoException[], targets: readonly Policy[], names: readonly string[] | undefined, policyRef: string): string[] {
  const keys = new Set<string>();
  for (const t of targets) {
    for (const r of t.rules) {
      if (names && !names.includes(r.name)) continue;
      for (const k of exemptingKeys(applying, kyvernoPolicyKey(t) ?? policyRef, r.name)) keys.add(k);
    }
  }
  return [...keys];
}

/** True when the policy's rule of that name has `mutate.targets` (mutate existing). */
function hasTargets(doc: SourceDoc, rule: string): boolean {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : {};
  const raw = (Array.isArray(spec.rules) ? spec.rules : []).find((r) => isJsonObject(r) && r.name === rule);
  return isJsonObject(raw) && isJsonObject(raw.mutate) && Array.isArray(raw.mutate.targets) && raw.mutate.targets.length > 0;
}



/**
 * The objects of kyverno test's fake cluster: the test's resources, targets and parameter objects (namespaces
 * defaulted), then the ClusterResources' objects as written (a cluster-scoped custom kind has no namespace).
 */
function fakeCluster(suite: TestSuite): JsonObject[] {
  return [...objects([...suite.resources, ...suite.targetResources]), ...clusterExtras(suite)];
}

/** fakeCluster's objects other than the test's resources and targets. */
function clusterExtras(suite: TestSuite): JsonObject[] {
  return [...objects(suite.paramResources), ...suite.clusterResources.map((d) => d.value).filter(isJsonObject)];
}

function objects(docs: readonly SourceDoc[]): JsonObject[] {
  return docs.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
}

function refOf(o: JsonObject): string {
  const md = metadataOf(o);
  return typeof md.namespace === 'string' && md.namespace !== '' ? `${md.namespace}/${String(md.name ?? '')}` : String(md.name ?? '');
}

function describe(v: JsonValue): string {
  const md = metadataOf(v);
  return `${kindOf(v)} ${typeof md.namespace === 'string' ? `${md.namespace}/` : ''}${String(md.name ?? '')}`;
}

function dirOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

function firstError(diagnostics: readonly Diagnostic[]): string {
  const d = diagnostics.find((x) => x.severity === 'error') ?? diagnostics[0];
  return d ? renderDiagnosticLine(d) : 'no diagnostic';
}
