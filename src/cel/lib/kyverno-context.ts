/**
 * The data Kyverno's CEL libraries read from a cluster (resource.Get/List, globalContext.Get, http.Get/Post,
 * image.GetMetadata). Offline, whoever runs a policy supplies what it knows through a provider; a library
 * call the provider cannot answer fails with an error that names the library, so a case that needs a live
 * cluster says so instead of guessing. The provider reaches the library functions through the evaluation:
 * `program.eval(activation, { services: { kyvernoData } })` (RuntimeServices in ../compile.ts); nothing here
 * holds it between calls.
 */
import type { JsonValue } from '../../ir/json.js';
import { CelError } from '../values.js';

export interface KyvernoDataProvider {
  /** `resource.Get(apiVersion, resource, namespace, name)`: the object, or undefined when it does not exist. */
  getResource?(apiVersion: string, resource: string, namespace: string, name: string): JsonValue | undefined;
  /** `resource.List(apiVersion, resource, namespace)`: the objects ('' namespace: every namespace). */
  listResources?(apiVersion: string, resource: string, namespace: string): JsonValue[];
  /** `globalContext.Get(entry, projection)`; undefined when the entry is unknown. */
  globalContext?(entry: string, projection: string): JsonValue | undefined;
  /**
   * A GET of an API server path, as a Kyverno `apiCall` or `configMap` context entry makes it: the response
   * (`found`), `missing` (the server's not-found), or undefined where this provider cannot answer the path.
   * Only a replayed cluster (conformance/runners/chainsaw.ts) answers it.
   */
  apiGet?(urlPath: string): { found: JsonValue } | 'missing' | undefined;
}

/** Raised when a library needs data nobody supplied: the message names the library. */
export class KyvernoDataUnavailable extends CelError {}

/** How every error about data an offline run lacks begins (a library's, a Kyverno context entry's). */
export const OFFLINE = 'unsupported offline';

/** How an error of a library without data begins; runners turn such a failure into `unsupported`. */
export const UNSUPPORTED_OFFLINE = `${OFFLINE}: Kyverno CEL library`;

/**
 * How the data Kyverno fetches from outside the cluster is named in those errors (a registry's image metadata,
 * a network service): `kyverno test` fetches it too, so a suite row that needs it is not run offline, where
 * one that reads the cluster fails as the CLI's fake cluster fails it.
 */
export const OUTSIDE_DATA = { registry: 'from an OCI registry', network: 'a network service' } as const;

/** Whether an unsupported-offline error names data from outside the cluster. */
export function needsOutsideData(message: string): boolean {
  return message.includes(OFFLINE) && (message.includes(OUTSIDE_DATA.registry) || message.includes(OUTSIDE_DATA.network));
}

/** How the cluster's objects are named in those errors (resource.Get/List without a cluster to read). */
export const CLUSTER_OBJECTS = "the cluster's objects";

/** Whether an unsupported-offline error says the run had no cluster for the resource library to read. */
export function needsClusterObjects(message: string): boolean {
  return message.includes(OFFLINE) && message.includes(CLUSTER_OBJECTS);
}

export function unavailable(library: string, what: string): never {
  throw new KyvernoDataUnavailable(`${UNSUPPORTED_OFFLINE} ${library} needs ${what}, which this run does not supply`);
}
