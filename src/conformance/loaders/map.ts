/**
 * MAP case folders (k8s-unit, k8s-integration, kyverno-cli): policies and bindings, optional params and
 * namespaces, the request object(s), and a manifest whose `request` holds the admission attributes and whose
 * `expect` says mutated | unchanged | not-invoked (an expected object) or error (a message substring).
 */
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { withRequestNamespace, type AdmissionRequest, type GroupVersionKind, type GroupVersionResource, type Operation, type UserInfo } from '../../k8s/request.js';
import type { AdmissionCase, CompareProfile, Expectation } from '../types.js';
import { kindOf } from '../kinds.js';
import { malformed, metadataOf, obj, readDocs, readObject, str, strings, type CaseBase, type CaseFiles } from './common.js';

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

export function loadMapCase(
  base: CaseBase,
  files: CaseFiles,
  manifest: JsonObject,
): Result<AdmissionCase> {
  // Kubernetes' unit and integration tests build their objects in Go; the corpus transcribes them to YAML 1.2
  // (`y:` is the key "y" there, where kubectl's YAML 1.1 would read the key "true").
  if (base.source === 'k8s-unit' || base.source === 'k8s-integration') files = { ...files, yamlVersion: '1.2' };
  const names = obj(manifest.files) ?? {};
  const docsOf = (...keys: string[]): Result<SourceDoc[]> => {
    const out: SourceDoc[] = [];
    for (const key of keys) {
      const name = str(names, key);
      if (!name) continue;
      const docs = readDocs(files, name);
      if (!docs.ok) return docs;
      out.push(...docs.value);
    }
    return ok(out);
  };
  const policyDocs = docsOf('policy', 'policies', 'binding', 'bindings');
  if (!policyDocs.ok) return policyDocs;
  if (policyDocs.value.length === 0) return malformed(`${files.display}/manifest.json: no policy file`);
  // CustomResourceDefinitions (a `crds` file, or among the params) type custom kinds and serve paramKinds.
  const params = docsOf('params', 'crds');
  if (!params.ok) return params;

  const req = obj(manifest.request);
  if (!req) return malformed(`${files.display}/manifest.json: request is missing`);
  const operation = str(req, 'operation') ?? 'CREATE';
  if (!OPERATIONS.has(operation)) return malformed(`${files.display}/manifest.json: request.operation "${operation}" is unknown`);

  const object = optionalObject(files, str(names, 'object'));
  if (!object.ok) return object;
  const oldObject = optionalObject(files, str(names, 'oldObject'));
  if (!oldObject.ok) return oldObject;

  const environment = obj(manifest.environment) ?? {};
  const namespace = str(req, 'namespace') ?? '';
  let namespaceObject: JsonObject | null = null;
  const namespacesFile = str(environment, 'namespaceObject') ?? str(names, 'namespaces');
  if (namespacesFile && namespace !== '') {
    const namespaces = readDocs(files, namespacesFile);
    if (!namespaces.ok) return namespaces;
    const found = namespaces.value.find((d) => kindOf(d.value) === 'Namespace' && metadataOf(d.value).name === namespace);
    if (found && isJsonObject(found.value)) namespaceObject = found.value;
  }

  const request: AdmissionRequest = {
    object: object.value,
    oldObject: oldObject.value,
    operation: operation as Operation,
    namespaceObject,
    userInfo: userInfoOf(obj(req.userInfo)),
    dryRun: req.dryRun === true,
    namespace,
    name: str(req, 'name') ?? '',
  };
  const kind = gvk(obj(req.kind));
  if (kind) request.kind = kind;
  const resource = gvr(obj(req.resource));
  if (resource) request.resource = resource;
  const subResource = str(req, 'subResource');
  if (subResource) request.subResource = subResource;

  const expected = mapExpectation(manifest, files, names, environment, object.value);
  if (!expected.ok) return expected;

  const hints: JsonObject = { environment };
  for (const key of ['requestKind', 'requestResource', 'requestSubResource'] as const) if (req[key] !== undefined) hints[key] = req[key]!;
  return ok({
    ...base,
    format: 'map',
    dialect: 'map',
    policyDocs: policyDocs.value,
    siblingDocs: params.value,
    request,
    expect: storedExpectation(expected.value, request),
    hints,
  });
}

