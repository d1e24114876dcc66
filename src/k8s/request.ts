import type { JsonObject, JsonValue } from '../ir/json.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  /** Kyverno resolves these from RoleBindings; offline they are supplied with the request. */
  roles?: string[];
  clusterRoles?: string[];
}

/** An admission request as the interpreter sees it. Absent kind/resource/namespace/name are derived from the object. */
export interface AdmissionRequest {
  object: JsonValue | null;
  oldObject?: JsonValue | null;
  operation: Operation;
  userInfo?: UserInfo;
  namespaceObject?: JsonObject | null;
  params?: JsonValue | null;
  dryRun?: boolean;
  kind?: GroupVersionKind;
  resource?: GroupVersionResource;
  subResource?: string;
  namespace?: string;
  name?: string;
  /** Whether the object's kind is namespaced; derived from the built-in table when absent. */
  namespaced?: boolean;
  /** Gatekeeper's `source` match: objects under admission are `Original`, expanded ones `Generated`. */
  source?: 'Original' | 'Generated';
}
