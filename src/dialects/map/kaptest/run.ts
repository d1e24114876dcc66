/**
 * Runs a loaded kaptest manifest's mapTestSuites (pfnet/kaptest internal/tester/tester.go runEach): for each
 * test, look up its resources, build the admission request, run the policy through the MAP dialect and the
 * interpreter, and compare kaptest's verdict (mutate / skip / error, see ./outcome.ts) and, for mutate, the
 * mutated object with expectObject (./compare.ts). One row per test, in manifest order.
 *
 * Where transmute differs from kaptest, on purpose:
 * - matchConstraints and the binding's matchResources are evaluated: a request they do not select is `skip`;
 * - nothing passes vacuously: a test naming a resource, param, policy or binding that is not there fails with
 *   that reason even when it expects `error` (kaptest counts such setup errors as `error`);
 * - vapTestSuites are reported as skipped rows (not run: transmute evaluates mutations only).
 */
import { diagnostic, type Diagnostic } from '../../../diagnostics/diagnostic.js';
import { renderDiagnosticLine } from '../../../diagnostics/render.js';
import type { Span } from '../../../diagnostics/span.js';
import { apply } from '../../../interpreter/index.js';
import type { JsonObject } from '../../../ir/json.js';
import { parseApiVersion } from '../../../k8s/resources.js';
import type { Runtime } from '../../../runtime/runtime.js';
import { checkExpectObject, expectedObject } from './compare.js';
import { findPolicyDoc, Invocations, paramKindOf } from './invocation.js';
import type { Expectation, KaptestManifest, KaptestRow, MapTestCase, MapTestSuite, ObjectRef, ResourceDoc, RowStatus } from './model.js';
import { outcomeOf, type Outcome } from './outcome.js';
import { admissionRequest, namespaceObject } from './request.js';
import { refString, ResourceIndex, type RefQuery } from './resources.js';

const upper = (e: Expectation | undefined | string): string => (e ?? '(none)').toUpperCase();

/** kaptest's `SummaryLine` middle part: `(CREATE) Kind:ns/name`, `(UPDATE) Kind:old -> new`, `(DELETE) ...`. */
export function requestLabel(tc: Pick<MapTestCase, 'object' | 'oldObject'>): string {
  if (tc.object && tc.oldObject) return `(UPDATE) ${refString(tc.oldObject)} -> ${tc.object.namespace ? `${tc.object.namespace}/` : ''}${tc.object.name}`;
  if (tc.object) return `(CREATE) ${refString(tc.object)}`;
  if (tc.oldObject) return `(DELETE) ${refString(tc.oldObject)}`;
  return '';
}

export interface KaptestOptions {
  /** The runtime every test runs with; default: a fresh createRuntime() per test. */
  runtime?: Runtime;
}

export function runKaptest(manifest: KaptestManifest, options: KaptestOptions = {}): KaptestRow[] {
  const run = new ManifestRun(manifest, options);
  const rows = manifest.mapTestSuites.flatMap((s) => run.suiteRows(s));
  for (const s of manifest.vapTestSuites) {
    for (const t of s.tests) {
      rows.push({ file: manifest.file, policy: s.policy, rule: t.label, resource: '', status: 'skipped', reason: 'not run: ValidatingAdmissionPolicy tests (vapTestSuites) are outside transmute, which evaluates mutations only' });
    }
  }
  if (rows.length === 0) rows.push({ file: manifest.file, policy: '', rule: '', resource: '', status: 'failed', reason: 'the manifest has no tests' });
  return rows;
}

type Setup = { object?: ResourceDoc; oldObject?: ResourceDoc; expect?: ResourceDoc; param?: ResourceDoc; namespace: JsonObject | null };

class ManifestRun {
  private readonly index: ResourceIndex;
  private readonly invocations: Invocations;

  constructor(
    private readonly manifest: KaptestManifest,
    private readonly options: KaptestOptions,
  ) {
    this.index = new ResourceIndex(manifest.resources);
    this.invocations = new Invocations(manifest.policies, manifest.file);
  }

  suiteRows(suite: MapTestSuite): KaptestRow[] {
    const row = (tc: MapTestCase | undefined, status: RowStatus, reason: string, diff?: string): KaptestRow => ({
      file: this.manifest.file,
      policy: suite.policy,
      rule: tc ? tc.label : suite.label,
      resource: tc ? requestLabel(tc) : '',
      status,
      reason,
      ...(diff ? { diff } : {}),
    });
    const policyDoc = findPolicyDoc(this.manifest.policies, suite.policy);
    if (!policyDoc) {
      const reason = `${line('TM7003', suite.span, `POLICY NOT FOUND: no MutatingAdmissionPolicy named ${JSON.stringify(suite.policy)} in the manifest's policies`)}`;
      return suite.tests.length === 0 ? [row(undefined, 'failed', reason)] : suite.tests.map((tc) => row(tc, 'failed', reason));
    }
    const paramKind = paramKindOf(policyDoc);
    return suite.tests.map((tc) => {
      const setupError = (messages: string[]): KaptestRow => row(tc, 'failed', `${upper(tc.expect)} ==> SETUP ERROR\n${messages.join('\n')}`);
      if (tc.problems.length > 0) {
        return setupError(tc.problems.map((p) => line(/required|must be given/.test(p.message) ? 'TM2005' : 'TM2002', p.span, p.message)));
      }
      const setup = this.setup(tc, paramKind);
      if ('problems' in setup) return setupError(setup.problems);
      const outcome = this.evaluate(suite, tc, setup);
      if ('failed' in outcome) return row(tc, 'failed', outcome.failed);
      return this.judge(tc, setup, outcome, row);
    });
  }

