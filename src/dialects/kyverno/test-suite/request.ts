/**
 * The admission request the Kyverno CLI builds for one resource of a test: the namespace defaulted to
 * "default" for namespaced kinds, the operation the result entry declares, else the values file's
 * (`request.operation`), else CREATE,
 * namespace labels from `namespaceSelector` values, the user from a `UserInfo` file
 * (cmd/cli/kubectl-kyverno: processor and values handling; see the manifests' `cli_preprocessing`).
 */
import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { kindDefaultsToNamespaced, namespaceStub } from '../../../k8s/kind-scope.js';
import type { AdmissionRequest, Operation, UserInfo } from '../../../k8s/request.js';
import { kindOf, metadataOf } from './select.js';

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** A copy of the object with `metadata.namespace: default` when its kind is namespaced and it has none. */
export function withDefaultNamespace<T extends JsonValue>(value: T): T {
  if (!isJsonObject(value) || !kindDefaultsToNamespaced(kindOf(value))) return value;
  const metadata = metadataOf(value);
  if (typeof metadata.namespace === 'string' && metadata.namespace !== '') return value;
  const copy = copyObject(value);
  const md = copyObject(metadata);
  md.namespace = 'default';
  copy.metadata = md;
  return copy as T;
}

export interface KyvernoRequestInputs {
  /** A cli.kyverno.io `Values` document (the test's `variables` file or inline `values`). */
  values?: JsonObject | undefined;
  /** A cli.kyverno.io `UserInfo` document. */
  userInfo?: JsonObject | undefined;
  /** The policy under test, to pick per-policy resource values. */
  policy?: string | undefined;
  /**
   * The result entry's own `operation`: kyverno test evaluates the resource again with it, and it wins over the
   * values file's `request.operation` (processor: "an explicitly configured operation ... takes precedence").
   */
  operation?: string | undefined;
}

/** processor.NormalizeOperation: the operations a result entry may declare. */
const RESULT_OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE']);

export function kyvernoRequest(object: JsonObject, inputs: KyvernoRequestInputs): AdmissionRequest | string {
  const metadata = metadataOf(object);
  const name = str(metadata, 'name') ?? '';
  const namespace = str(metadata, 'namespace') ?? '';
  const declared = inputs.operation !== undefined && inputs.operation !== '' ? inputs.operation : undefined;
  if (declared !== undefined && !RESULT_OPERATIONS.has(declared)) return `invalid operation ${JSON.stringify(declared)}, must be one of CREATE, UPDATE, DELETE`;
  const operation = declared ?? operationFor(inputs.values, inputs.policy, name) ?? 'CREATE';
  if (!OPERATIONS.has(operation)) return `request.operation "${operation}" is not an admission operation`;
  const request: AdmissionRequest = { object, operation: operation as Operation, namespace, name };
  if (namespace !== '') request.namespaceObject = namespaceStub(namespace, namespaceLabels(inputs.values, namespace));
  const user = userInfoOf(inputs.userInfo);
  if (user) request.userInfo = user;
  return request;
}

function operationFor(values: JsonObject | undefined, policy: string | undefined, resource: string): string | undefined {
  if (!values) return undefined;
  const policyName = policy?.includes('/') ? policy.slice(policy.indexOf('/') + 1) : policy;
  for (const p of list(values.policies)) {
    const po = obj(p);
    if (policyName !== undefined && str(po, 'name') !== policyName) continue;
    for (const r of list(po?.resources)) {
      const ro = obj(r);
      if (str(ro, 'name') !== resource) continue;
      const op = str(obj(ro?.values), 'request.operation');
      if (op) return op;
    }
  }
  return str(obj(values.globalValues), 'request.operation');
}

function namespaceLabels(values: JsonObject | undefined, namespace: string): JsonObject | undefined {
  for (const entry of list(values?.namespaceSelector)) {
    const e = obj(entry);
    if (str(e, 'name') === namespace) return obj(e?.labels);
  }
  return undefined;
}

function userInfoOf(doc: JsonObject | undefined): UserInfo | undefined {
  if (!doc) return undefined;
  const inner = obj(doc.userInfo) ?? {};
  const info: UserInfo = { username: str(inner, 'username') ?? '', groups: strings(inner.groups) };
  const uid = str(inner, 'uid');
  if (uid) info.uid = uid;
  if (Array.isArray(doc.roles)) info.roles = strings(doc.roles);
  if (Array.isArray(doc.clusterRoles)) info.clusterRoles = strings(doc.clusterRoles);
  return info;
}

function str(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

function obj(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: JsonValue | undefined): string[] {
  return list(value).filter((v): v is string => typeof v === 'string');
}
