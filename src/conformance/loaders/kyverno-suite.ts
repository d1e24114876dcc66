/**
 * One `results[]` entry of a `kyverno-test.yaml` (cli.kyverno.io/v1alpha1 Test): the policies, the resources
 * the entry names (`resources`, legacy `resource`, or every resource of `kind`), the patched resources to
 * compare with, and the rule result. As in the `kyverno-cli` cases, the policies applied are the chain up to and
 * including the entry's policy, and the expected object is their cumulative result.
 */
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionCase, Expectation, RuleExpectation, Subject } from '../types.js';
import { dialectOfDocument, kindOf } from '../kinds.js';
import { list, malformed, metadataOf, obj, readDocs, readObject, str, strings, type CaseFiles } from './common.js';
import { kyvernoRequest, withDefaultNamespace } from './kyverno-request.js';

export function loadKyvernoSuiteResult(
  base: { id: string; path: string; corpus: string; source: string },
  files: CaseFiles,
  testFile: string,
  index: number,
): Result<AdmissionCase> {
  const test = readObject(files, testFile);
  if (!test.ok) return test;
  const entry = obj(list(test.value.results)[index]);
  if (!entry) return malformed(`${files.display}/${testFile}: results[${index}] is not a mapping`);

  const docsOf = (key: string): Result<SourceDoc[]> => {
    const out: SourceDoc[] = [];
    const value = test.value[key];
    for (const name of typeof value === 'string' ? [value] : strings(value)) {
      const docs = readDocs(files, name);
      if (!docs.ok) return docs;
      out.push(...docs.value);
    }
    return ok(out);
  };
  const policies = docsOf('policies');
  if (!policies.ok) return policies;
  const exceptions = docsOf('exceptions');
  if (!exceptions.ok) return exceptions;
  const resources = docsOf('resources');
  if (!resources.ok) return resources;
  const params = docsOf('paramResources');
  if (!params.ok) return params;
  const cluster = docsOf('clusterResources');
  if (!cluster.ok) return cluster;
  const targets = docsOf('targetResources');
  if (!targets.ok) return targets;
  const variables = str(test.value, 'variables') ? readObject(files, str(test.value, 'variables')!) : ok(obj(test.value.values));
  if (!variables.ok) return variables;
  const userInfo = str(test.value, 'userinfo') ? readObject(files, str(test.value, 'userinfo')!) : ok(undefined);
  if (!userInfo.ok) return userInfo;

  const policyRef = str(entry, 'policy') ?? '';
  const policyName = policyRef.includes('/') ? policyRef.slice(policyRef.indexOf('/') + 1) : policyRef;
  const chain = policyChain(policies.value, policyName);
  const dialect =
    entry.isMutatingAdmissionPolicy === true || entry.isValidatingAdmissionPolicy === true
      ? 'map'
      : (dialectOfDocument(chain[chain.length - 1]?.value ?? null) ?? 'kyverno');

  const kind = str(entry, 'kind') ?? '';
  const named = strings(entry.resources);
  const legacy = str(entry, 'resource');
  if (legacy) named.push(legacy);
  const candidates = resources.value.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
  // In a mutate-existing test the results name the targets, which the trigger's policy mutates.
  const targetObjects = targets.value.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
  const subjects =
    named.length > 0
      ? named.map((n) => findResource(candidates, kind, n) ?? findResource(targetObjects, kind, n))
      : [...candidates, ...targetObjects].filter((o) => kind === '' || kindOf(o) === kind);
  if (subjects.length === 0) return malformed(`${files.display}/${testFile}: results[${index}] names no resource of the test`);
  const missing = subjects.findIndex((s) => s === undefined);
  if (missing >= 0) return malformed(`${files.display}/${testFile}: results[${index}]: resource "${named[missing]}" is not among the test's resources`);

  const patchedName = str(entry, 'patchedResources') ?? str(entry, 'patchedResource');
  const patched = patchedName ? readDocs(files, patchedName) : ok<SourceDoc[]>([]);
  if (!patched.ok) return patched;
  const patchedObjects = patched.value.map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));

  const result = str(entry, 'result') ?? '';
  const rule = str(entry, 'rule');
  const ruleResults: RuleExpectation[] = result ? [{ policy: policyName, ...(rule ? { rule } : {}), result }] : [];
  const built: Subject[] = [];
  for (const object of subjects as JsonObject[]) {
    const request = kyvernoRequest(object, { values: variables.value, userInfo: userInfo.value, policy: policyRef });
    if (typeof request === 'string') return malformed(`${files.display}/${testFile}: ${request}`);
    const expect = expectationFor(object, patchedObjects, patchedName, result);
    if (!expect.ok) return malformed(`${files.display}/${testFile}: results[${index}]: ${expect.message}`);
    built.push({ label: labelOf(object), request, expect: expect.value, ruleResults });
  }
  const [first, ...rest] = built as [Subject, ...Subject[]];
  const hints: JsonObject = {};
  if (variables.value) hints.values = variables.value;
  if (test.value.context !== undefined) hints.context = test.value.context!;
  return ok({
    ...base,
    format: 'kyverno-suite',
    dialect,
    policyDocs: [...chain, ...exceptions.value],
    siblingDocs: [...params.value, ...cluster.value],
    request: first.request,
    expect: first.expect,
    ruleResults,
    ...(rest.length > 0 ? { extraSubjects: rest } : {}),
    ...(targets.value.length > 0 ? { mutateExisting: { targets: targets.value } } : {}),
    hints,
  });
}

