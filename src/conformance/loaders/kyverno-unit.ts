/**
 * Kyverno unit cases (`kyverno-unit/`): data from Go test tables. `engine-mutate` cases carry a whole policy;
 * the others carry a bare strategic-merge patch or RFC 6902 patch list, which is wrapped here in a one-rule
 * ClusterPolicy so the Kyverno dialect runs it as a mutate rule would (the upstream tests call the patchers
 * directly: pkg/engine/mutate/patch).
 */
import { stringify } from 'yaml';
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { AdmissionCase, Expectation, RuleExpectation, Subject } from '../types.js';
import { kindOf } from '../kinds.js';
import { malformed, metadataOf, obj, readDocs, readJson, readObject, str, strings, synthesizedDocs, type CaseBase, type CaseFiles } from './common.js';

const UNIT_POLICY = 'conformance-unit';
const UNIT_RULE = 'unit';

export function loadKyvernoUnitCase(
  base: CaseBase,
  files: CaseFiles,
  manifest: JsonObject,
): Result<AdmissionCase> {
  const present = new Set(strings(manifest.files));
  const pick = (...names: string[]): string | undefined => names.find((n) => present.has(n));
  const caseKind = str(manifest, 'case_kind') ?? '';

  const resourceFile = pick('resource.json', 'resource.yaml');
  if (!resourceFile) return malformed(`${files.display}: no resource file`);
  const resource = readObject(files, resourceFile);
  if (!resource.ok) return resource;
  const request: AdmissionRequest = { object: resource.value, operation: 'CREATE' };
  const kind = kindOf(resource.value);

  const built = unitPolicyAndExpectation(caseKind, files, manifest, pick, kind, request);
  if (!built.ok) return built;
  const { policyDocs, expect, ruleResults, extraSubjects } = built.value;
  return ok({
    ...base,
    format: 'kyverno-unit',
    dialect: 'kyverno',
    policyDocs,
    siblingDocs: [],
    request,
    expect,
    ...(ruleResults.length > 0 ? { ruleResults } : {}),
    ...(extraSubjects.length > 0 ? { extraSubjects } : {}),
    hints: { caseKind },
  });
}

interface Built {
  policyDocs: SourceDoc[];
  expect: Expectation;
  ruleResults: RuleExpectation[];
  extraSubjects: Subject[];
}

function unitPolicyAndExpectation(
  caseKind: string,
  files: CaseFiles,
  manifest: JsonObject,
  pick: (...names: string[]) => string | undefined,
  kind: string,
  request: AdmissionRequest,
): Result<Built> {
  const exact = (name: string | undefined): Result<Expectation> => {
    if (!name) return malformed(`${files.display}: no expected file for ${caseKind}`);
    const expected = readObject(files, name);
    return expected.ok ? ok({ kind: 'object', object: expected.value, profile: 'exact' }) : expected;
  };
  const emitted = (): Result<Expectation> => {
    const ops = readJson(files, 'expected_emitted_patch.json');
    if (!ops.ok) return ops;
    return Array.isArray(ops.value) ? ok({ kind: 'emitted-patch', ops: ops.value }) : malformed(`${files.display}/expected_emitted_patch.json: not a list`);
  };
  const wrapSmp = (name: string | undefined): Result<SourceDoc[]> => {
    if (!name) return malformed(`${files.display}: no patch file for ${caseKind}`);
    const patch = readJson(files, name);
    if (!patch.ok) return patch;
    return synthesizedDocs(unitPolicy(kind, { patchStrategicMerge: patch.value }), `${files.display}/${name} (as a ClusterPolicy)`);
  };
  const wrapJson6902 = (name: string | undefined): Result<SourceDoc[]> => {
    if (!name) return malformed(`${files.display}: no patches file for ${caseKind}`);
    const docs = readDocs(files, name);
    if (!docs.ok) return docs;
    const patches = docs.value[0]?.value;
    if (!Array.isArray(patches)) return malformed(`${files.display}/${name}: not a list of patches`);
    // Kyverno takes patchesJson6902 as one YAML string (api/kyverno/v1 Mutation.PatchesJSON6902).
    return synthesizedDocs(unitPolicy(kind, { patchesJson6902: stringify(patches) }), `${files.display}/${name} (as a ClusterPolicy)`);
  };
  const done = (policyDocs: Result<SourceDoc[]>, expect: Result<Expectation>, ruleResults: RuleExpectation[] = [], extraSubjects: Subject[] = []): Result<Built> => {
    if (!policyDocs.ok) return policyDocs;
    if (!expect.ok) return expect;
    return ok({ policyDocs: policyDocs.value, expect: expect.value, ruleResults, extraSubjects });
  };

  switch (caseKind) {
    case 'engine-mutate':
      return engineMutate(files, manifest, pick, request);
    case 'smp-with-anchors':
      return done(wrapSmp(pick('patch.json')), exact(pick('expected.json')));
    case 'smp+emitted-diff':
      return done(wrapSmp(pick('patch.json')), emitted());
    case 'smp-anchor-preprocess': {
      const expectedPatch = readJson(files, 'expected_patch.json');
      if (!expectedPatch.ok) return expectedPatch;
      // An empty preprocessed patch means a condition anchor failed: the rule is skipped, nothing changes.
      const empty = isJsonObject(expectedPatch.value) && Object.keys(expectedPatch.value).length === 0;
      const reference = empty ? ok<SourceDoc[]>([]) : synthesizedDocs(unitPolicy(kind, { patchStrategicMerge: expectedPatch.value }), `${files.display}/expected_patch.json (as a ClusterPolicy)`);
      if (!reference.ok) return reference;
      return done(wrapSmp(pick('pattern.json')), ok({ kind: 'same-as-reference', reference: reference.value }));
    }
    case 'json6902':
      return done(wrapJson6902(pick('patches.yaml', 'patches.json')), exact(pick('expected.yaml', 'expected.json')));
    case 'json6902+emitted-diff':
      return done(wrapJson6902(pick('patches.yaml', 'patches.json')), emitted());
    case 'json6902-rule': {
      const status = str(manifest, 'expected_status');
      const rules: RuleExpectation[] = status ? [{ policy: UNIT_POLICY, rule: UNIT_RULE, result: status }] : [];
      return done(wrapJson6902(pick('patches.json', 'patches.yaml')), exact(pick('expected.json', 'expected.yaml')), rules);
    }
    default:
      return malformed(`${files.display}/manifest.json: case_kind "${caseKind}" is unknown`);
  }
}

