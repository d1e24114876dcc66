/**
 * Kinds with their structured-merge schema: what a CustomResourceDefinition or an OpenAPI v3 document
 * (`--crd`, `--schema`) contributes on top of the built-in table. A table is a plain value (no global state),
 * so each evaluation environment chooses the one it runs with.
 */
import type { GroupVersionKind } from '../../../k8s/request.js';
import { gvkKey } from '../builtin-kinds.js';
import type { Schema, TypeRef } from '../schema.js';

/** The schema that types one kind: the type set, and the reference of the kind's own type in it. */
export interface KindSchema {
  readonly schema: Schema;
  readonly typeRef: TypeRef;
  /** The kind's scope, when its source states it (a CRD's `spec.scope`; an OpenAPI document does not). */
  readonly namespaced?: boolean;
}

/** Kind schemas keyed by group/version/Kind. Later additions of the same kind replace earlier ones. */
export class KindSchemaTable {
  private readonly byKey = new Map<string, KindSchema>();

  set(gvk: GroupVersionKind, kind: KindSchema): this {
    this.byKey.set(gvkKey(gvk.group, gvk.version, gvk.kind), kind);
    return this;
  }

  get(gvk: GroupVersionKind): KindSchema | undefined {
    return this.byKey.get(gvkKey(gvk.group, gvk.version, gvk.kind));
  }

  has(gvk: GroupVersionKind): boolean {
    return this.byKey.has(gvkKey(gvk.group, gvk.version, gvk.kind));
  }

  get size(): number {
    return this.byKey.size;
  }

  /** "group/version/Kind" keys (core group empty: "/v1/Pod"), in insertion order. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /** Copies every kind of `other` into this table (other's entries win). */
  addAll(other: KindSchemaTable): this {
    for (const [k, v] of other.byKey) this.byKey.set(k, v);
    return this;
  }
}

/** Go's schema.GroupVersionKind.String(): "group/version, Kind=Kind" (core group: "/v1, Kind=Pod"). */
export function formatGvk(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}