/** The policy documents up to and including the named policy; bindings and other documents are kept. */
function policyChain(docs: SourceDoc[], name: string): SourceDoc[] {
  const at = docs.findIndex((d) => metadataOf(d.value).name === name && !kindOf(d.value).endsWith('Binding'));
  if (at < 0) return docs;
  return docs.filter((d, i) => i <= at || kindOf(d.value).endsWith('Binding'));
}

function findResource(candidates: JsonObject[], kind: string, ref: string): JsonObject | undefined {
  const slash = ref.indexOf('/');
  const namespace = slash >= 0 ? ref.slice(0, slash) : undefined;
  const name = slash >= 0 ? ref.slice(slash + 1) : ref;
  return candidates.find((o) => {
    const md = metadataOf(o);
    if (md.name !== name) return false;
    if (kind !== '' && kindOf(o) !== kind) return false;
    return namespace === undefined || (md.namespace ?? '') === namespace;
  });
}

function expectationFor(
  object: JsonObject,
  patched: JsonObject[],
  patchedName: string | undefined,
  result: string,
): { ok: true; value: Expectation } | { ok: false; message: string } {
  if (patchedName) {
    const md = metadataOf(object);
    const match =
      patched.find((p) => kindOf(p) === kindOf(object) && metadataOf(p).name === md.name && (metadataOf(p).namespace ?? '') === (md.namespace ?? '')) ??
      (patched.length === 1 ? patched[0] : undefined);
    if (!match) return { ok: false, message: `no document of ${patchedName} is ${labelOf(object)}` };
    return { ok: true, value: { kind: 'object', object: match, profile: 'kyverno-cli' } };
  }
  // `kyverno test`: a skipped mutate rule leaves the resource as it was; a pass changed it.
  if (result === 'skip') return { ok: true, value: { kind: 'object', object: object as JsonValue, profile: 'kyverno-cli' } };
  if (result === 'pass') return { ok: true, value: { kind: 'changed' } };
  return { ok: true, value: { kind: 'unchecked', reason: `result "${result}" without a patched resource is a validation outcome, not a mutation` } };
}

function labelOf(o: JsonObject): string {
  const md = metadataOf(o);
  return `${kindOf(o)} ${md.namespace ? `${String(md.namespace)}/` : ''}${String(md.name ?? '')}`;
}
