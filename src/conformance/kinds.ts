/** Small facts about kinds and dialect names the loaders need to rebuild a request as upstream tools do. */
import type { JsonObject, JsonValue } from '../ir/json.js';
import { isJsonObject } from '../ir/json.js';

/**
 * Cluster-scoped kinds. Everything else is namespaced, unknown CRDs included: the Kyverno CLI defaults the
 * namespace of any kind it does not know to "default" (cmd/cli/kubectl-kyverno/resource; manifest
 * `cli_preprocessing`), and chainsaw puts such objects in its test namespace.
 */
const CLUSTER_SCOPED = new Set([
  'APIService', 'CertificateSigningRequest', 'ClusterRole', 'ClusterRoleBinding', 'ComponentStatus', 'CSIDriver',
  'CSINode', 'CustomResourceDefinition', 'FlowSchema', 'IngressClass', 'MutatingWebhookConfiguration', 'Namespace',
  'Node', 'PersistentVolume', 'PriorityClass', 'PriorityLevelConfiguration', 'RuntimeClass', 'SelfSubjectAccessReview',
  'SelfSubjectRulesReview', 'StorageClass', 'SubjectAccessReview', 'TokenReview', 'ValidatingWebhookConfiguration',
  'VolumeAttachment', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  // kyverno.io and policies.kyverno.io
  'ClusterPolicy', 'ClusterPolicyReport', 'ClusterCleanupPolicy', 'ClusterEphemeralReport', 'GlobalContextEntry',
  'MutatingPolicy', 'ValidatingPolicy', 'ImageValidatingPolicy', 'GeneratingPolicy', 'DeletingPolicy',
  // mutations.gatekeeper.sh
  'Assign', 'AssignMetadata', 'ModifySet', 'AssignImage',
]);

export function isNamespacedKind(kind: string): boolean {
  return !CLUSTER_SCOPED.has(kind);
}

/**
 * The registry name of the dialect a manifest's `dialect` field needs. Kyverno's CEL `MutatingPolicy`
 * (policies.kyverno.io) is read by the Kyverno dialect when it supports it; until then that dialect reads none
 * of its documents and the case is `unsupported`.
 */
export function registryDialectName(manifestDialect: string): string {
  switch (manifestDialect) {
    case 'mutatingadmissionpolicy':
      return 'map';
    case 'kyverno-mutatingpolicy-cel':
      return 'kyverno';
    default:
      return manifestDialect;
  }
}

/** The dialect a policy document belongs to, by its API group, for a suite that does not say. */
export function dialectOfDocument(value: JsonValue): string | undefined {
  const apiVersion = isJsonObject(value) && typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === 'kyverno.io' || group === 'policies.kyverno.io') return 'kyverno';
  if (group === 'admissionregistration.k8s.io') return 'map';
  if (group === 'mutations.gatekeeper.sh') return 'gatekeeper';
  return undefined;
}

export function kindOf(value: JsonValue | undefined): string {
  return isJsonObject(value) && typeof value.kind === 'string' ? value.kind : '';
}

/** A Namespace object as a matcher sees it when only its name (and maybe labels) is known. */
export function namespaceStub(name: string, labels?: JsonObject): JsonObject {
  const metadata: JsonObject = { name };
  if (labels && Object.keys(labels).length > 0) metadata.labels = labels;
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}
