/**
 * Gatekeeper case folders (go-unit, bats-e2e, derived-system, webhook-validation): `mutators.yaml`,
 * `input.yaml`, optional `namespace.yaml`, `expected.yaml`, and a manifest with `context`, `expectedError`
 * (phase `mutator-validation` or `mutate`), `expectValid`, `flags`, `externalDataStub`, `expectedConflicts`.
 */
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import type { JsonObject } from '../../ir/json.js';
import type { AdmissionRequest, Operation } from '../../k8s/request.js';
import type { AdmissionCase, Expectation } from '../types.js';
import { kindOf } from '../kinds.js';
import { malformed, metadataOf, obj, readDocs, readObject, str, type CaseBase, type CaseFiles } from './common.js';

/** '' is Gatekeeper's "no admission operation" (audit, expansion, gator), which INDEX.md allows in `context`. */
const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '']);

export function loadGatekeeperCase(
  base: CaseBase,
  files: CaseFiles,
  manifest: JsonObject,
): Result<AdmissionCase> {
  const names = obj(manifest.files);
  const mutatorsFile = str(names, 'mutators');
  if (!mutatorsFile) return malformed(`${files.display}/manifest.json: files.mutators is missing`);
  const policyDocs = readDocs(files, mutatorsFile);
  if (!policyDocs.ok) return policyDocs;

  const inputFile = str(names, 'input');
  let request: AdmissionRequest | undefined;
  if (inputFile) {
    const input = readObject(files, inputFile);
    if (!input.ok) return input;
    const context = obj(manifest.context) ?? {};
    const operation = str(context, 'operation') ?? 'CREATE';
    if (!OPERATIONS.has(operation)) return malformed(`${files.display}/manifest.json: context.operation "${operation}" is not an admission operation`);
    const namespaceFile = str(names, 'namespace');
    let namespaceObject: JsonObject | null = null;
    if (kindOf(input.value) === 'Namespace') {
      namespaceObject = input.value;
    } else if (namespaceFile) {
      const ns = readObject(files, namespaceFile);
      if (!ns.ok) return ns;
      // The webhook hands the Namespace to the matcher only for objects in that namespace (INDEX.md).
      if (metadataOf(input.value).namespace === metadataOf(ns.value).name) namespaceObject = ns.value;
    }
    const source = str(context, 'source');
    request = {
      object: input.value,
      operation: operation as Operation,
      userInfo: { username: str(context, 'username') ?? '' },
      namespaceObject,
      ...(source === 'Original' || source === 'Generated' ? { source } : {}),
    };
  }

  const expect = gatekeeperExpectation(manifest, files, str(names, 'expected'), request !== undefined);
  if (!expect.ok) return expect;

  const hints: JsonObject = {};
  for (const key of ['flags', 'externalDataStub', 'expectedConflicts', 'upstreamAssertion'] as const) {
    if (manifest[key] !== undefined) hints[key] = manifest[key]!;
  }
  return ok({
    ...base,
    format: 'gatekeeper',
    dialect: 'gatekeeper',
    policyDocs: policyDocs.value,
    siblingDocs: [],
    ...(request ? { request } : {}),
    expect: expect.value,
    hints,
  });
}

function gatekeeperExpectation(manifest: JsonObject, files: CaseFiles, expectedFile: string | undefined, hasInput: boolean): Result<Expectation> {
  const error = obj(manifest.expectedError);
  if (error) {
    const phase = str(error, 'phase');
    if (phase !== 'mutator-validation' && phase !== 'mutate') return malformed(`${files.display}/manifest.json: expectedError.phase "${phase}" is unknown`);
    if (phase === 'mutate' && !hasInput) return malformed(`${files.display}/manifest.json: a mutate error needs an input`);
    const contains = str(error, 'contains');
    const detail = str(error, 'errorType');
    return ok({ kind: 'error', stage: phase === 'mutator-validation' ? 'parse' : 'apply', ...(contains ? { contains } : {}), ...(detail ? { detail } : {}) });
  }
  if (expectedFile) {
    if (!hasInput) return malformed(`${files.display}/manifest.json: expected object without an input`);
    const expected = readObject(files, expectedFile);
    if (!expected.ok) return expected;
    return ok({ kind: 'object', object: expected.value, profile: 'gatekeeper' });
  }
  if (manifest.expectValid === true || !hasInput) return ok({ kind: 'valid' });
  return malformed(`${files.display}/manifest.json: no expected object, error or expectValid`);
}