function mapExpectation(
  manifest: JsonObject,
  files: CaseFiles,
  names: JsonObject,
  environment: JsonObject,
  input: JsonValue | null,
): Result<Expectation> {
  const expect = obj(manifest.expect);
  if (!expect) return malformed(`${files.display}/manifest.json: expect is missing`);
  const outcome = str(expect, 'outcome');
  if (outcome === 'error') {
    const contains = str(expect, 'errorContains');
    const detail = str(expect, 'errorStage');
    // Compile-stage errors may surface when a dialect parses or when it evaluates; both are the apiserver's denial.
    return ok({ kind: 'error', stage: 'any', ...(contains ? { contains } : {}), ...(detail ? { detail } : {}) });
  }
  if (outcome !== 'mutated' && outcome !== 'unchanged' && outcome !== 'not-invoked') {
    return malformed(`${files.display}/manifest.json: expect.outcome "${outcome}" is unknown`);
  }
  const profile: CompareProfile =
    manifest.id === 'k8s-integration/status-subresource' ? 'map-status-conditions' : environment.typedObject === false ? 'map-untyped' : 'map-typed';
  // INDEX.md: `objectSubset` is a chainsaw assert document the result must contain (maps as subsets, lists
  // element by element), for cases whose source asserts only part of the object.
  const subsetFile = str(expect, 'objectSubset');
  if (subsetFile) {
    const subset = readObject(files, subsetFile);
    if (!subset.ok) return subset;
    return ok({ kind: 'object', object: subset.value, profile: 'subset' });
  }
  const expectedFile = str(expect, 'object') ?? str(names, 'expected');
  if (!expectedFile) {
    if (outcome === 'mutated') return malformed(`${files.display}/manifest.json: a mutated outcome needs an expected object (expect.object or expect.objectSubset)`);
    return ok({ kind: 'object', object: input, profile });
  }
  const expected = readObject(files, expectedFile);
  if (!expected.ok) return expected;
  return ok({ kind: 'object', object: expected.value, profile });
}

/**
 * The expected object as the apiserver stores it: the corpus transcribes manifests that leave the namespace
 * to the request (kyverno-cli cases: `request.namespace: default`), and the handler places it on the object
 * before admission (withRequestNamespace), so the expected object carries it as well. A subset assertion says
 * only what it says.
 */
function storedExpectation(expect: Expectation, request: AdmissionRequest): Expectation {
  if (expect.kind !== 'object' || expect.profile === 'subset') return expect;
  const placed = withRequestNamespace({ ...request, object: expect.object, oldObject: null });
  return placed.object === expect.object ? expect : { ...expect, object: placed.object };
}

function optionalObject(files: CaseFiles, name: string | undefined): Result<JsonObject | null> {
  if (!name) return ok(null);
  return readObject(files, name);
}

function userInfoOf(u: JsonObject | undefined): UserInfo {
  const info: UserInfo = { username: str(u, 'username') ?? '', groups: strings(u?.groups) };
  const uid = str(u, 'uid');
  if (uid) info.uid = uid;
  return info;
}

function gvk(o: JsonObject | undefined): GroupVersionKind | undefined {
  if (!o) return undefined;
  return { group: str(o, 'group') ?? '', version: str(o, 'version') ?? '', kind: str(o, 'kind') ?? '' };
}

function gvr(o: JsonObject | undefined): GroupVersionResource | undefined {
  if (!o) return undefined;
  return { group: str(o, 'group') ?? '', version: str(o, 'version') ?? '', resource: str(o, 'resource') ?? '' };
}
