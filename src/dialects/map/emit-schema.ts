/**
 * Whether a generated write fits the built-in kind's schema. The API server decodes the patched object
 * strictly into its Go type (map.md §6.1): a field the schema does not declare, or a scalar of the wrong
 * type, fails the request, where Gatekeeper and Kyverno (unstructured objects) write it. Such a write is
 * unsupported rather than emitted with a different outcome.
 */
import { OP, subexpressions, type Expr } from '../../cel/ast.js';
import type { JsonValue } from '../../ir/json.js';
import type { GvkPattern, MatchSpec } from '../../ir/match.js';
import type { Op } from '../../ir/nodes.js';
import type { Segment } from '../../ir/path.js';
import { lookupKind, lookupResource } from '../../k8s/resources.js';
import { builtinKindType, builtinSchema } from '../../merge/ssa/builtin-schema.js';
import type { Atom, Schema, TypeRef } from '../../merge/ssa/schema.js';
import { isEmptyTypeRef, makeMapType } from '../../merge/ssa/schema.js';

function kindsOf(m: MatchSpec): GvkPattern[] {
  return [...(m.any ?? []), ...(m.all ?? [])].flatMap((c) => c.kinds ?? []);
}

function typeOfKind(k: GvkPattern): TypeRef | undefined {
  if (k.kind === '*' || k.group === '*' || k.subresource) return undefined;
  const info = lookupKind(k.group ?? '', k.kind);
  if (!info) return undefined;
  const version = k.version && k.version !== '*' ? k.version : info.version;
  return builtinKindType(info.group, version, k.kind);
}

