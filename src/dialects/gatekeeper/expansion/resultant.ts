/**
 * One generated resource built from its generator and a template, as pkg/expansion/system.go expandResource
 * builds it: a deep copy of the generator's `templateSource` map, `apiVersion`/`kind` from `generatedGVK`, the
 * namespace of the Namespace object (removed when that Namespace has no name) or else the generator's own,
 * the name `<generator name>-<generated kind>` in lower case, and an owner reference to the generator.
 */
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import { goQuote } from '../go-format.js';
import { apiVersionOf, type ExpansionTemplate } from './template.js';
import { deepCopy, nestedMap, nestedString, ownerReferences, setNamespace, setNested, setOwnerReferences, stringAt, type OwnerReference } from './unstructured.js';

export type Built<T> = { ok: true; value: T } | { ok: false; error: string };

/** The Namespace's name (corev1.Namespace.Name): '' for the empty Namespace gator gives cluster-scoped objects. */
export function namespaceName(ns: JsonObject): string {
  return stringAt(ns, ['metadata', 'name']);
}

/** mockNameForResource: `nginx-deployment` expanded into a Pod is `nginx-deployment-pod`. */
export function mockName(generator: JsonObject, kind: string): string {
  return (stringAt(generator, ['metadata', 'name']) + (kind !== '' ? '-' : '') + kind).toLowerCase();
}

/** ensureOwnerReference: the generator is appended as owner unless an equal reference is already there. */
export function ensureOwnerReference(resultant: JsonObject, parent: JsonObject): void {
  const owner: OwnerReference = {
    apiVersion: stringAt(parent, ['apiVersion']),
    kind: stringAt(parent, ['kind']),
    name: stringAt(parent, ['metadata', 'name']),
    uid: '',
  };
  if (owner.apiVersion === '' || owner.kind === '' || owner.name === '') return;
  const existing = ownerReferences(resultant) ?? [];
  if (existing.some((r) => r.apiVersion === owner.apiVersion && r.kind === owner.kind && r.name === owner.name)) return;
  setOwnerReferences(resultant, [...existing, owner]);
}

/**
 * expandResource. `ns` is the Namespace object the generator is expanded in, or null when none is known (the
 * generator's own `metadata.namespace` is then used; a cluster-scoped one has none).
 */
export function expandResource(generator: JsonObject, ns: JsonObject | null, template: ExpansionTemplate): Built<JsonObject> {
  const srcPath = template.templateSource;
  if (srcPath === '') return { ok: false, error: 'cannot expand resource using a template with no source' };
  const gvk = template.generatedGVK;
  if (gvk.group === '' && gvk.version === '' && gvk.kind === '') return { ok: false, error: 'cannot expand resource using template with empty generatedGVK' };

  const name = stringAt(generator, ['metadata', 'name']);
  const src = nestedMap(generator, srcPath.split('.'));
  if ('error' in src) return { ok: false, error: `could not extract source field from unstructured: ${src.error}` };
  if (!src.found || !isJsonObject(src.value)) return { ok: false, error: `could not find source field ${goQuote(srcPath)} in resource ${name}` };

  const resource = deepCopy(src.value);
  setNested(resource, ['apiVersion'], apiVersionOf(gvk));
  setNested(resource, ['kind'], gvk.kind);
  if (ns !== null) {
    setNamespace(resource, namespaceName(ns));
  } else {
    const own = nestedString(generator, ['metadata', 'namespace']);
    // Upstream quotes the template source here, not the namespace field (system.go).
    if ('error' in own) return { ok: false, error: `could not extract namespace field ${goQuote(srcPath)} in parent resource ${name}` };
    if (own.found) setNamespace(resource, own.value as string);
  }
  setNested(resource, ['metadata', 'name'], mockName(generator, gvk.kind));
  ensureOwnerReference(resource, generator);
  return { ok: true, value: resource };
}