function engineMutate(files: CaseFiles, manifest: JsonObject, pick: (...names: string[]) => string | undefined, request: AdmissionRequest): Result<Built> {
  const policyDocs = readDocs(files, pick('policy.json', 'policy.yaml') ?? 'policy.json');
  if (!policyDocs.ok) return policyDocs;
  const policyName = String(metadataOf(policyDocs.value[0]?.value).name ?? '');
  const partial = obj(manifest.expected_partial);
  if (partial) {
    const checks = copyObject(partial);
    const status = str(checks, '_status');
    delete checks._status;
    delete checks._note;
    const ruleResults: RuleExpectation[] = status ? [{ policy: policyName, result: status }] : [];
    return ok({ policyDocs: policyDocs.value, expect: { kind: 'partial', checks }, ruleResults, extraSubjects: [] });
  }
  const expectedFile = pick('expected.json', 'expected_applyRules_All.json');
  if (!expectedFile) return malformed(`${files.display}: no expected_partial and no expected file`);
  const expected = readObject(files, expectedFile);
  if (!expected.ok) return expected;
  const extraSubjects: Subject[] = [];
  // Test_RuleSelectorMutate runs the same policy again with spec.applyRules: One.
  if (pick('expected_applyRules_One.json')) {
    const one = readObject(files, 'expected_applyRules_One.json');
    if (!one.ok) return one;
    const variant = withApplyRulesOne(policyDocs.value[0]?.value);
    if (!variant) return malformed(`${files.display}/policy.json: not a policy object`);
    const docs = synthesizedDocs(variant, `${files.display}/policy.json (spec.applyRules: One)`);
    if (!docs.ok) return docs;
    extraSubjects.push({ label: 'applyRules: One', request, expect: { kind: 'object', object: one.value, profile: 'exact' }, policyDocs: docs.value });
  }
  return ok({ policyDocs: policyDocs.value, expect: { kind: 'object', object: expected.value, profile: 'exact' }, ruleResults: [], extraSubjects });
}

function withApplyRulesOne(policy: JsonValue | undefined): JsonObject | undefined {
  if (!isJsonObject(policy) || !isJsonObject(policy.spec)) return undefined;
  const copy = copyObject(policy);
  const spec = copyObject(policy.spec);
  spec.applyRules = 'One';
  copy.spec = spec;
  return copy;
}

/** A one-rule ClusterPolicy around a mutate block, matching the resource's kind (any kind when it has none). */
function unitPolicy(kind: string, mutate: JsonObject): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: UNIT_POLICY },
    spec: { rules: [{ name: UNIT_RULE, match: { any: [{ resources: { kinds: [kind === '' ? '*' : kind] } }] }, mutate }] },
  };
}
