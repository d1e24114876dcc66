/**
 * The SetDefaults_<Type> functions of kube-apiserver (kubernetes v1.33 pkg/apis/core/v1/defaults.go,
 * apps/v1/defaults.go, batch/v1/defaults.go, and the declarative `+default=` markers defaulter-gen inlines),
 * each on the JSON form of its type, writing into an object the caller owns. Go's "unset" differs by field
 * type: a string is unset when "" (`emptyString`), a pointer when nil (`nil`), an int when 0 (`zero`); absent
 * and null are unset for all three. Feature-gated defaults follow v1.33's default gates (PodLevelResources and
 * ImageVolume off, StatefulSetAutoDeletePVC and JobPodReplacementPolicy on).
 *
 * The generated table (table.generated.ts) says where each one is called.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { DefaulterName } from './table.generated.js';

type Defaulter = (o: JsonObject) => void;

const isNil = (o: JsonObject, k: string): boolean => !hasOwn(o, k) || o[k] === null;
const isEmptyString = (o: JsonObject, k: string): boolean => isNil(o, k) || o[k] === '';
const isZero = (o: JsonObject, k: string): boolean => isNil(o, k) || o[k] === 0;

function setIf(o: JsonObject, k: string, unset: (o: JsonObject, k: string) => boolean, value: JsonValue): void {
  if (unset(o, k)) o[k] = value;
}

/** The member object at `k`, created (a Go struct member is never nil) when absent. */
function member(o: JsonObject, k: string): JsonObject {
  const v = o[k];
  if (isJsonObject(v)) return v;
  const created: JsonObject = {};
  o[k] = created;
  return created;
}

function objects(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/**
 * pkg/util/parsers ParseImageName's tag: the reference's tag, "latest" when it has neither tag nor digest, ""
 * when it has only a digest or does not parse (docker reference names are lower case).
 */
export function imageTag(image: string): string {
  if (image === '') return '';
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const colon = name.lastIndexOf(':');
  const hasTag = colon > name.lastIndexOf('/');
  const repository = hasTag ? name.slice(0, colon) : name;
  const path = repository.includes('/') && /[.:]|^localhost$/.test(repository.slice(0, repository.indexOf('/'))) ? repository.slice(repository.indexOf('/') + 1) : repository;
  if (path !== path.toLowerCase() || path === '') return '';
  if (hasTag) return name.slice(colon + 1);
  return at < 0 ? 'latest' : '';
}

function container(o: JsonObject): void {
  if (isEmptyString(o, 'imagePullPolicy')) o.imagePullPolicy = imageTag(typeof o.image === 'string' ? o.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  setIf(o, 'terminationMessagePath', isEmptyString, '/dev/termination-log');
  setIf(o, 'terminationMessagePolicy', isEmptyString, 'File');
  // Not a defaulter: ResourceRequirements is a struct member, so the typed object always serializes it.
  if (!isJsonObject(o.resources)) o.resources = {};
}

/** SetDefaults_Pod: requests from limits (containers and init containers), enableServiceLinks, host ports. */
function pod(o: JsonObject): void {
  const spec = member(o, 'spec');
  for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
    const resources = isJsonObject(c.resources) ? c.resources : undefined;
    if (!resources || !isJsonObject(resources.limits)) continue;
    const requests = isJsonObject(resources.requests) ? resources.requests : (resources.requests = {});
    for (const [k, v] of Object.entries(resources.limits)) if (!hasOwn(requests, k)) requests[k] = v;
  }
  setIf(spec, 'enableServiceLinks', isNil, true);
  if (spec.hostNetwork === true) {
    for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
      for (const p of objects(c.ports)) if (isZero(p, 'hostPort') && typeof p.containerPort === 'number') p.hostPort = p.containerPort;
    }
  }
}

function podSpec(o: JsonObject): void {
  setIf(o, 'dnsPolicy', isEmptyString, 'ClusterFirst');
  setIf(o, 'restartPolicy', isEmptyString, 'Always');
  setIf(o, 'securityContext', isNil, {});
  setIf(o, 'terminationGracePeriodSeconds', isNil, 30);
  setIf(o, 'schedulerName', isEmptyString, 'default-scheduler');
}

/** SetDefaults_Volume: a volume with no source (ptr.AllPtrFieldsNil of VolumeSource) is an emptyDir. */
function volume(o: JsonObject): void {
  if (Object.keys(o).every((k) => k === 'name' || o[k] === null)) o.emptyDir = {};
}