  /** newMutationParams: every resource the test names must resolve, or the test cannot run. */
  private setup(tc: MapTestCase, paramKind: { apiVersion: string; kind: string } | undefined): Setup | { problems: string[] } {
    const problems: string[] = [];
    const get = (what: string, ref: ObjectRef | RefQuery, span: Span): ResourceDoc | undefined => {
      const r = this.index.lookup(ref);
      if ('found' in r) return r.found;
      problems.push(line('TM7003', span, 'ambiguous' in r ? `get ${what}: multiple target resource found: ${refString(ref)}` : `get ${what}: ${refString(ref)} not found among the manifest's resources`));
      return undefined;
    };
    const out: Setup = { namespace: null };
    if (tc.object) out.object = get('object', tc.object, tc.object.span);
    if (tc.oldObject) out.oldObject = get('oldObject', tc.oldObject, tc.oldObject.span);
    if (tc.expect === 'mutate' && tc.expectObject) out.expect = get('expectObject', tc.expectObject, tc.expectObject.span);
    if (paramKind) {
      if (!tc.param) problems.push(line('TM7003', tc.span, `get param: the policy has paramKind ${paramKind.apiVersion}, Kind=${paramKind.kind}: param name is empty`));
      else {
        const { group, version } = parseApiVersion(paramKind.apiVersion);
        const q: RefQuery = { kind: paramKind.kind, name: tc.param.name, ...(group ? { group, version } : {}), ...(tc.param.namespace ? { namespace: tc.param.namespace } : {}) };
        out.param = get('param', q, tc.param.span);
      }
    }
    const ns = namespaceObject(this.index, out.object?.value, out.oldObject?.value);
    if ('problem' in ns) problems.push(line('TM7003', tc.span, `get namespace: ${ns.problem}`));
    else out.namespace = ns.value;
    return problems.length > 0 ? { problems } : out;
  }

  private evaluate(suite: MapTestSuite, tc: MapTestCase, setup: Setup): Outcome | { failed: string } {
    if (!setup.object) {
      // mutation.go VersionedAttributes needs an object: kaptest reports every DELETE test as an error.
      return { got: 'error', detail: 'DELETE (only oldObject given): there is no object to mutate (kaptest reports error; the API server does not call MutatingAdmissionPolicies on DELETE)' };
    }
    const prepared = this.invocations.prepare(suite, setup.param);
    if (!prepared.ok) return { failed: `${upper(tc.expect)} ==> SETUP ERROR\n${line('TM7003', prepared.span, prepared.reason)}` };
    const request = admissionRequest(setup.object.value, setup.oldObject?.value, setup.namespace, tc.userInfo);
    const runtime = this.options.runtime;
    const result = apply(prepared.policies, request, { patch: false, ...(runtime ? { runtime } : {}) });
    return outcomeOf(result, prepared.policies, prepared.policyDoc);
  }

  private judge(tc: MapTestCase, setup: Setup, outcome: Outcome, row: (tc: MapTestCase, status: RowStatus, reason: string, diff?: string) => KaptestRow): KaptestRow {
    const verdict = `${upper(tc.expect)} ==> ${upper(outcome.got)}`;
    const detail = outcome.detail ? `: ${outcome.detail}` : '';
    if (outcome.got !== tc.expect) {
      const why = outcome.got === 'mutate' ? ': the policy matched and ran' : detail;
      return row(tc, 'failed', `${verdict}${why}`);
    }
    if (outcome.got !== 'mutate') return row(tc, outcome.got === 'skip' ? 'skipped' : 'passed', `${verdict}${detail}`);
    const expected = expectedObject(setup.expect!.value, setup.object!.value, tc.disableNameOverwrite);
    const checked = checkExpectObject(expected, outcome.object, refString(tc.expectObject!));
    return checked.ok ? row(tc, 'passed', verdict) : row(tc, 'failed', `${verdict} (FAIL): ${checked.reason}`, checked.diff);
  }
}

function line(code: Diagnostic['code'], span: Span | undefined, message: string): string {
  return renderDiagnosticLine(diagnostic(code, { phase: 'eval', message, span }));
}
