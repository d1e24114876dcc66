/** Small facts about kinds and dialect names the loaders need to rebuild a request as upstream tools do. */
import type { JsonValue } from '../ir/json.js';
import { isJsonObject } from '../ir/json.js';

export { kindDefaultsToNamespaced as isNamespacedKind, namespaceStub } from '../k8s/kind-scope.js';

/**
 * The registry name of the dialect a manifest's `dialect` field needs. Kyverno's CEL `MutatingPolicy`
 * (policies.kyverno.io) has a dialect of its own, `kyverno-mpol`.
 */
export function registryDialectName(manifestDialect: string): string {
  switch (manifestDialect) {
    case 'mutatingadmissionpolicy':
      return 'map';
    case 'kyverno-mutatingpolicy-cel':
      return 'kyverno-mpol';
    default:
      return manifestDialect;
  }
}

/** The dialect a policy document belongs to, by its API group, for a suite that does not say. */
export function dialectOfDocument(value: JsonValue): string | undefined {
  const apiVersion = isJsonObject(value) && typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === 'kyverno.io') return 'kyverno';
  if (group === 'policies.kyverno.io') return 'kyverno-mpol';
  if (group === 'admissionregistration.k8s.io') return 'map';
  if (group === 'mutations.gatekeeper.sh') return 'gatekeeper';
  return undefined;
}

export function kindOf(value: JsonValue | undefined): string {
  return isJsonObject(value) && typeof value.kind === 'string' ? value.kind : '';
}
