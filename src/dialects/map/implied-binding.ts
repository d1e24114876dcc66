/**
 * The Kyverno CLI applies a MutatingAdmissionPolicy that no binding names as if one bound it with no further
 * restriction (cmd/cli/kubectl-kyverno/.../admissionpolicy Mutate: "no bindings" runs MutateResource after
 * matching the policy's own matchConstraints). kube-apiserver never runs an unbound policy, so a replay of
 * the CLI supplies that binding explicitly.
 */
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { loadYamlText } from '../../io/yaml-load.js';
import { BINDING_KIND, POLICY_KIND } from './model.js';

/** The bindings the Kyverno CLI implies for the policies among `docs` that no binding among them names. */
export function impliedBindingValues(docs: readonly SourceDoc[]): JsonObject[] {
  const bound = new Set<string>();
  for (const d of docs) {
    const v = d.value;
    if (isJsonObject(v) && v.kind === BINDING_KIND && isJsonObject(v.spec) && typeof v.spec.policyName === 'string') bound.add(v.spec.policyName);
  }
  const out: JsonObject[] = [];
  for (const d of docs) {
    const v = d.value;
    if (!isJsonObject(v) || v.kind !== POLICY_KIND || !isJsonObject(v.metadata) || typeof v.metadata.name !== 'string' || bound.has(v.metadata.name)) continue;
    out.push({
      apiVersion: typeof v.apiVersion === 'string' ? v.apiVersion : 'admissionregistration.k8s.io/v1alpha1',
      kind: BINDING_KIND,
      metadata: { name: `${v.metadata.name}-binding` },
      spec: { policyName: v.metadata.name },
    });
  }
  return out;
}

/** The implied bindings as documents, named after `display` so diagnostics say where they came from. */
export function impliedBindingDocs(docs: readonly SourceDoc[], display: string): SourceDoc[] {
  const values = impliedBindingValues(docs);
  if (values.length === 0) return [];
  const loaded = loadYamlText(display, values.map((v) => JSON.stringify(v)).join('\n---\n'));
  return loaded.ok ? loaded.value : [];
}
