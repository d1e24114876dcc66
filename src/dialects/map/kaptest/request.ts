/**
 * The admission request of one kaptest test (pfnet/kaptest internal/tester/tester.go `newMutationParams`,
 * `getNamespaceObj`, `getNamespaceName`; mutation.go `VersionedAttributes`): CREATE when only `object` is
 * given, UPDATE with both; the Namespace object is the resource named after the object's namespace, or a bare
 * Namespace of that name when the manifest has none; `userInfo` is taken as written; dryRun is always true.
 */
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { AdmissionRequest, UserInfo } from '../../../k8s/request.js';
import type { KaptestUserInfo } from './model.js';
import type { ResourceIndex } from './resources.js';

export function namespaceOf(o: JsonObject | undefined): string {
  const md = o && isJsonObject(o.metadata) ? o.metadata : undefined;
  return md && typeof md.namespace === 'string' ? md.namespace : '';
}

/** The request's Namespace object, or a problem (kaptest: "namespace is different between object and oldObject"). */
export function namespaceObject(index: ResourceIndex, object: JsonObject | undefined, oldObject: JsonObject | undefined): { value: JsonObject | null } | { problem: string } {
  if (object && oldObject && namespaceOf(object) !== namespaceOf(oldObject)) return { problem: 'namespace is different between object and oldObject' };
  const name = namespaceOf(object ?? oldObject);
  if (name === '') return { value: null };
  const found = index.lookup({ kind: 'Namespace', name });
  if ('ambiguous' in found) return { problem: `multiple target resource found: Namespace:${name}` };
  if ('found' in found) return { value: found.found.value };
  return { value: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } };
}

export function userInfoOf(u: KaptestUserInfo): UserInfo {
  const out: UserInfo = { username: u.name ?? '' };
  if (u.groups) out.groups = u.groups;
  if (u.extra) out.extra = u.extra;
  return out;
}

/** The admission request of one test; its param reaches the policy through the binding's paramRef. */
export function admissionRequest(object: JsonObject, oldObject: JsonObject | undefined, namespace: JsonObject | null, user: KaptestUserInfo): AdmissionRequest {
  const request: AdmissionRequest = {
    object,
    operation: oldObject ? 'UPDATE' : 'CREATE',
    userInfo: userInfoOf(user),
    namespaceObject: namespace,
    dryRun: true,
  };
  if (oldObject) request.oldObject = oldObject;
  return request;
}
