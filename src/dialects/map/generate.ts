/**
 * IR to MutatingAdmissionPolicy + MutatingAdmissionPolicyBinding. The policies come from emit-policies.ts
 * (shared with Kyverno's MutatingPolicy); this module writes the documents: one policy and one binding each,
 * in the API version asked for (the three versions have the same shape, map.md §1).
 */
import { layoutCel } from '../../cel/layout.js';
import type { JsonObject } from '../../ir/json.js';
import type { Policy } from '../../ir/nodes.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { GenerationReport } from '../generate-report.js';
import { MAP_TARGET } from './cel-target.js';
import { emitCelPolicies, slug, type EmittedPolicy } from './emit-policies.js';
import { DIALECT } from './lower.js';

/** The API versions MAP is served at, newest first, and the Kubernetes release that introduced each (map.md §1). */
export const MAP_API_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;
const SINCE: Record<string, string> = { v1: '1.36', v1beta1: '1.34', v1alpha1: '1.32' };
const GROUP = 'admissionregistration.k8s.io';

function documents(e: EmittedPolicy, apiVersion: string): JsonObject[] {
  const spec: JsonObject = { matchConstraints: e.matchConstraints };
  if (e.variables.length > 0) spec.variables = e.variables.map((v) => ({ name: v.name, expression: layoutCel(v.expression) }));
  if (e.conditions.length > 0) spec.matchConditions = e.conditions.map((c) => ({ name: c.name, expression: layoutCel(c.expression) }));
  spec.mutations = e.mutations.map((m): JsonObject =>
    m.patchType === 'ApplyConfiguration' ? { patchType: m.patchType, applyConfiguration: { expression: layoutCel(m.expression) } } : { patchType: m.patchType, jsonPatch: { expression: layoutCel(m.expression) } },
  );
  spec.failurePolicy = e.failurePolicy;
  spec.reinvocationPolicy = e.reinvocationPolicy;
  const binding = slug(`${e.name}-binding`);
  return [
    { apiVersion, kind: 'MutatingAdmissionPolicy', metadata: { name: e.name }, spec },
    { apiVersion, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: binding }, spec: e.bindingMatch ? { policyName: e.name, matchResources: e.bindingMatch } : { policyName: e.name } },
  ];
}

export function generateMap(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new GenerationReport('MutatingAdmissionPolicy', DIALECT, opts.unsupported ?? 'error');
  const version = opts.apiVersion ?? MAP_API_VERSIONS[0];
  // A policy written for an older API version must compile with that release's CEL libraries.
  const target = { ...MAP_TARGET, k8sVersion: SINCE[version] ?? SINCE.v1 };
  const docs = emitCelPolicies(policies, target, report, opts.mutationAnnotations ? { mutationAnnotations: opts.mutationAnnotations } : {}).flatMap((e) => documents(e, `${GROUP}/${version}`));
  report.finish(docs.length, policies.length, policies[0]?.origin);
  return { documents: docs, text: docs.length > 0 ? toYamlDocuments(docs) : '', diagnostics: report.diagnostics };
}
