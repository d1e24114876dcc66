/**
 * One `results[]` entry of a `kyverno-test.yaml` (cli.kyverno.io/v1alpha1 Test): the policies, the resources
 * the entry names (`resources`, or every resource of `kind`), the patched resources to
 * compare with, and the rule result. As in the `kyverno-cli` cases, the policies applied are the chain up to and
 * including the entry's policy, and the expected object is their cumulative result.
 */
import { resolve } from 'node:path';
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionCase, Expectation, RuleExpectation, Subject } from '../types.js';
import { dialectOfDocument, kindOf } from '../kinds.js';
import { malformed, metadataOf, readDocs, type CaseBase, type CaseFiles } from './common.js';
import { asSubresourceRequest } from './subresources.js';
import { impliedBindingDocs } from '../../dialects/map/implied-binding.js';
import { findResource, loadTestSuite, policyChain } from '../../dialects/kyverno/test-suite/index.js';
import { kyvernoRequest, withDefaultNamespace } from '../../dialects/kyverno/test-suite/request.js';

export function loadKyvernoSuiteResult(
  base: CaseBase,
  files: CaseFiles,
  testFile: string,
  index: number,
): Result<AdmissionCase> {
  // The test file and the files it names are read by the Kyverno dialect's suite loader (`transmute test`).
  const loaded = loadTestSuite(resolve(files.dir, testFile), `${files.display}/${testFile}`);
  if (!loaded.ok) return malformed(loaded.diagnostics.map((d) => d.message).join('; '));
  const suite = loaded.value;
  const entry = suite.results[index];
  if (!entry) return malformed(`${files.display}/${testFile}: results[${index}] is not a mapping`);

  const policyRef = entry.policy;
  const policyName = policyRef.includes('/') ? policyRef.slice(policyRef.indexOf('/') + 1) : policyRef;
  let chain = policyChain(suite.policies, policyRef) ?? suite.policies;
  const dialect = entry.raw.isMutatingAdmissionPolicy === true || entry.raw.isValidatingAdmissionPolicy === true
    ? 'map'
    : (dialectOfDocument(chain.filter((d) => !kindOf(d.value).endsWith('Binding')).pop()?.value ?? null) ?? 'kyverno');
  // The Kyverno CLI runs an unbound MutatingAdmissionPolicy as if bound without restriction.
  if (dialect === 'map') chain = [...chain, ...impliedBindingDocs(chain, `${files.display}/${testFile} (binding the Kyverno CLI implies for ${policyRef})`)];

  const kind = entry.kind;
  const named = entry.resources;
  const candidates = suite.resources.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
  // In a mutate-existing test the results name the targets, which the trigger's policy mutates.
  const targetObjects = suite.targetResources.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
  const subjects =
    named.length > 0
      ? named.map((n) => findResource(candidates, kind, n) ?? findResource(targetObjects, kind, n))
      : [...candidates, ...targetObjects].filter((o) => kind === '' || kindOf(o) === kind);
  if (subjects.length === 0) return malformed(`${files.display}/${testFile}: results[${index}] names no resource of the test`);
  const missing = subjects.findIndex((s) => s === undefined);
  if (missing >= 0) return malformed(`${files.display}/${testFile}: results[${index}]: resource "${named[missing]}" is not among the test's resources`);

  const patchedName = entry.patchedResources;
  const patched = patchedName ? readDocs(files, patchedName) : ok<SourceDoc[]>([]);
  if (!patched.ok) return patched;
  const patchedObjects = patched.value.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));

  const result = entry.result;
  const rule = entry.rule;
  const ruleResults: RuleExpectation[] = result ? [{ policy: policyName, ...(rule ? { rule } : {}), result }] : [];
  const built: Subject[] = [];
  for (const object of subjects as JsonObject[]) {
    const admitted = kyvernoRequest(object, { values: suite.values, userInfo: suite.userInfo, policy: policyRef, operation: entry.operation });
    if (typeof admitted === 'string') return malformed(`${files.display}/${testFile}: ${admitted}`);
    const request = asSubresourceRequest(admitted, suite.values);
    const expect = expectationFor(object, patchedObjects, patchedName, result, rule);
    if (!expect.ok) return malformed(`${files.display}/${testFile}: results[${index}]: ${expect.message}`);
    built.push({ label: labelOf(object), request, expect: expect.value, ruleResults });
  }
  const [first, ...rest] = built as [Subject, ...Subject[]];
  const hints: JsonObject = { paramResolution: 'kyverno-cli' };
  if (suite.values) hints.values = suite.values;
  if (suite.context !== undefined) hints.context = suite.context;
  // The Context file's images, for the runner's runtime (runners/mutate-existing.ts runSuiteCase).
  if (suite.imageData) hints.images = [...suite.imageData.values()];
  return ok({
    ...base,
    format: 'kyverno-suite',
    dialect,
    policyDocs: [...chain, ...suite.exceptions],
    siblingDocs: [...suite.paramResources, ...suite.clusterResources],
    request: first.request,
    expect: first.expect,
    ruleResults,
    ...(rest.length > 0 ? { extraSubjects: rest } : {}),
    ...(suite.targetResources.length > 0 ? { mutateExisting: { targets: suite.targetResources, triggers: suite.resources } } : {}),
    hints,
  });
}

function expectationFor(
  object: JsonObject,
  patched: JsonObject[],
  patchedName: string | undefined,
  result: string,
  rule: string | undefined,
): { ok: true; value: Expectation } | { ok: false; message: string } {
  if (patchedName) {
    const md = metadataOf(object);
    const match =
      patched.find((p) => kindOf(p) === kindOf(object) && metadataOf(p).name === md.name && (metadataOf(p).namespace ?? '') === (md.namespace ?? '')) ??
      (patched.length === 1 ? patched[0] : undefined);
    if (!match) return { ok: false, message: `no document of ${patchedName} is ${labelOf(object)}` };
    return { ok: true, value: { kind: 'object', object: match, profile: 'kyverno-cli' } };
  }
  // `kyverno test`: a skipped mutate rule leaves the resource as it was; a pass changed it. When the result names
  // a rule, only that rule's status is checked (ruleResults): the policy's other rules may still change it.
  if (result === 'skip' && rule) return { ok: true, value: { kind: 'rule-status' } };
  if (result === 'skip') return { ok: true, value: { kind: 'object', object: object as JsonValue, profile: 'kyverno-cli' } };
  if (result === 'pass') return { ok: true, value: { kind: 'changed' } };
  return { ok: true, value: { kind: 'unchecked', reason: `result "${result}" without a patched resource is a validation outcome, not a mutation` } };
}

function labelOf(o: JsonObject): string {
  const md = metadataOf(o);
  return `${kindOf(o)} ${md.namespace ? `${String(md.namespace)}/` : ''}${String(md.name ?? '')}`;
}
