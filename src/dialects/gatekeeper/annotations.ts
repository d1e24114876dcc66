/**
 * `--mutation-annotations` (pkg/mutation/system.go Mutate, annotations.go): on an object the system mutated,
 * `gatekeeper.sh/mutation-id` is a fresh UUID and `gatekeeper.sh/mutations` lists, sorted and unique,
 * `Kind/namespace/name:generation` of every mutator applied in a pass before the last.
 */
import type { FixpointConverged } from '../../interpreter/index.js';
import { copyObject, defineOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { Policy } from '../../ir/nodes.js';

export const MUTATION_ID_ANNOTATION = 'gatekeeper.sh/mutation-id';
export const MUTATIONS_ANNOTATION = 'gatekeeper.sh/mutations';

export interface AnnotationOptions {
  /**
   * The mutators' `metadata.generation` as the API server keeps it; it is 1 for a mutator that was created
   * and never changed, the default.
   */
  generation?: number;
  /** The mutation id; a random UUID by default. */
  uuid?: () => string;
}

/** `Assign//name:1` for policy `Assign/name` (mutators are cluster-scoped: the namespace is empty). */
export function mutatorString(policyId: string, generation: number): string {
  const slash = policyId.indexOf('/');
  const kind = slash < 0 ? policyId : policyId.slice(0, slash);
  const name = slash < 0 ? '' : policyId.slice(slash + 1);
  return `${kind}//${name}:${generation}`;
}

/** The interpreter hook that writes both annotations (ApplyEnv.onFixpointConverged). */
export function mutationAnnotations(opts: AnnotationOptions = {}): FixpointConverged {
  const generation = opts.generation ?? 1;
  // Web Crypto's randomUUID: global in Node 20 and in browsers, so the core imports no node:crypto.
  const uuid = opts.uuid ?? (() => globalThis.crypto.randomUUID());
  return (object: JsonValue, applied: readonly Policy[]): JsonValue => {
    if (!isJsonObject(object)) return object;
    const mutations = [...new Set(applied.map((p) => mutatorString(p.id, generation)))].sort().join(', ');
    const metadata: JsonObject = isJsonObject(object.metadata) ? copyObject(object.metadata) : {};
    const annotations: JsonObject = isJsonObject(metadata.annotations) ? copyObject(metadata.annotations) : {};
    defineOwn(annotations, MUTATIONS_ANNOTATION, mutations);
    defineOwn(annotations, MUTATION_ID_ANNOTATION, uuid());
    defineOwn(metadata, 'annotations', annotations);
    const out = copyObject(object);
    defineOwn(out, 'metadata', metadata);
    return out;
  };
}
