/**
 * The kinds of the built-in schema: every type `io.k8s.api.<package>.<version>.<Kind>` with apiVersion,
 * kind and metadata fields, keyed "group/version/Kind" (core group empty: "/v1/Pod"). The SMD schema names
 * types by Go package, so the API group is derived from the package (k8s.io/api/<package>/register.go
 * GroupName); used only by scripts/gen-k8s-schema.ts.
 */
import type { Schema } from './schema.js';

/** Packages whose API group is not "<package>.k8s.io". */
const GROUP_OF_PACKAGE: Readonly<Record<string, string>> = {
  core: '',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  policy: 'policy',
  extensions: 'extensions',
  rbac: 'rbac.authorization.k8s.io',
  apiserverinternal: 'internal.apiserver.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
};

const TYPE_NAME = /^io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.([A-Z][A-Za-z0-9]*)$/;

export function groupOfPackage(pkg: string): string {
  return GROUP_OF_PACKAGE[pkg] ?? `${pkg}.k8s.io`;
}

export function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** "group/version/Kind" → type name, for every top-level built-in type. */
export function builtinKindIndex(schema: Schema): Record<string, string> {
  const kinds: Record<string, string> = {};
  for (const name of schema.typeNames()) {
    const m = TYPE_NAME.exec(name);
    if (m === null) continue;
    const fields = schema.resolve({ namedType: name })?.map?.fieldIndex;
    if (fields === undefined || !fields.has('apiVersion') || !fields.has('kind') || !fields.has('metadata')) continue;
    kinds[gvkKey(groupOfPackage(m[1]!), m[2]!, m[3]!)] = name;
  }
  return kinds;
}