/** Service: session affinity, type, port protocol and target port, traffic policies (SetDefaults_Service). */
function service(o: JsonObject): void {
  const spec = member(o, 'spec');
  setIf(spec, 'sessionAffinity', isEmptyString, 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = isJsonObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : undefined;
    const clientIP = config && isJsonObject(config.clientIP) ? config.clientIP : undefined;
    if (!clientIP || isNil(clientIP, 'timeoutSeconds')) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setIf(spec, 'type', isEmptyString, 'ClusterIP');
  for (const p of objects(spec.ports)) {
    setIf(p, 'protocol', isEmptyString, 'TCP');
    if (isNil(p, 'targetPort') || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  const externalIPs = Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0;
  const externallyAccessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && externalIPs);
  if (externallyAccessible) setIf(spec, 'externalTrafficPolicy', isEmptyString, 'Cluster');
  if (isNil(spec, 'internalTrafficPolicy') && (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer') setIf(spec, 'allocateLoadBalancerNodePorts', isNil, true);
}

/** A Deployment's or DaemonSet's strategy: RollingUpdate by default, which then gets its two limits. */
function rollingUpdateStrategy(strategy: JsonObject, maxUnavailable: JsonValue, maxSurge: JsonValue): void {
  setIf(strategy, 'type', isEmptyString, 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rolling = isJsonObject(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    setIf(rolling, 'maxUnavailable', isNil, maxUnavailable);
    setIf(rolling, 'maxSurge', isNil, maxSurge);
  }
}

function deployment(o: JsonObject): void {
  const spec = member(o, 'spec');
  setIf(spec, 'replicas', isNil, 1);
  rollingUpdateStrategy(member(spec, 'strategy'), '25%', '25%');
  setIf(spec, 'revisionHistoryLimit', isNil, 10);
  setIf(spec, 'progressDeadlineSeconds', isNil, 600);
}

function daemonSet(o: JsonObject): void {
  const spec = member(o, 'spec');
  rollingUpdateStrategy(member(spec, 'updateStrategy'), 1, 0);
  setIf(spec, 'revisionHistoryLimit', isNil, 10);
}

function statefulSet(o: JsonObject): void {
  const spec = member(o, 'spec');
  setIf(spec, 'podManagementPolicy', isEmptyString, 'OrderedReady');
  const strategy = member(spec, 'updateStrategy');
  if (isEmptyString(strategy, 'type')) {
    strategy.type = 'RollingUpdate';
    setIf(strategy, 'rollingUpdate', isNil, {});
  }
  if (strategy.type === 'RollingUpdate' && isJsonObject(strategy.rollingUpdate)) setIf(strategy.rollingUpdate, 'partition', isNil, 0);
  const retention = isJsonObject(spec.persistentVolumeClaimRetentionPolicy) ? spec.persistentVolumeClaimRetentionPolicy : (spec.persistentVolumeClaimRetentionPolicy = {});
  setIf(retention, 'whenDeleted', isEmptyString, 'Retain');
  setIf(retention, 'whenScaled', isEmptyString, 'Retain');
  setIf(spec, 'replicas', isNil, 1);
  setIf(spec, 'revisionHistoryLimit', isNil, 10);
}

function job(o: JsonObject): void {
  const spec = member(o, 'spec');
  if (isNil(spec, 'completions') && isNil(spec, 'parallelism')) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setIf(spec, 'parallelism', isNil, 1);
  // v1.33: with backoffLimitPerIndex the global limit defaults to MaxInt32 instead of 6.
  setIf(spec, 'backoffLimit', isNil, isNil(spec, 'backoffLimitPerIndex') ? 6 : 2147483647);
  const template = isJsonObject(spec.template) ? spec.template : undefined;
  const templateLabels = template && isJsonObject(template.metadata) && isJsonObject(template.metadata.labels) ? template.metadata.labels : undefined;
  if (templateLabels) {
    const md = member(o, 'metadata');
    if (!isJsonObject(md.labels) || Object.keys(md.labels).length === 0) md.labels = { ...templateLabels };
  }
  setIf(spec, 'completionMode', isNil, 'NonIndexed');
  setIf(spec, 'suspend', isNil, false);
  setIf(spec, 'podReplacementPolicy', isNil, isNil(spec, 'podFailurePolicy') ? 'TerminatingOrFailed' : 'Failed');
}

function cronJob(o: JsonObject): void {
  const spec = member(o, 'spec');
  setIf(spec, 'concurrencyPolicy', isEmptyString, 'Allow');
  setIf(spec, 'suspend', isNil, false);
  setIf(spec, 'successfulJobsHistoryLimit', isNil, 3);
  setIf(spec, 'failedJobsHistoryLimit', isNil, 1);
}

/** SetDefaults_ReplicationController: selector and labels from the template's labels. */
function replicationController(o: JsonObject): void {
  const spec = member(o, 'spec');
  const template = isJsonObject(spec.template) ? spec.template : undefined;
  const labels = template && isJsonObject(template.metadata) && isJsonObject(template.metadata.labels) ? template.metadata.labels : undefined;
  if (!labels) return;
  if (!isJsonObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
  const md = member(o, 'metadata');
  if (!isJsonObject(md.labels) || Object.keys(md.labels).length === 0) md.labels = { ...labels };
}

/** SetDefaults_Namespace: the `kubernetes.io/metadata.name` label (not for a generateName without a name). */
function namespace(o: JsonObject): void {
  const md = member(o, 'metadata');
  if (typeof md.name !== 'string' || md.name === '') return;
  const labels = isJsonObject(md.labels) ? md.labels : (md.labels = {});
  labels['kubernetes.io/metadata.name'] = md.name;
}

const defaultMode = (o: JsonObject): void => setIf(o, 'defaultMode', isNil, 420);

export const DEFAULTERS: Readonly<Record<DefaulterName, Defaulter>> = Object.freeze({
  Pod: pod,
  PodSpec: podSpec,
  Volume: volume,
  Container: container,
  ContainerPort: (o) => setIf(o, 'protocol', isEmptyString, 'TCP'),
  Probe: (o) => {
    setIf(o, 'timeoutSeconds', isZero, 1);
    setIf(o, 'periodSeconds', isZero, 10);
    setIf(o, 'successThreshold', isZero, 1);
    setIf(o, 'failureThreshold', isZero, 3);
  },
  HTTPGetAction: (o) => {
    setIf(o, 'path', isEmptyString, '/');
    setIf(o, 'scheme', isEmptyString, 'HTTP');
  },
  GRPCAction: (o) => setIf(o, 'service', isNil, ''),
  ObjectFieldSelector: (o) => setIf(o, 'apiVersion', isEmptyString, 'v1'),
  SecretVolumeSource: defaultMode,
  ConfigMapVolumeSource: defaultMode,
  DownwardAPIVolumeSource: defaultMode,
  ProjectedVolumeSource: defaultMode,
  ServiceAccountTokenProjection: (o) => setIf(o, 'expirationSeconds', isNil, 3600),
  HostPathVolumeSource: (o) => setIf(o, 'type', isNil, ''),
  ISCSIVolumeSource: (o) => setIf(o, 'iscsiInterface', isEmptyString, 'default'),
  RBDVolumeSource: (o) => {
    setIf(o, 'pool', isEmptyString, 'rbd');
    setIf(o, 'user', isEmptyString, 'admin');
    setIf(o, 'keyring', isEmptyString, '/etc/ceph/keyring');
  },
  AzureDiskVolumeSource: (o) => {
    setIf(o, 'cachingMode', isNil, 'ReadWrite');
    setIf(o, 'fsType', isNil, 'ext4');
    setIf(o, 'readOnly', isNil, false);
    setIf(o, 'kind', isNil, 'Shared');
  },
  ScaleIOVolumeSource: (o) => {
    setIf(o, 'storageMode', isEmptyString, 'ThinProvisioned');
    setIf(o, 'fsType', isEmptyString, 'xfs');
  },
  PersistentVolumeClaim: (o) => setIf(member(o, 'status'), 'phase', isEmptyString, 'Pending'),
  PersistentVolumeClaimSpec: (o) => setIf(o, 'volumeMode', isNil, 'Filesystem'),
  Service: service,
  Namespace: namespace,
  NamespaceStatus: (o) => setIf(o, 'phase', isEmptyString, 'Active'),
  Secret: (o) => setIf(o, 'type', isEmptyString, 'Opaque'),
  ReplicationController: replicationController,
  ReplicasOne: (o) => setIf(o, 'replicas', isNil, 1),
  Deployment: deployment,
  StatefulSet: statefulSet,
  DaemonSet: daemonSet,
  ReplicaSet: (o) => setIf(member(o, 'spec'), 'replicas', isNil, 1),
  Job: job,
  CronJob: cronJob,
});
