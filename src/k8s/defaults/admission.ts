/**
 * The default admission plugins of kube-apiserver that change a Pod on CREATE, in the order the apiserver
 * runs them (before MutatingAdmissionPolicies and mutating webhooks): ServiceAccount, Priority,
 * DefaultTolerationSeconds. Only what they do deterministically without a cluster is modelled:
 *
 * - ServiceAccount (plugin/pkg/admission/serviceaccount): `serviceAccountName: default` when unset and, unless
 *   `automountServiceAccountToken: false` or a container already mounts the token path, the projected token
 *   volume `kube-api-access-<suffix>` and its read-only mount in every init container and container. The
 *   apiserver's suffix is random (utilrand.String(5)); here the caller gives it (`tokenVolumeSuffix` derives
 *   one from the object, so a run is repeatable). The service account is assumed to exist and not to disable
 *   automount (a cluster's `default` one).
 * - Priority (plugin/pkg/admission/priority): no priorityClassName and no global default PriorityClass gives
 *   `priority: 0`; the built-in classes system-node-critical and system-cluster-critical give theirs; both set
 *   `preemptionPolicy: PreemptLowerPriority`. Another class needs the cluster's PriorityClass: left alone.
 * - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): NoExecute tolerations of
 *   `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable` for 300 s, each unless a toleration
 *   already tolerates that taint's NoExecute effect.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** k8s.io/apimachinery/pkg/util/rand: the alphabet of generated name suffixes (no vowels, no 0/1/3). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SYSTEM_PRIORITIES: Readonly<Record<string, number>> = Object.freeze({ 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 });

function isPod(o: JsonObject): boolean {
  return o.kind === 'Pod' && o.apiVersion === 'v1' && isJsonObject(o.spec);
}

/** A five-character suffix in the apiserver's alphabet, derived from the object's namespace and name (FNV-1a). */
export function tokenVolumeSuffix(o: JsonObject): string {
  const md = isJsonObject(o.metadata) ? o.metadata : {};
  const text = `${String(md.namespace ?? '')}/${String(md.name ?? md.generateName ?? '')}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  let out = '';
  for (let i = 0; i < 5; i++) {
    out += SUFFIX_ALPHABET[hash % SUFFIX_ALPHABET.length];
    hash = Math.floor(hash / SUFFIX_ALPHABET.length) ^ Math.imul(hash, 31);
    hash >>>= 0;
  }
  return out;
}

/** plugin/pkg/admission/serviceaccount Admit on a Pod CREATE. */
export function serviceAccountAdmission(pod: JsonObject, suffix: string): JsonObject {
  if (!isPod(pod)) return pod;
  const spec: JsonObject = { ...(pod.spec as JsonObject) };
  if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') spec.serviceAccountName = 'default';
  if (spec.automountServiceAccountToken === false) return { ...pod, spec };
  const containers = [spec.initContainers, spec.containers].flatMap((l) => (Array.isArray(l) ? l.filter(isJsonObject) : []));
  const mounted = containers.some((c) => Array.isArray(c.volumeMounts) && c.volumeMounts.some((m) => isJsonObject(m) && m.mountPath === TOKEN_MOUNT_PATH));
  if (mounted) return { ...pod, spec };
  const name = `kube-api-access-${suffix}`;
  spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), tokenVolume(name)];
  const withMount = (c: JsonValue): JsonValue =>
    isJsonObject(c) ? { ...c, volumeMounts: [...(Array.isArray(c.volumeMounts) ? c.volumeMounts : []), { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }] } : c;
  if (Array.isArray(spec.initContainers)) spec.initContainers = spec.initContainers.map(withMount);
  if (Array.isArray(spec.containers)) spec.containers = spec.containers.map(withMount);
  return { ...pod, spec };
}

function tokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** plugin/pkg/admission/priority Admit on a Pod CREATE, for the classes known without a cluster. */
export function priorityAdmission(pod: JsonObject): JsonObject {
  if (!isPod(pod)) return pod;
  const spec = pod.spec as JsonObject;
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  const priority = className === '' ? 0 : SYSTEM_PRIORITIES[className];
  if (priority === undefined) return pod;
  return { ...pod, spec: { ...spec, priority: typeof spec.priority === 'number' ? spec.priority : priority, preemptionPolicy: typeof spec.preemptionPolicy === 'string' ? spec.preemptionPolicy : 'PreemptLowerPriority' } };
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Whether a toleration tolerates the taint's NoExecute effect (an empty key and effect tolerate any). */
function tolerates(t: JsonValue, key: string): boolean {
  if (!isJsonObject(t)) return false;
  const k = typeof t.key === 'string' ? t.key : '';
  const effect = typeof t.effect === 'string' ? t.effect : '';
  return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
}

/** plugin/pkg/admission/defaulttolerationseconds Admit on a Pod CREATE. */
export function defaultTolerationSeconds(pod: JsonObject): JsonObject {
  if (!isPod(pod)) return pod;
  const spec = pod.spec as JsonObject;
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const added: JsonObject[] = [];
  if (!tolerations.some((t) => tolerates(t, NOT_READY))) added.push({ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  if (!tolerations.some((t) => tolerates(t, UNREACHABLE))) added.push({ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  if (added.length === 0) return pod;
  return { ...pod, spec: { ...spec, tolerations: [...tolerations, ...added] } };
}

/** The built-in mutating admission plugins on a CREATE, in the apiserver's order; other requests unchanged. */
export function builtInAdmission(object: JsonObject, operation: string, suffix: string = tokenVolumeSuffix(object)): JsonObject {
  if (operation !== 'CREATE') return object;
  return defaultTolerationSeconds(priorityAdmission(serviceAccountAdmission(object, suffix)));
}
