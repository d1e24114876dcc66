/**
 * Resource rules (MAP `resourceRules`: apiGroups / apiVersions / resources / operations) as the kinds and
 * operations of a Kyverno resource filter, through the built-in resource table (src/k8s/resources.ts).
 * Kyverno filters by kind, Kubernetes by resource; the two name the same requests when the resource is a
 * main resource (or `resource/subresource`) of a known kind, or `*`. A resource the table does not know (a
 * CRD), a scope, sub-resource wildcards, or rules with different operations (or resourceNames) in one clause
 * have no Kyverno form.
 */
import type { GvkPattern, MatchClause, ResourcePattern } from '../../ir/match.js';
import { builtinResources, isNamespacedKind, lookupResource } from '../../k8s/resources.js';

/** What a mutating admission policy can be invoked for (dispatcher: never DELETE). */
const ALL_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function kindsOfResource(group: string, version: string, resource: string): GvkPattern[] | string {
  const slash = resource.indexOf('/');
  const main = slash < 0 ? resource : resource.slice(0, slash);
  const sub = slash < 0 ? undefined : resource.slice(slash + 1);
  if (sub === '*' || (main.includes('*') && main !== '*')) return `the resource pattern ${resource}`;
  const base = (kind: string, g: string): GvkPattern => {
    const p: GvkPattern = { kind };
    if (g !== '*') p.group = g;
    if (version !== '*') p.version = version;
    if (sub !== undefined) p.subresource = sub;
    return p;
  };
  if (main === '*') return sub === undefined ? [base('*', group)] : `the resource pattern ${resource}`;
  if (group !== '*') {
    const info = lookupResource(group, main);
    return info ? [base(info.kind, group)] : `the resource ${group ? `${group}/` : ''}${main}, whose kind is not known`;
  }
  // Any group: every known group serving the resource, by kind (Kyverno cannot say "any group" per kind).
  const infos = builtinResources().filter((r) => r.resource === main);
  if (infos.length === 0) return `the resource ${main}, whose kind is not known`;
  const kinds = [...new Set(infos.map((i) => i.kind))];
  if (kinds.length === 1) return [base(kinds[0]!, '*')];
  return `the resource ${main} in any group (served as ${kinds.join(', ')})`;
}

function operationsOf(r: ResourcePattern): string[] | undefined {
  if (!r.operations || r.operations.length === 0 || r.operations.includes('*')) return undefined;
  return r.operations;
}

/** The clause with its resource rules read as kinds and operations, or why Kyverno cannot filter the same way. */
export function resourcesAsKinds(c: MatchClause): MatchClause | string {
  if (!c.resources?.length) return c;
  if (c.kinds?.length) return 'a match on both kinds and resource rules';
  const { resources, ...rest } = c;
  const kinds: GvkPattern[] = [];
  let operations: string[] | undefined;
  let first = true;
  // resourceNames become the filter's names when every rule of the clause has the same ones (Kyverno reads
  // generateName for an empty name where Kubernetes compares the empty request name: emitMatch says so).
  const names = resources[0]!.resourceNames ?? [];
  if (resources.some((r) => JSON.stringify(r.resourceNames ?? []) !== JSON.stringify(names))) return 'resource rules with different resourceNames in one match';
  if (names.length > 0 && (c.names?.length || names.some((n) => n === ''))) return 'resourceNames next to names, or an empty resource name';
  for (const r of resources) {
    if (r.scope && r.scope !== '*') return `a resource rule with scope ${r.scope}`;
    const ops = operationsOf(r);
    if (!first && JSON.stringify(ops) !== JSON.stringify(operations)) return 'resource rules with different operations in one match';
    operations = ops;
    first = false;
    for (const group of r.groups) {
      for (const version of r.versions) {
        for (const resource of r.resources) {
          const k = kindsOfResource(group, version, resource);
          if (typeof k === 'string') return k;
          for (const p of k) if (!kinds.some((q) => JSON.stringify(q) === JSON.stringify(p))) kinds.push(p);
        }
      }
    }
  }
  const out: MatchClause = { ...rest, kinds };
  if (names.length > 0) out.names = [...names];
  if (operations) {
    const kept = c.operations ? operations.filter((o) => c.operations!.includes(o)) : operations;
    out.operations = ALL_OPERATIONS.filter((o) => kept.includes(o));
  }
  return out;
}

/**
 * Where Kyverno reads a converted Kubernetes clause differently (src/k8s/profile.ts), one note per edge:
 * these are kept in the output and reported as TM4003.
 */
export function kubernetesNotes(c: MatchClause): string[] {
  const notes: string[] = [];
  if (c.kinds?.some((k) => k.kind === 'Pod' && !k.subresource)) notes.push("kinds: Kyverno's Pod also matches the pods/ephemeralcontainers subresource, which the resource rule pods does not");
  if (c.labelSelector) notes.push("objectSelector: Kubernetes also matches an UPDATE whose old object's labels match; Kyverno tests the new object's labels");
  // Both read the labels of the object's Namespace; they differ on cluster-scoped kinds and Namespaces only.
  const namespacedOnly = (c.kinds?.length ?? 0) > 0 && c.kinds!.every((k) => k.kind !== '*' && k.kind !== 'Namespace' && k.group !== undefined && k.group !== '*' && isNamespacedKind({ group: k.group, kind: k.kind }) === true);
  if (c.namespaceSelector && !namespacedOnly) notes.push('namespaceSelector: Kubernetes matches a Namespace by its own labels and cluster-scoped objects always; Kyverno never matches a Namespace and reads no labels for cluster-scoped objects');
  return notes;
}
