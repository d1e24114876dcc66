/**
 * The JSON type of `object` / `oldObject` for the built-in kinds a rule matches, from the schema the project
 * ships (src/merge/ssa/builtin-schema.ts, the one MAP generation reads by kind in dialects/map/emit-schema.ts).
 *
 * What the admission request's object can hold is what encoding/json writes for the kind's Go type:
 * - a field the schema declares may be absent (omitempty), and holds its type when present; only the kind's
 *   `apiVersion`, `kind`, `metadata` and the structs its validation requires (a Pod's `spec`, a workload's
 *   pod template) are taken as present. kube-apiserver also writes every other non-pointer struct field
 *   (the schema gives those the default `{}`: a DaemonSet's `updateStrategy`, a container's `resources`),
 *   but the manifests a policy is run on offline (CI, `kyverno test`, our own interpreter) are not
 *   normalised that way, and the translation must hold on them too;
 * - a list may be null (a required slice left nil is written `null`, e.g. a ClusterRole's `rules`); its
 *   items are never null; maps, structs and scalars are not null when present (optional pointers and maps
 *   are omitempty by the API conventions);
 * - a quantity is a string (resource.Quantity always marshals to one), a time a string or null (a zero
 *   metav1.Time marshals to null: `creationTimestamp` on CREATE); int-or-strings and other untyped scalars
 *   are dyn; numerics are `number`.
 * Several kinds give what they all agree on (types.ts join), dyn where they differ; a kind the table does
 * not know (a custom resource, a wildcard) makes the whole type dyn.
 */
import { builtinSchema } from '../../merge/ssa/builtin-schema.js';
import { isEmptyTypeRef, type Schema, type TypeRef } from '../../merge/ssa/schema.js';
import { join, ownRecord, T, type Ty } from './types.js';

/** A kind a rule matches; an absent or `*` group or version stands for every one the schema knows. */
export interface KindRef {
  group?: string;
  version?: string;
  kind: string;
}

/** Untyped scalars of the schema whose JSON form Go's marshalling fixes. */
const NAMED_SCALARS: Readonly<Record<string, Ty>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': T.string,
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': T.nullable(T.string),
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': T.nullable(T.string),
};

class Converter {
  private readonly named = new Map<string, Ty>();
  private readonly converting = new Set<string>();

  constructor(private readonly schema: Schema) {}

  ref(tr: TypeRef): Ty {
    const name = tr.namedType;
    if (name !== undefined && Object.hasOwn(NAMED_SCALARS, name)) return NAMED_SCALARS[name]!;
    if (name === undefined || tr.elementRelationship !== undefined) return this.atom(tr);
    const known = this.named.get(name);
    if (known) return known;
    // A recursive type (JSONSchemaProps) is cut at its second occurrence: dyn is always a sound type.
    if (this.converting.has(name)) return T.dyn;
    this.converting.add(name);
    const t = this.atom(tr);
    this.converting.delete(name);
    this.named.set(name, t);
    return t;
  }

  private atom(tr: TypeRef): Ty {
    const a = this.schema.resolve(tr);
    if (!a) return T.dyn;
    const forms = [a.scalar, a.list, a.map].filter((x) => x !== undefined).length;
    if (forms !== 1) return T.dyn;
    if (a.list) return T.nullable(T.list(this.ref(a.list.elementType)));
    if (a.map) {
      const rest = isEmptyTypeRef(a.map.elementType) ? T.dyn : this.ref(a.map.elementType);
      const fields: Record<string, Ty> = {};
      for (const f of a.map.fields) fields[f.name] = this.ref(f.type);
      return { k: 'map', fields: ownRecord(fields), required: [], rest };
    }
    switch (a.scalar) {
      case 'string':
        return T.string;
      case 'numeric':
        return T.number;
      case 'boolean':
        return T.bool;
      default:
        return T.dyn;
    }
  }
}

/**
 * The structs a kind's validation requires (a workload without its pod template, a Pod without containers
 * is rejected), so that every manifest of the kind holds them, offline too: taken as present.
 */
const POD_TEMPLATE = ['spec', 'spec.template', 'spec.template.spec'];
const REQUIRED_STRUCTS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec'],
  PodTemplate: ['template', 'template.spec'],
  Deployment: POD_TEMPLATE,
  ReplicaSet: POD_TEMPLATE,
  StatefulSet: POD_TEMPLATE,
  DaemonSet: POD_TEMPLATE,
  Job: POD_TEMPLATE,
  ReplicationController: ['spec'],
  CronJob: ['spec', 'spec.jobTemplate', 'spec.jobTemplate.spec', 'spec.jobTemplate.spec.template', 'spec.jobTemplate.spec.template.spec'],
  HorizontalPodAutoscaler: ['spec', 'spec.scaleTargetRef'],
  PersistentVolumeClaim: ['spec'],
  PersistentVolume: ['spec'],
};

/** `t` with the map field at `path` (and so its parents) marked present. */
function requirePath(t: Ty, path: readonly string[]): Ty {
  if (t.k !== 'map' || path.length === 0 || !Object.hasOwn(t.fields, path[0]!)) return t;
  const [head, ...rest] = path as [string, ...string[]];
  const fields = ownRecord({ ...t.fields, [head]: requirePath(t.fields[head]!, rest) });
  return { ...t, fields, required: [...new Set([...t.required, head])] };
}

/**
 * The type of one kind's object: its schema type, with `apiVersion`, `kind`, `metadata` and the structs the
 * kind's validation requires always present.
 */
function kindType(conv: Converter, group: string, version: string, kind: string, ref: TypeRef): Ty {
  const t = conv.ref(ref);
  if (t.k !== 'map') return T.dyn;
  const fields = ownRecord({ ...t.fields, apiVersion: T.oneOf(group === '' ? version : `${group}/${version}`), kind: T.oneOf(kind) });
  const required = ['apiVersion', 'kind', ...(Object.hasOwn(t.fields, 'metadata') ? ['metadata'] : [])];
  let out: Ty = { ...t, fields, required };
  for (const path of REQUIRED_STRUCTS[kind] ?? []) out = requirePath(out, path.split('.'));
  return out;
}

/**
 * The JSON type of the object of a request for any of `kinds` (the rule's match): what every matched kind's
 * schema agrees on, dyn elsewhere. Not null: for a DELETE (object null in MAP) or an oldObject (null on
 * CREATE) the caller wraps it in T.nullable.
 */
export function objectTypeOf(kinds: readonly KindRef[]): Ty {
  const decoded = builtinSchema();
  if (!decoded.ok || kinds.length === 0) return T.dyn;
  const conv = new Converter(decoded.value.schema);
  let out: Ty | undefined;
  for (const k of kinds) {
    if (/[*?]/.test(k.kind)) return T.dyn;
    let found = 0;
    for (const [key, ref] of decoded.value.kinds) {
      const [group, version, kind] = key.split('/') as [string, string, string];
      if (kind !== k.kind) continue;
      if (k.group !== undefined && k.group !== '*' && k.group !== group) continue;
      if (k.version !== undefined && k.version !== '*' && k.version !== version) continue;
      const t = kindType(conv, group, version, kind, ref);
      out = out === undefined ? t : join(out, t);
      found++;
    }
    if (found === 0) return T.dyn;
  }
  return out ?? T.dyn;
}
