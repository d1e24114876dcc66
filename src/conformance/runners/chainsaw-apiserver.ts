/**
 * What the API server itself does around Kyverno's webhook, for the chainsaw replay: the built-in
 * ServiceAccount admission plugin, which runs before the mutating webhooks, and the typed round-trip that
 * persists an object. Only the parts the corpus' assertions observe are modelled.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * plugin/pkg/admission/serviceaccount/admission.go on a Pod CREATE: defaults `serviceAccountName`, and unless
 * automount is disabled adds the projected `kube-api-access-*` token volume (appended to `spec.volumes`) and
 * its mount in every container and init container that does not already mount that path. Webhooks then see
 * that volume, which is why a policy removing `/spec/volumes/1` removes a different element than offline.
 */
export function serviceAccountAdmission(pod: JsonObject, suffix: string): JsonObject {
  if (pod.kind !== 'Pod' || pod.apiVersion !== 'v1' || !isJsonObject(pod.spec)) return pod;
  const spec: JsonObject = { ...pod.spec };
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

/**
 * The object as the API server stores it. Built-in kinds are decoded into Go structs whose list fields are
 * `omitempty`, so an empty list a patch leaves behind (`env: []` after removing every variable) is gone on
 * read-back; custom resources are stored as written.
 */
export function persisted(o: JsonObject): JsonObject {
  return isBuiltIn(o) ? (dropEmptyLists(o) as JsonObject) : o;
}

function isBuiltIn(o: JsonObject): boolean {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return !group.includes('.') || group.endsWith('.k8s.io');
}

function dropEmptyLists(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(dropEmptyLists);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = v[k]!;
    if (Array.isArray(x) && x.length === 0) continue;
    Object.defineProperty(out, k, { value: dropEmptyLists(x), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
