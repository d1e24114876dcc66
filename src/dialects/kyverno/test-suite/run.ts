/**
 * Runs a loaded `kyverno-test.yaml` as `kyverno test` does (commands/test: runTest, printTestResult,
 * checkResult, lookupEngineResponses, lookupRuleResponses): each policy is applied to each resource after the
 * policies before it, and each result entry is checked, per resource it names, for the rule's result
 * (pass / skip / fail / error) and the patched resource. A rule name also stands for its `autogen-` and
 * `autogen-cronjob-` rules.
 *
 * Unlike the CLI, nothing passes vacuously: a resource that is not in the test, a policy that is not there or
 * did not parse, a rule the policy does not have, and (for an expected `pass`) a rule that matched nothing all
 * fail with that reason.
 */
import { impliedBindingDocs } from '../../map/implied-binding.js';
import { kyvernoRequest, withDefaultNamespace } from './request.js';
import { hasErrors, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../../../diagnostics/render.js';
import { apply } from '../../../interpreter/index.js';
import type { ApplyResult, TraceEvent } from '../../../interpreter/api.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { SourceDoc } from '../../../io/source.js';
import { dialectFor } from '../../registry.js';
import { checkPatched, findPatched } from './compare.js';
import { readSuiteDocs } from './files.js';
import { apiCallValues } from './api-calls.js';
import { checkMpolMutateExisting, checkMpolTrigger, checkMutateExisting, runMutateExistingRule } from './mutate-existing.js';
import { objectsProvider } from '../../kyverno-mpol/mutate-existing.js';
import { cliTestTargets, cliTrigger, targetIdentity } from '../../kyverno-mpol/mutate-existing-cli.js';
import { mutatesExisting } from '../../kyverno-mpol/recognize.js';
import type { AdmissionRequest } from '../../../k8s/request.js';
import type { RowStatus, SuiteResult, SuiteRow, TestSuite } from './model.js';
import { findResource, kindOf, metadataOf, policyChain, resourceLabel, splitRef } from './select.js';
import { admitDocs, type ValidateMode } from '../../../validate/admit.js';

/** `targets`: the IR policies of the entry's policy (a MutatingAdmissionPolicy gives one per binding). */
type Prepared = { ok: true; policies: Policy[]; targets: Policy[]; doc: SourceDoc } | { ok: false; reason: string };

/** Runs every result entry of the suite; one row per entry and resource, in file order. */
export function runTestSuite(suite: TestSuite, validate: ValidateMode = 'strict'): SuiteRow[] {
  const run = new SuiteRun(suite, validate);
  return suite.results.flatMap((entry) => run.entryRows(entry));
}

class SuiteRun {
  private readonly prepared = new Map<string, Prepared>();
  private readonly applied = new Map<string, ApplyResult>();
  private readonly resources: JsonObject[];
  private readonly targets: JsonObject[];
  private readonly values: JsonObject | undefined;

  constructor(
    private readonly suite: TestSuite,
    private readonly validate: ValidateMode,
  ) {
    this.resources = objects(suite.resources);
    this.targets = objects(suite.targetResources);
    this.values = apiCallValues(suite);
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
    if (refs.length === 0) return [row(entry.kind, 'failed', `the result names no resource and the test has no ${entry.kind || 'resource'}`)];
    if (this.mpolMutatesExisting(entry)) return this.mpolExistingRows(entry, row);
    const prepared = this.prepare(entry.policy);
    if (!prepared.ok) return refs.map((r) => row(resourceLabel(entry.kind, r, entry.namespace), 'failed', prepared.reason));
    if (hasTargets(prepared.doc, rule)) return this.mutateExistingRows(entry, refs, row);
    const names = entry.ruleless ? undefined : [rule, `autogen-${rule}`, `autogen-cronjob-${rule}`];
    if (names) {
      const missing = missingRule(prepared, rule, names);
      if (missing) return refs.map((r) => row(resourceLabel(entry.kind, r, entry.namespace), 'failed', missing));
    }
    return refs.map((ref) => {
      const label = resourceLabel(entry.kind, ref, entry.namespace);
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
    const fail = (reason: string): SuiteRow[] => [row(resourceLabel(entry.kind, entry.resources.join(', '), entry.namespace), 'failed', reason)];
    for (const object of this.resources) {
      const request = kyvernoRequest(object, { values: this.values, userInfo: this.suite.userInfo, policy: entry.policy });
      if (typeof request === 'string') return fail(request);
      triggers.push({ object, request });
    }
    const docs = [...this.suite.policies, ...this.suite.exceptions];
    const cluster = objects([...this.suite.clusterResources, ...this.suite.paramResources]);
    const responses = cliTestTargets(docs, triggers, this.targets, cluster);
    if (typeof responses === 'string') return fail(responses);
    let patched: { name: string; docs: SourceDoc[] } | undefined;
    if (entry.patchedResources) {
      const read = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
      if (!read.ok) return fail(`patched resource: ${firstError(read.diagnostics)}`);
      patched = { name: entry.patchedResources, docs: read.value };
    }
    const provider = objectsProvider([...this.resources, ...this.targets, ...cluster]);
    const triggerCheck = (trigger: { object: JsonObject; request: AdmissionRequest }) => checkMpolTrigger(cliTrigger(docs, trigger.request, provider), entry.policy, entry.result, patched);
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
      const label = resourceLabel(entry.kind, ref, entry.namespace);
      const target = findResource(this.targets, entry.kind, ref, entry.namespace);
      if (target) {
        const c = checkMpolMutateExisting(responses.get(targetIdentity(target)) ?? [], entry.result, patched);
        return row(label, c.status, c.reason, c.diff);
      }
      const object = findResource(this.resources, entry.kind, ref, entry.namespace);
      const trigger = triggers.find((t) => t.object === object);
      if (!trigger) return row(label, 'failed', `resource not found: no ${entry.kind || 'resource'} ${ref} among the test's resources or targetResources`);
      const c = triggerCheck(trigger);
      return row(label, c.status, c.reason, c.diff);
    });
  }

  /** Rows of a `mutate.targets` rule: triggers run over `targetResources` (see ./mutate-existing.ts). */
  private mutateExistingRows(entry: SuiteResult, refs: readonly string[], row: (resource: string, status: RowStatus, reason: string, diff?: string) => SuiteRow): SuiteRow[] {
    const label = (ref: string) => resourceLabel(entry.kind, ref, entry.namespace);
    const chain = policyChain(this.suite.policies, entry.policy) ?? [];
    const inputs = { values: this.values, userInfo: this.suite.userInfo, policy: entry.policy };
    const outcomes = runMutateExistingRule(chain, entry.rule ?? '', this.resources, this.targets, inputs);
    if (typeof outcomes === 'string') return refs.map((ref) => row(label(ref), 'failed', outcomes));
    let patched: { name: string; docs: SourceDoc[] } | undefined;
    if (entry.patchedResources) {
      const docs = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
      if (!docs.ok) return refs.map((ref) => row(label(ref), 'failed', `patched resource: ${firstError(docs.diagnostics)}`));
      patched = { name: entry.patchedResources, docs: docs.value };
    }
    return refs.map((ref) => {
      const subject = findResource(this.resources, entry.kind, ref, entry.namespace) ?? findResource(this.targets, entry.kind, ref, entry.namespace);
      if (!subject) return row(label(ref), 'failed', `resource not found: no ${entry.kind || 'resource'} ${ref} among the test's resources or targetResources`);
      const c = checkMutateExisting(outcomes, subject, entry.result, patched);
      return row(label(ref), c.status, c.reason, c.diff);
    });
  }

  private check(
    entry: SuiteResult,
    prepared: Extract<Prepared, { ok: true }>,
    names: string[] | undefined,
    ref: string,
  ): { status: RowStatus; reason: string; diff?: string } {
    const failed = (reason: string, diff?: string) => ({ status: 'failed' as const, reason, ...(diff ? { diff } : {}) });
    const object = findResource(this.resources, entry.kind, ref, entry.namespace);
    if (!object) {
      if (findResource(this.targets, entry.kind, ref, entry.namespace)) {
        return failed(`resource ${ref} is a mutate-existing target (targetResources): mutate existing is not simulated yet`);
      }
      return failed(`resource not found: no ${entry.kind || 'resource'} ${ref} among the test's resources`);
    }
    const result = this.apply(entry.policy, prepared, object, ref);
    if (typeof result === 'string') return failed(result);
    const ids = new Set(prepared.targets.map((p) => p.id));
    const events = responses(result.trace, ids, names);
    const actual = (result.object ?? object) as JsonValue;

    if (entry.patchedResources) {
      const docs = readSuiteDocs({ dir: this.suite.dir, display: dirOf(this.suite.file) }, entry.patchedResources);
      if (!docs.ok) return failed(`patched resource: ${firstError(docs.diagnostics)}`);
      const expected = isJsonObject(actual) ? findPatched(docs.value, actual) : undefined;
      if (!expected) return failed(`patched resource: ${entry.patchedResources} has no ${describe(actual)}`);
      const compared = checkPatched(expected, actual, entry.patchedResources);
      if (!compared.ok) return failed(compared.reason, compared.diff);
    }
    if (events.length === 0) {
      // The CLI reports no rule response as "Excluded" and passes; only an expected skip agrees with that here.
      if (entry.result === 'skip') return { status: 'skipped', reason: 'excluded: the rule does not match the resource' };
      return failed(`the rule did not run on ${ref}: it does not match the resource (want ${entry.result || 'a result'})`);
    }
    const got = kyvernoResult(events);
    if (got !== entry.result) {
      const why = events.find((e) => e.reason)?.reason;
      return failed(`want ${entry.result || '(none)'}, got ${got}${why ? `: ${why}` : ''}`);
    }
    return { status: entry.result === 'skip' ? 'skipped' : 'passed', reason: 'Ok' };
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
    const dialect = dialectFor(doc);
    if (!dialect) return { ok: false, reason: `policy ${policyRef} did not run: no dialect reads ${String(isJsonObject(doc.value) ? doc.value.apiVersion : '')} ${kindOf(doc.value)}` };
    // The Kyverno CLI runs an unbound MutatingAdmissionPolicy as if bound without restriction.
    if (dialect.name === 'map') chain.push(...impliedBindingDocs(chain, `${this.suite.file} (binding the Kyverno CLI implies for ${policyRef})`));
    const recognized = chain.filter((d) => dialect.recognizes(d));
    const siblings = [...chain.filter((d) => !dialect.recognizes(d)), ...this.suite.paramResources, ...this.suite.clusterResources];
    const conformance: JsonObject = {};
    if (this.values) conformance.values = this.values;
    // `kyverno test` refuses a policy its validation refuses; the suite's policies are admitted as on a cluster.
    const admission = admitDocs(dialect, recognized, { mode: this.validate });
    if (hasErrors(admission.diagnostics)) return { ok: false, reason: `policy ${policyRef} did not run: ${firstError(admission.diagnostics)}` };
    const parsed = dialect.parse(admission.admitted, { siblings, conformance } as Parameters<typeof dialect.parse>[1]);
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
    return { ok: true, policies: parsed.policies, targets, doc };
  }

  private apply(policyRef: string, prepared: Extract<Prepared, { ok: true }>, object: JsonObject, ref: string): ApplyResult | string {
    const key = `${policyRef}\u0000${this.resources.indexOf(object)}`;
    let result = this.applied.get(key);
    if (!result) {
      const request = kyvernoRequest(object, { values: this.values, userInfo: this.suite.userInfo, policy: policyRef });
      if (typeof request === 'string') return `resource ${ref}: ${request}`;
      result = apply(prepared.policies, request);
      this.applied.set(key, result);
    }
    return result;
  }
}

/** Why a rule-based entry cannot be checked: the rule is absent, or is of a kind this dialect does not run. */
function missingRule(prepared: Extract<Prepared, { ok: true }>, rule: string, names: readonly string[]): string | undefined {
  if (prepared.targets.some((t) => t.rules.some((r) => names.includes(r.name)))) return undefined;
  const id = prepared.targets[0]!.id;
  const spec = isJsonObject(prepared.doc.value) && isJsonObject(prepared.doc.value.spec) ? prepared.doc.value.spec : {};
  const raw = (Array.isArray(spec.rules) ? spec.rules : []).find((r) => isJsonObject(r) && r.name === rule);
  if (!isJsonObject(raw)) return `rule ${rule} is not a rule of policy ${id}`;
  const mutate = isJsonObject(raw.mutate) ? raw.mutate : undefined;
  if (mutate && Array.isArray(mutate.targets) && mutate.targets.length > 0) return `rule ${rule} mutates existing resources (mutate.targets): not simulated yet`;
  const kind = ['validate', 'generate', 'verifyImages'].find((k) => raw[k] !== undefined && raw[k] !== null);
  if (kind) return `rule ${rule} is a ${kind} rule: transmute runs mutate rules only`;
  return `rule ${rule} of policy ${id} did not parse into a mutation`;
}

/** True when the policy's rule of that name has `mutate.targets` (mutate existing). */
function hasTargets(doc: SourceDoc, rule: string): boolean {
  const spec = isJsonObject(doc.value) && isJsonObject(doc.value.spec) ? doc.value.spec : {};
  const raw = (Array.isArray(spec.rules) ? spec.rules : []).find((r) => isJsonObject(r) && r.name === rule);
  return isJsonObject(raw) && isJsonObject(raw.mutate) && Array.isArray(raw.mutate.targets) && raw.mutate.targets.length > 0;
}

/** The rule responses of the policy for the entry: rule events that matched (lookupRuleResponses). */
function responses(trace: readonly TraceEvent[], policyIds: ReadonlySet<string>, names: readonly string[] | undefined): TraceEvent[] {
  return trace.filter(
    (e) => policyIds.has(e.policy) && e.node === 'rule' && e.outcome !== 'not-matched' && (names === undefined || names.includes(e.rule ?? '')),
  );
}

/** A mutate rule's result: error, pass when it changed the object, skip otherwise (preconditions, no change). */
function kyvernoResult(events: readonly TraceEvent[]): string {
  if (events.some((e) => e.outcome === 'error')) return 'error';
  if (events.some((e) => e.outcome === 'applied')) return 'pass';
  return 'skip';
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
