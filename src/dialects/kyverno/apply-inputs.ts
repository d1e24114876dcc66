/**
 * What `kyverno apply` users give besides policies and resources, for `transmute apply`: a cli.kyverno.io
 * Values file (`-f/--values-file`, the format kyverno-test.yaml suites use), `--set key=value,…` variables
 * (global values, as kyverno apply's `--set`), and the Namespace each resource is in, taken from the Namespace
 * objects among the resources or, failing those, from the values' `namespaceSelector` labels.
 */
import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { namespaceStub } from '../../k8s/kind-scope.js';

/** `--set a=1,b.c=x` (repeatable): each pair is a global value; the value stays a string, as kyverno apply keeps it. */
export function withSetValues(values: JsonObject | undefined, sets: readonly string[]): JsonObject | { error: string } {
  if (sets.length === 0) return values ?? {};
  const global: JsonObject = isJsonObject(values?.globalValues) ? copyObject(values.globalValues) : {};
  for (const set of sets) {
    for (const pair of set.split(',')) {
      if (pair.trim() === '') continue;
      const eq = pair.indexOf('=');
      if (eq <= 0) return { error: `--set ${JSON.stringify(pair)}: want key=value` };
      global[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
    }
  }
  return { ...(values ?? {}), globalValues: global };
}

/** A values document must be a cli.kyverno.io Values (or the legacy form without apiVersion and kind). */
export function valuesProblem(doc: JsonValue): string | undefined {
  if (!isJsonObject(doc)) return 'a values file must be a YAML mapping';
  if (doc.kind !== undefined && doc.kind !== 'Values') return `not a Kyverno Values document (kind ${JSON.stringify(doc.kind)}; want cli.kyverno.io/v1alpha1 Values)`;
  return undefined;
}

/** The Namespace object of a resource's namespace: one given among the resources, else one with the values' labels. */
export function namespaceFor(resource: JsonValue, namespaces: readonly JsonObject[], values: JsonObject | undefined): JsonObject | undefined {
  const md = isJsonObject(resource) && isJsonObject(resource.metadata) ? resource.metadata : {};
  const ns = typeof md.namespace === 'string' ? md.namespace : '';
  if (ns === '') return undefined;
  const given = namespaces.find((n) => isJsonObject(n.metadata) && n.metadata.name === ns);
  if (given) return given;
  const selector = (Array.isArray(values?.namespaceSelector) ? values.namespaceSelector : []).find((e) => isJsonObject(e) && e.name === ns);
  return isJsonObject(selector) ? namespaceStub(ns, isJsonObject(selector.labels) ? selector.labels : undefined) : undefined;
}

export function isNamespace(v: JsonValue): v is JsonObject {
  return isJsonObject(v) && v.kind === 'Namespace' && (v.apiVersion === 'v1' || v.apiVersion === undefined);
}
