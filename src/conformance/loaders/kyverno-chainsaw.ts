/**
 * Kyverno chainsaw cases (`kyverno-chainsaw/`, `kyverno-chainsaw-mpol-to-map/`): the manifest's `ops` list
 * (policy, apply, create, update, patch, assert, error, delete, wait-policy-ready, sleep) with their files.
 */
import { ok, type Result } from '../../diagnostics/diagnostic.js';
import type { JsonObject } from '../../ir/json.js';
import type { ChainsawCase, ChainsawStep } from '../types.js';
import { registryDialectName } from '../kinds.js';
import { EPHEMERAL_TEST_NAMESPACE } from './chainsaw-test.js';
import { list, malformed, obj, readDocs, str, strings, type CaseBase, type CaseFiles } from './common.js';
import { needsClusterReason } from './needs.js';

const DOC_OPS = new Set(['policy', 'apply', 'create', 'update', 'patch']);

export function loadChainsawCase(
  base: CaseBase,
  files: CaseFiles,
  manifest: JsonObject,
): Result<ChainsawCase> {
  const dialects = strings(manifest.dialects);
  const manifestDialect = dialects[0] ?? str(manifest, 'dialect');
  if (!manifestDialect) return malformed(`${files.display}/manifest.json: dialects is missing`);
  const needs = needsClusterReason(manifest);
  const steps: ChainsawStep[] = [];
  // A case that is skipped anyway is not read further: its files may reference a cluster's state.
  if (!needs) {
    for (const [i, raw] of list(manifest.ops).entries()) {
      const step = obj(raw);
      const op = str(step, 'op') ?? '';
      if (DOC_OPS.has(op) || op === 'assert' || op === 'error') {
        const file = str(step, 'file');
        if (!file) return malformed(`${files.display}/manifest.json: ops[${i}] (${op}) has no file`);
        const docs = readDocs(files, file);
        if (!docs.ok) return docs;
        if (op === 'assert' || op === 'error') steps.push({ op, file, docs: docs.value, nonResource: step?.non_resource === true });
        else steps.push({ op: op as 'policy' | 'apply' | 'create' | 'update' | 'patch', file, docs: docs.value });
      } else if (op === 'delete') {
        const ref = obj(step?.ref);
        if (!ref) return malformed(`${files.display}/manifest.json: ops[${i}] (delete) has no ref`);
        steps.push({ op, ref });
      } else if (op === 'wait-policy-ready' || op === 'sleep') {
        steps.push({ op });
      } else {
        return malformed(`${files.display}/manifest.json: ops[${i}]: unknown op "${op}"`);
      }
    }
  }
  return ok({
    ...base,
    format: 'kyverno-chainsaw',
    dialect: registryDialectName(manifestDialect),
    // The manifests come from tests that name no namespace of their own.
    namespace: EPHEMERAL_TEST_NAMESPACE,
    ...(needs ? { needsCluster: needs } : {}),
    steps,
    features: strings(manifest.features),
  });
}