/** Why `value` cannot sit at a place of type `t`, or undefined. */
function valueProblem(schema: Schema, t: TypeRef, v: JsonValue, where: string): string | undefined {
  const a = schema.resolve(t);
  if (!a || a.scalar === 'untyped') return undefined;
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    if (!a.list) return a.map || a.scalar ? `${where} is not a list in the schema` : undefined;
    for (const [i, x] of v.entries()) {
      const p = valueProblem(schema, a.list.elementType, x, `${where}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof v === 'object') {
    if (!a.map) return a.list || a.scalar ? `${where} is not a map in the schema` : undefined;
    for (const [k, x] of Object.entries(v)) {
      const f = a.map.fieldIndex.get(k);
      const ft = f?.type ?? (isEmptyTypeRef(a.map.elementType) ? undefined : a.map.elementType);
      if (!ft) return `${where}.${k} is not declared in the schema`;
      const p = valueProblem(schema, ft, x, `${where}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  if (!a.scalar) return `${where} is not a scalar in the schema`;
  const kind = typeof v === 'number' ? 'numeric' : typeof v === 'string' ? 'string' : 'boolean';
  return a.scalar === kind ? undefined : `${where} holds a ${a.scalar} in the schema, not a ${kind}`;
}

function step(schema: Schema, a: Atom, s: Segment, where: string): { type: TypeRef; where: string } | string | undefined {
  if (s.kind === 'field') {
    if (!a.map) return a.scalar === 'untyped' ? undefined : `${where} has no fields in the schema`;
    const f = a.map.fieldIndex.get(s.name);
    if (f) return { type: f.type, where: `${where}.${s.name}` };
    if (isEmptyTypeRef(a.map.elementType)) return `${where}.${s.name} is not declared in the schema`;
    return { type: a.map.elementType, where: `${where}.${s.name}` };
  }
  if (!a.list) return a.scalar === 'untyped' ? undefined : `${where} is not a list in the schema`;
  return { type: a.list.elementType, where: `${where}[]` };
}

/** Why the op cannot be written for some built-in kind its policy matches, or undefined. */
export function schemaProblem(op: Op, match: MatchSpec): string | undefined {
  if (!('path' in op) || op.path.root !== 'object') return undefined;
  const decoded = builtinSchema();
  if (!decoded.ok) return undefined;
  const schema = decoded.value.schema;
  for (const k of kindsOf(match)) {
    let t = typeOfKind(k);
    if (!t) continue;
    let where = '';
    let lost = false;
    for (const s of op.path.segments) {
      const a = schema.resolve(t);
      if (!a) {
        lost = true;
        break;
      }
      const next = step(schema, a, s, where);
      if (typeof next === 'string') return `${k.kind}: ${next.replace(/^\./, '')}`;
      if (!next) {
        lost = true;
        break;
      }
      t = next.type;
      where = next.where;
    }
    if (lost) continue;
    const values = op.kind === 'set' ? [op.value] : op.kind === 'setMembers' ? op.values : [];
    for (const v of values) {
      if (v.kind !== 'literal') continue;
      const target = op.kind === 'setMembers' ? schema.resolve(t)?.list?.elementType : t;
      if (!target) continue;
      const p = valueProblem(schema, target, v.json, where);
      if (p) return `${k.kind}: ${p.replace(/^\./, '')}`;
    }
  }
  return undefined;
}

/**
 * Why a MAP expression's `Object.a.b{f: …}` initializer names a field that some built-in kind the policy
 * matches does not declare (`Object.spec.template.spec.containers.ports{containerPortZ: 1}`), or undefined.
 * kube-apiserver fails such a mutation when it decodes the result strictly (map.md §3.6), where a webhook's
 * (Kyverno's) patch of the same field is decoded leniently and the field dropped. A step of the type name
 * into a list field names the list's items, as MAP's Object types do.
 */
export function initializerProblem(e: Expr, match: MatchSpec): string | undefined {
  const decoded = builtinSchema();
  if (!decoded.ok) return undefined;
  const schema = decoded.value.schema;
  const types = [...kindsOf(match), ...resourceKinds(match)].flatMap((k) => {
    const t = typeOfKind(k);
    return t ? [{ kind: k.kind, type: t }] : [];
  });
  if (types.length === 0) return undefined;
  // The values a JSONPatch writes: a `JSONPatch{value: …}` field, and what a list, map, object or conditional
  // there holds (an initializer compared or converted elsewhere is never written).
  const written = (x: Expr): string | undefined => {
    if (x.kind === 'struct' && (x.typeName === 'Object' || x.typeName.startsWith('Object.'))) {
      for (const { kind, type } of types) {
        const p = structProblem(schema, type, x.typeName.split('.').slice(1), x.fields.map((f) => f.name));
        if (p) return `${kind}: ${p}`;
      }
      return first(x.fields.map((f) => f.value), written);
    }
    if (x.kind === 'list') return first(x.elements, written);
    if (x.kind === 'map') return first(x.entries.map((en) => en.value), written);
    if (x.kind === 'call' && x.fn === OP.cond) return first(x.args.slice(1), written);
    return undefined;
  };
  const find = (x: Expr): string | undefined => {
    if (x.kind === 'struct' && x.typeName === 'JSONPatch') {
      const value = x.fields.find((f) => f.name === 'value');
      const p = value ? written(value.value) : undefined;
      if (p) return p;
    }
    return first(subexpressions(x), find);
  };
  return find(e);
}

function first<T>(xs: readonly T[], f: (x: T) => string | undefined): string | undefined {
  for (const x of xs) {
    const p = f(x);
    if (p) return p;
  }
  return undefined;
}

/** The built-in kinds of a match's concrete resource rules (`apps`/`deployments` → Deployment). */
function resourceKinds(m: MatchSpec): GvkPattern[] {
  const out: GvkPattern[] = [];
  for (const c of [...(m.any ?? []), ...(m.all ?? [])]) {
    for (const r of c.resources ?? []) {
      for (const group of r.groups) {
        for (const resource of r.resources) {
          const info = group === '*' || resource.includes('/') ? undefined : lookupResource(group, resource);
          if (!info) continue;
          const versions = r.versions.filter((v) => v !== '*');
          for (const version of versions.length > 0 ? versions : [info.version]) out.push({ group: info.group, version, kind: info.kind });
        }
      }
    }
  }
  return out;
}

function structProblem(schema: Schema, root: TypeRef, steps: readonly string[], fields: readonly string[]): string | undefined {
  let t = root;
  let where = '';
  const items = (at: TypeRef): TypeRef => schema.resolve(at)?.list?.elementType ?? at;
  for (const name of steps) {
    const a = schema.resolve(t);
    if (!a?.map) return undefined;
    const f = a.map.fieldIndex.get(name);
    // A type name off the schema is MAP's type-name error, which Kyverno's MutatingPolicy raises too.
    if (!f) return undefined;
    t = items(f.type);
    where = `${where}.${name}`;
  }
  const a = schema.resolve(t);
  if (!a?.map || !isEmptyTypeRef(a.map.elementType)) return undefined;
  const unknown = fields.find((name) => !a.map!.fieldIndex.has(name));
  return unknown === undefined ? undefined : `${where}.${unknown} is not declared in the schema`.replace(/^\./, '');
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The patterns of the kinds a match admits (a superset where clauses intersect), or undefined when it
 * admits any kind: no kinds at all, or an alternative without kinds.
 */
function admittedKinds(m: MatchSpec): GvkPattern[] | undefined {
  const restricting = (m.all ?? []).find((c) => c.kinds?.length);
  if (restricting) return restricting.kinds;
  const any = m.any ?? [];
  if (any.length === 0 || any.some((c) => !c.kinds?.length)) return undefined;
  return any.flatMap((c) => c.kinds!);
}

/**
 * The built-in types of every kind the match admits (each version the table knows for a `*` pattern), or
 * undefined when it may admit a kind the table does not know. A path under `metadata` is typed by
 * ObjectMeta, which every kind (custom ones included) shares.
 */
export function admittedTypes(match: MatchSpec, segs: readonly Segment[]): { schema: Schema; types: TypeRef[] } | undefined {
  const decoded = builtinSchema();
  if (!decoded.ok) return undefined;
  const { schema, kinds } = decoded.value;
  const first = segs[0];
  if (first?.kind === 'field' && first.name === 'metadata' && !first.test && schema.hasType(OBJECT_META)) {
    return { schema, types: [{ inlined: { map: makeMapType({ fields: [{ name: 'metadata', type: { namedType: OBJECT_META } }] }) } }] };
  }
  const patterns = admittedKinds(match);
  if (!patterns) return undefined;
  const types: TypeRef[] = [];
  for (const k of patterns) {
    if (k.subresource || /[*?]/.test(k.kind)) return undefined;
    let found = 0;
    for (const [key, t] of kinds) {
      const [group, version, kind] = key.split('/');
      if (kind !== k.kind) continue;
      if (k.group !== undefined && k.group !== '*' && k.group !== group) continue;
      if (k.version !== undefined && k.version !== '*' && k.version !== version) continue;
      types.push(t);
      found++;
    }
    if (found === 0) return undefined;
  }
  return { schema, types };
}

/** Whether the place at `segs` holds a map (a struct or a granular map) for every kind the match admits. */
export function schemaField(match: MatchSpec, segs: readonly Segment[], want: 'struct'): boolean {
  const known = admittedTypes(match, segs);
  if (!known || want !== 'struct') return false;
  return known.types.every((root) => {
    let t: TypeRef = root;
    for (const s of segs) {
      const a = known.schema.resolve(t);
      if (!a) return false;
      const next = step(known.schema, a, s, '');
      if (!next || typeof next === 'string') return false;
      t = next.type;
    }
    const a = known.schema.resolve(t);
    return a !== undefined && a.map !== undefined && a.list === undefined && a.scalar === undefined;
  });
}
