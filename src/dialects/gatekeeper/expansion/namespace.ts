/**
 * The Namespace object a generator is expanded in, as gator finds it (pkg/gator/expand Expander.NamespaceForResource):
 * - no `metadata.namespace`: an empty Namespace (not none: the mutators' `scope: Namespaced` then matches, and
 *   the resultants get no namespace);
 * - a Namespace given among the inputs (the last one of that name);
 * - `default`, even when not given;
 * - otherwise none: expansion goes on with the generator's own namespace, and a mutator with a
 *   `namespaceSelector` fails the run ("namespace selector for namespace-scoped object but missing Namespace"),
 *   which is how gator tells its user to supply the Namespace.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import { gvkOfObject } from './template.js';
import { stringAt } from './unstructured.js';

export function isNamespaceObject(value: JsonValue): boolean {
  const gvk = gvkOfObject(value);
  return gvk.group === '' && gvk.kind === 'Namespace';
}

export class NamespaceIndex {
  private readonly byName = new Map<string, JsonObject>();

  add(ns: JsonObject): void {
    this.byName.set(stringAt(ns, ['metadata', 'name']), ns);
  }

  /** The Namespace of `resource`, or null when it names one that was not given (`missing` says which). */
  namespaceFor(resource: JsonObject): { namespace: JsonObject | null; missing?: string } {
    const name = stringAt(resource, ['metadata', 'namespace']);
    if (name === '') return { namespace: {} };
    const ns = this.byName.get(name);
    if (ns) return { namespace: ns };
    if (name === 'default') return { namespace: { metadata: { name: 'default' } } };
    return { namespace: null, missing: name };
  }
}

export function namespaceIndex(objects: Iterable<JsonValue>): NamespaceIndex {
  const index = new NamespaceIndex();
  for (const o of objects) if (isJsonObject(o) && isNamespaceObject(o)) index.add(o);
  return index;
}
