/**
 * Kyverno CLI cases (`kyverno-cli/`): `policy.yaml` holds the policy chain the CLI applies in order, the
 * resource (or `trigger.yaml` + `targets.yaml` for mutate-existing), `expected.yaml` the cumulative result,
 * optional `values.yaml`, `userinfo.yaml`, `bindings.yaml`, `params.yaml`.
 */
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import type { JsonObject } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import type { AdmissionCase, RuleExpectation } from '../types.js';
import { registryDialectName } from '../kinds.js';
import { impliedBindingDocs } from '../../dialects/map/implied-binding.js';
import { list, malformed, obj, readDocs, readObject, str, strings, type CaseBase, type CaseFiles } from './common.js';
import { kyvernoRequest, withDefaultNamespace } from '../../dialects/kyverno/test-suite/request.js';
import { needsClusterReason } from './needs.js';
import { asSubresourceRequest } from './subresources.js';

export function loadKyvernoCliCase(
  base: CaseBase,
  files: CaseFiles,
  manifest: JsonObject,
): Result<AdmissionCase> {
  const present = new Set(strings(manifest.files));
  const has = (name: string): boolean => present.has(name);
  const manifestDialect = str(manifest, 'dialect');
  if (!manifestDialect) return malformed(`${files.display}/manifest.json: dialect is missing`);

  const policyDocs: SourceDoc[] = [];
  for (const name of ['policy.yaml', 'bindings.yaml']) {
    if (!has(name)) continue;
    const docs = readDocs(files, name);
    if (!docs.ok) return docs;
    policyDocs.push(...docs.value);
  }
  if (policyDocs.length === 0) return malformed(`${files.display}: no policy.yaml`);
  // The Kyverno CLI runs an unbound MutatingAdmissionPolicy (src/dialects/map/implied-binding.ts).
  if (manifestDialect === 'mutatingadmissionpolicy' && !has('bindings.yaml')) {
    policyDocs.push(...impliedBindingDocs(policyDocs, `${files.display}/policy.yaml (binding the Kyverno CLI implies)`));
  }
  const siblingDocs: SourceDoc[] = [];
  if (has('params.yaml')) {
    const params = readDocs(files, 'params.yaml');
    if (!params.ok) return params;
    siblingDocs.push(...params.value);
  }

  const mode = str(manifest, 'mode') ?? 'admission';
  const resourceFile = mode === 'mutate-existing' ? 'trigger.yaml' : 'resource.yaml';
  if (!has(resourceFile)) return malformed(`${files.display}: ${resourceFile} is missing for mode ${mode}`);
  const resource = readObject(files, resourceFile);
  if (!resource.ok) return resource;
  const expected = readObject(files, 'expected.yaml');
  if (!expected.ok) return expected;

  const values = has('values.yaml') ? readObject(files, 'values.yaml') : ok(undefined);
  if (!values.ok) return values;
  const userInfo = has('userinfo.yaml') ? readObject(files, 'userinfo.yaml') : ok(undefined);
  if (!userInfo.ok) return userInfo;
  const target = obj(manifest.target_policy);
  const built = kyvernoRequest(withDefaultNamespace(resource.value), { values: values.value, userInfo: userInfo.value, policy: str(target, 'name') });
  if (typeof built === 'string') return malformed(`${files.display}: ${built}`);
  const request = asSubresourceRequest(built, values.value);

  let mutateExisting: AdmissionCase['mutateExisting'];
  if (mode === 'mutate-existing') {
    const targets = has('targets.yaml') ? readDocs(files, 'targets.yaml') : ok([]);
    if (!targets.ok) return targets;
    mutateExisting = { targets: targets.value };
  }

  const ruleResults: RuleExpectation[] = [];
  for (const r of list(manifest.expected_results)) {
    const ro = obj(r);
    const result = str(ro, 'result');
    if (!result) continue;
    const rule = str(ro, 'rule');
    ruleResults.push({ policy: str(target, 'name') ?? '', ...(rule ? { rule } : {}), result });
  }

  const needs = needsClusterReason(manifest);
  const hints: JsonObject = { mode, paramResolution: 'kyverno-cli' };
  if (values.value) hints.values = values.value;
  return ok({
    ...base,
    format: 'kyverno-cli',
    dialect: registryDialectName(manifestDialect),
    ...(needs ? { needsCluster: needs } : {}),
    policyDocs,
    siblingDocs,
    request,
    expect: { kind: 'object', object: withDefaultNamespace(expected.value), profile: 'kyverno-cli' },
    ruleResults,
    ...(mutateExisting ? { mutateExisting } : {}),
    hints,
  });
}
