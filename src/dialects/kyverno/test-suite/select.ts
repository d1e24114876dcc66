/**
 * Which documents a result entry is about: the policy chain the CLI has applied when it reports the entry's
 * policy, and the resource an entry names (commands/test lookupEngineResponses).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../ir/json.js';
import type { SourceDoc } from '../../../io/source.js';

export function kindOf(v: JsonValue | undefined): string {
  return isJsonObject(v) && typeof v.kind === 'string' ? v.kind : '';
}

export function metadataOf(v: JsonValue | undefined): JsonObject {
  return isJsonObject(v) && isJsonObject(v.metadata) ? v.metadata : {};
}

/** `namespace/name` split; a plain name has no namespace. */
export function splitRef(ref: string): { namespace?: string; name: string } {
  const slash = ref.indexOf('/');
  return slash < 0 ? { name: ref } : { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/**
 * The policy documents up to and including the named one (the CLI applies policies in load order, each on the
 * previous one's result, and reports each policy's patched resource); bindings are kept wherever they are.
 * Undefined when no policy has that name.
 */
export function policyChain(docs: readonly SourceDoc[], ref: string): SourceDoc[] | undefined {
  const { namespace, name } = splitRef(ref);
  const at = docs.findIndex((d) => {
    const md = metadataOf(d.value);
    if (md.name !== name || kindOf(d.value).endsWith('Binding')) return false;
    return namespace === undefined || md.namespace === namespace;
  });
  if (at < 0) return undefined;
  return docs.filter((d, i) => i <= at || kindOf(d.value).endsWith('Binding'));
}

/** The object `kind` + `ref` names (`name` or `namespace/name`). */
export function findResource(candidates: readonly JsonObject[], kind: string, ref: string): JsonObject | undefined {
  const split = splitRef(ref);
  const ns = split.namespace;
  return candidates.find((o) => {
    const md = metadataOf(o);
    // A resource with only a generateName is named "" (GetName), as `namespace/` names it in a suite.
    if ((md.name ?? '') !== split.name) return false;
    if (kind !== '' && kindOf(o) !== kind) return false;
    return ns === undefined || (md.namespace ?? '') === ns;
  });
}

/** `Kind/namespace/name` as rows show a resource. */
export function resourceLabel(kind: string, ref: string, namespace?: string): string {
  const split = splitRef(ref);
  return [kind, split.namespace ?? namespace, split.name].filter((p) => p !== undefined && p !== '').join('/');
}
