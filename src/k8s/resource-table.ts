/**
 * Built-in Kubernetes kinds: `group version Kind plural scope`, one per line, `core` standing for the empty
 * group, `N` namespaced and `C` cluster-scoped. Written from the Kubernetes API reference (v1.34); the
 * served version listed is the preferred one, and `resourceOf` keeps whatever version a request names.
 * test/k8s/resources.test.ts cross-checks the core, apps, batch and discovery rows against the OpenAPI
 * documents in ../shared/conformance/map/k8s-schema/openapi-v3.
 */
export const BUILTIN_RESOURCES = `
core v1 Binding bindings N
core v1 ComponentStatus componentstatuses C
core v1 ConfigMap configmaps N
core v1 Endpoints endpoints N
core v1 Event events N
core v1 LimitRange limitranges N
core v1 Namespace namespaces C
core v1 Node nodes C
core v1 PersistentVolume persistentvolumes C
core v1 PersistentVolumeClaim persistentvolumeclaims N
core v1 Pod pods N
core v1 PodTemplate podtemplates N
core v1 ReplicationController replicationcontrollers N
core v1 ResourceQuota resourcequotas N
core v1 Secret secrets N
core v1 Service services N
core v1 ServiceAccount serviceaccounts N
admissionregistration.k8s.io v1 MutatingWebhookConfiguration mutatingwebhookconfigurations C
admissionregistration.k8s.io v1 ValidatingWebhookConfiguration validatingwebhookconfigurations C
admissionregistration.k8s.io v1 ValidatingAdmissionPolicy validatingadmissionpolicies C
admissionregistration.k8s.io v1 ValidatingAdmissionPolicyBinding validatingadmissionpolicybindings C
admissionregistration.k8s.io v1beta1 MutatingAdmissionPolicy mutatingadmissionpolicies C
admissionregistration.k8s.io v1beta1 MutatingAdmissionPolicyBinding mutatingadmissionpolicybindings C
apiextensions.k8s.io v1 CustomResourceDefinition customresourcedefinitions C
apiregistration.k8s.io v1 APIService apiservices C
apps v1 ControllerRevision controllerrevisions N
apps v1 DaemonSet daemonsets N
apps v1 Deployment deployments N
apps v1 ReplicaSet replicasets N
apps v1 StatefulSet statefulsets N
authentication.k8s.io v1 SelfSubjectReview selfsubjectreviews C
authentication.k8s.io v1 TokenReview tokenreviews C
authorization.k8s.io v1 LocalSubjectAccessReview localsubjectaccessreviews N
authorization.k8s.io v1 SelfSubjectAccessReview selfsubjectaccessreviews C
authorization.k8s.io v1 SelfSubjectRulesReview selfsubjectrulesreviews C
authorization.k8s.io v1 SubjectAccessReview subjectaccessreviews C
autoscaling v2 HorizontalPodAutoscaler horizontalpodautoscalers N
batch v1 CronJob cronjobs N
batch v1 Job jobs N
certificates.k8s.io v1 CertificateSigningRequest certificatesigningrequests C
certificates.k8s.io v1beta1 ClusterTrustBundle clustertrustbundles C
coordination.k8s.io v1 Lease leases N
coordination.k8s.io v1beta1 LeaseCandidate leasecandidates N
discovery.k8s.io v1 EndpointSlice endpointslices N
events.k8s.io v1 Event events N
flowcontrol.apiserver.k8s.io v1 FlowSchema flowschemas C
flowcontrol.apiserver.k8s.io v1 PriorityLevelConfiguration prioritylevelconfigurations C
networking.k8s.io v1 IPAddress ipaddresses C
networking.k8s.io v1 Ingress ingresses N
networking.k8s.io v1 IngressClass ingressclasses C
networking.k8s.io v1 NetworkPolicy networkpolicies N
networking.k8s.io v1 ServiceCIDR servicecidrs C
node.k8s.io v1 RuntimeClass runtimeclasses C
policy v1 PodDisruptionBudget poddisruptionbudgets N
rbac.authorization.k8s.io v1 ClusterRole clusterroles C
rbac.authorization.k8s.io v1 ClusterRoleBinding clusterrolebindings C
rbac.authorization.k8s.io v1 Role roles N
rbac.authorization.k8s.io v1 RoleBinding rolebindings N
resource.k8s.io v1 DeviceClass deviceclasses C
resource.k8s.io v1 ResourceClaim resourceclaims N
resource.k8s.io v1 ResourceClaimTemplate resourceclaimtemplates N
resource.k8s.io v1 ResourceSlice resourceslices C
scheduling.k8s.io v1 PriorityClass priorityclasses C
storage.k8s.io v1 CSIDriver csidrivers C
storage.k8s.io v1 CSINode csinodes C
storage.k8s.io v1 CSIStorageCapacity csistoragecapacities N
storage.k8s.io v1 StorageClass storageclasses C
storage.k8s.io v1 VolumeAttachment volumeattachments C
storage.k8s.io v1 VolumeAttributesClass volumeattributesclasses C
storagemigration.k8s.io v1alpha1 StorageVersionMigration storageversionmigrations C
`;

