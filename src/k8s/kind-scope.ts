/**
 * Kind scope by kind name alone, as the Kyverno CLI and chainsaw assume it when they place a resource, and the
 * Namespace object a matcher sees when only a namespace's name (and maybe labels) is known. Unlike
 * resources.ts isNamespacedKind (a GVK lookup that does not know CRDs), unknown kinds count as namespaced.
 */
import type { JsonObject } from '../ir/json.js';

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

export function kindDefaultsToNamespaced(kind: string): boolean {
  return !CLUSTER_SCOPED.has(kind);
}

/** A Namespace object as a matcher sees it when only its name (and maybe labels) is known. */
export function namespaceStub(name: string, labels?: JsonObject): JsonObject {
  const metadata: JsonObject = { name };
  if (labels && Object.keys(labels).length > 0) metadata.labels = labels;
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}
