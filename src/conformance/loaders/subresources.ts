/**
 * The Kyverno CLI's `subresources` values (cli.kyverno.io Values): a resource whose kind is listed as a
 * subresource (a `Binding` as `pods/binding`) is admitted as that subresource of its parent resource
 * (cmd/cli/kubectl-kyverno/processor: the request's resource is the parent's, with the subresource name).
 */
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { parseApiVersion } from '../../k8s/resources.js';

export function asSubresourceRequest(request: AdmissionRequest, values: JsonObject | undefined): AdmissionRequest {
  const object = request.object;
  if (!values || !Array.isArray(values.subresources) || !isJsonObject(object)) return request;
  for (const entry of values.subresources) {
    if (!isJsonObject(entry) || !isJsonObject(entry.subresource) || !isJsonObject(entry.parentResource)) continue;
    const sub = entry.subresource;
    const parent = entry.parentResource;
    if (sub.kind !== object.kind || typeof sub.name !== 'string' || !sub.name.includes('/')) continue;
    const [resource, subResource] = sub.name.split('/') as [string, string];
    const { group, version } = parseApiVersion(typeof object.apiVersion === 'string' ? object.apiVersion : '');
    const parentGroup = typeof parent.group === 'string' ? parent.group : group;
    const parentVersion = typeof parent.version === 'string' ? parent.version : version;
    return {
      ...request,
      kind: { group, version, kind: String(object.kind) },
      resource: { group: parentGroup, version: parentVersion, resource },
      subResource,
    };
  }
  return request;
}
