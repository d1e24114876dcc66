/**
 * What the API server and its controllers do around Kyverno's webhook, for the chainsaw replay: defaulting and
 * the built-in admission plugins (src/k8s/defaults), the typed round-trip that persists an object, the objects
 * the cluster creates by itself (each namespace's `default` ServiceAccount), and what a
 * CustomResourceDefinition teaches the cluster (its kind's schema and scope, its plural resource).
 */
import { isJsonObject, type JsonObject } from '../../ir/json.js';
import { storedObject, typedRoundTrip } from '../../k8s/defaults/index.js';
import { crdKindSchemas } from '../../merge/ssa/openapi/crd.js';
import type { KindSchemaTable } from '../../merge/ssa/openapi/kinds.js';

export { serviceAccountAdmission } from '../../k8s/defaults/index.js';

/** The object as the API server stores it, without defaulting: the typed round-trip of a built-in kind. */
export const persisted: (o: JsonObject) => JsonObject = typedRoundTrip;

/** The stored form of an admitted object: its kind's defaults again, then the typed round-trip. */
export function persistedWithDefaults(o: JsonObject): JsonObject {
  const stored = storedObject(o);
  return isJsonObject(stored) ? stored : o;
}

/**
 * The ServiceAccount the service account controller creates in every namespace
 * (pkg/controller/serviceaccount: `default`, with no token secrets since v1.24).
 */
export function defaultServiceAccount(namespace: string): JsonObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } };
}

/** What a CustomResourceDefinition makes the cluster know. */
export interface CrdFacts {
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The schemas of its served versions, as the API server publishes them. */
  kinds: KindSchemaTable | undefined;
}

/** The facts of an apiextensions.k8s.io/v1 CustomResourceDefinition, or undefined for anything else. */
export function crdFacts(o: JsonObject): CrdFacts | undefined {
  if (o.kind !== 'CustomResourceDefinition' || o.apiVersion !== 'apiextensions.k8s.io/v1' || !isJsonObject(o.spec)) return undefined;
  const spec = o.spec;
  const names = isJsonObject(spec.names) ? spec.names : {};
  if (typeof spec.group !== 'string' || typeof names.kind !== 'string') return undefined;
  const schemas = crdKindSchemas(o);
  return {
    group: spec.group,
    kind: names.kind,
    plural: typeof names.plural === 'string' ? names.plural : `${names.kind.toLowerCase()}s`,
    namespaced: spec.scope !== 'Cluster',
    kinds: schemas.ok ? schemas.value.kinds : undefined,
  };
}
