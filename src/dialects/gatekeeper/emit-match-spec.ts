/**
 * A MatchSpec from any dialect brought to the shape emit-match.ts writes as Gatekeeper's applyTo and match:
 * - a rule-level match (Kyverno) is intersected with its policy's match, since every mutator carries the
 *   whole condition;
 * - MAP resource rules (groups × versions × resources) become kind alternatives through the built-in
 *   resource table; each rule keeps its own operations (an applyTo entry has them too). DELETE and CONNECT
 *   are dropped: nothing a mutation writes on them reaches an object;
 * - the edges where Gatekeeper reads the same criterion differently from the source engine (src/k8s/profile.ts)
 *   are listed, to be reported as lossy (TM4003).
 */
import type { MatchClause, MatchSpec, ResourcePattern } from '../../ir/match.js';
import type { GvkPattern } from '../../ir/match.js';
import { builtinResources, lookupKind } from '../../k8s/resources.js';
import { cannot, isRefusal, notYet, type Refusal } from '../generate-report.js';

function isEmpty(spec: MatchSpec): boolean {
  return !(spec.any?.length || spec.all?.length || spec.exclude?.any?.length || spec.exclude?.all?.length);
}

/** The conjunction of two match blocks, or why it has no single-block form. */
export function intersectMatch(a: MatchSpec, b: MatchSpec | undefined): MatchSpec | Refusal {
  if (!b || isEmpty(b)) return a;
  if (isEmpty(a)) return b;
  if (a.globs !== b.globs) return notYet(`a policy match and a rule match with different glob styles (${a.globs}, ${b.globs})`);
  const out: MatchSpec = { globs: a.globs, ...(b.origin ? { origin: b.origin } : a.origin ? { origin: a.origin } : {}) };
  const all: MatchClause[] = [...(a.all ?? []), ...(b.all ?? [])];
  const anys = [a.any, b.any].filter((x): x is MatchClause[] => x !== undefined && x.length > 0);
  // Two alternative lists cannot both stay alternatives; a single alternative is a conjunct.
  const single = anys.filter((x) => x.length === 1);
  const multi = anys.filter((x) => x.length > 1);
  if (multi.length > 1) return notYet('a policy match and a rule match that both list alternatives (their cross product)');
  all.push(...single.map((x) => x[0]!));
  // Conjuncts on different criteria are one clause (Gatekeeper ANDs the criteria of its match).
  const merged: MatchClause[] = [];
  for (const c of all) {
    const into = merged.find((m) => Object.keys(c).every((k) => !(k in m)));
    if (into) Object.assign(into, c);
    else merged.push({ ...c });
  }
  if (multi.length === 1) {
    out.any = multi[0];
    if (merged.length > 0) out.all = merged;
  } else if (merged.length === 1) out.any = merged;
  else if (merged.length > 1) out.all = merged;
  const ea = a.exclude;
  const eb = b.exclude;
  if (ea?.all?.length && eb && !isEmpty({ globs: b.globs, ...eb })) return cannot('an exclusion that needs several criteria to hold together (Gatekeeper excludes by namespace only)');
  if (eb?.all?.length && ea && !isEmpty({ globs: a.globs, ...ea })) return cannot('an exclusion that needs several criteria to hold together (Gatekeeper excludes by namespace only)');
  const exAny = [...(ea?.any ?? []), ...(eb?.any ?? [])];
  const exAll = [...(ea?.all ?? []), ...(eb?.all ?? [])];
  if (exAny.length > 0 || exAll.length > 0) out.exclude = { ...(exAny.length ? { any: exAny } : {}), ...(exAll.length ? { all: exAll } : {}) };
  return out;
}

const MUTABLE_OPERATIONS = ['CREATE', 'UPDATE'];

function kindsOfRule(rule: ResourcePattern): GvkPattern[] | Refusal {
  const out: GvkPattern[] = [];
  for (const resource of rule.resources) {
    if (resource === '*') {
      // Every resource (not subresources) of the groups: every kind, which only match.kinds can say.
      for (const group of rule.groups) for (const version of rule.versions.includes('*') ? ['*'] : rule.versions) out.push({ group, version, kind: '*' });
      continue;
    }
    if (resource.includes('/')) return cannot(`a match on the subresource ${resource} (Gatekeeper mutates objects, and applyTo names kinds only)`);
    const known = builtinResources().filter((r) => r.resource === resource && (rule.groups.includes('*') || rule.groups.includes(r.group)));
    if (known.length === 0) return cannot(`a match on the resource ${resource} (applyTo names kinds, and ${resource} is not a built-in resource whose kind transmute knows)`);
    for (const k of known) {
      const versions = rule.versions.includes('*') ? [k.version] : rule.versions;
      for (const version of versions) out.push({ group: k.group, version, kind: k.kind });
    }
  }
  return out;
}

/**
 * Resource rules of a clause as kind alternatives: each rule becomes `{kinds, operations}` with the rule's
 * operations intersected with the clause's. Returns the alternatives and the clause without them.
 */
function resourceAlternatives(clause: MatchClause): { alternatives: MatchClause[]; rest: MatchClause } | Refusal {
  const rules = clause.resources ?? [];
  const { resources: _r, operations: clauseOps, ...rest } = clause;
  const alternatives: MatchClause[] = [];
  for (const rule of rules) {
    if (rule.resourceNames?.length) {
      return rule.resourceNames.length === 1 ? notYet('resourceNames in a resource rule (match.name)') : cannot(`a match on ${rule.resourceNames.length} resource names in one rule (Gatekeeper's match.name is one name pattern)`);
    }
    if (rule.scope !== undefined && rule.scope !== '*') {
      if (rest.scope !== undefined && rest.scope !== rule.scope) return notYet('resource rules with different scopes (one mutator per scope)');
      rest.scope = rule.scope;
    }
    const kinds = kindsOfRule(rule);
    if (isRefusal(kinds)) return kinds;
    const ruleOps = rule.operations ?? ['*'];
    const allowed = (o: string) => clauseOps === undefined || clauseOps.includes('*') || clauseOps.includes(o);
    const ops = MUTABLE_OPERATIONS.filter((o) => (ruleOps.includes('*') || ruleOps.includes(o)) && allowed(o));
    if (ops.length === 0) continue;
    alternatives.push({ kinds, operations: ops });
  }
  return { alternatives, rest };
}

/** The spec with resource rules replaced by kind alternatives, or why that is not possible. */
export function resourcesAsKinds(spec: MatchSpec): MatchSpec | Refusal {
  const withResources = [...(spec.any ?? []), ...(spec.all ?? [])].filter((c) => c.resources !== undefined);
  if (withResources.length === 0) return spec;
  if (spec.exclude?.any?.some((c) => c.resources) || spec.exclude?.all?.some((c) => c.resources)) return cannot('an exclusion by resource (Gatekeeper excludes by namespace only)');
  const all = spec.all ?? [];
  const any = spec.any ?? [];
  if (withResources.length > 1 || (any.length > 0 && !(any.length === 1 && any[0]!.resources))) return notYet('resource rules beside other alternatives');
  const clause = withResources[0]!;
  const converted = resourceAlternatives(clause);
  if (isRefusal(converted)) return converted;
  if (converted.alternatives.length === 0) return cannot('a match on operations Gatekeeper never mutates (it mutates on CREATE and UPDATE only)');
  const otherAll = all.filter((c) => c !== clause);
  const restAll = Object.keys(converted.rest).length > 0 ? [converted.rest] : [];
  const out: MatchSpec = { ...spec, any: converted.alternatives };
  const nextAll = [...otherAll, ...restAll];
  if (nextAll.length > 0) out.all = nextAll;
  else delete out.all;
  return out;
}

function allNamespaced(clause: MatchClause, others: readonly MatchClause[]): boolean {
  if ([clause, ...others].some((c) => c.scope === 'Namespaced')) return true;
  const kinds = [clause, ...others].flatMap((c) => c.kinds ?? []);
  if (kinds.length === 0) return false;
  return kinds.every((k) => {
    if (k.kind === 'Namespace' || k.kind === '*') return false;
    const known = k.group === undefined || k.group === '*' ? builtinResources().filter((r) => r.kind === k.kind) : [lookupKind(k.group, k.kind)].filter((r) => r !== undefined);
    return known.length > 0 && known.every((r) => r.namespaced);
  });
}

/**
 * Where Gatekeeper would read the spec's criteria differently from the engine that wrote them
 * (src/k8s/profile.ts), as messages for TM4003. Only the wildcard (Kyverno) and exact (Kubernetes) styles have
 * such edges; prefixSuffix is Gatekeeper's own.
 */
export function matchEdges(spec: MatchSpec): string[] {
  if (spec.globs === 'prefixSuffix') return [];
  const edges: string[] = [];
  const clauses = [...(spec.any ?? []), ...(spec.all ?? [])];
  for (const c of clauses) {
    const others = clauses.filter((x) => x !== c);
    if (spec.globs === 'wildcard') {
      for (const n of c.names ?? []) {
        if (!n.endsWith('*')) edges.push(`Kyverno matches the name pattern ${n} against generateName when the name is empty; Gatekeeper does so only for x* and *x* patterns`);
      }
      if (c.namespaces && !allNamespaced(c, others)) edges.push('Kyverno matches namespaces of a cluster-scoped object against "" (no match); Gatekeeper does not let the criterion disqualify it');
      if (c.namespaceSelector && !allNamespaced(c, others)) edges.push('Kyverno never matches a namespaceSelector on a Namespace and matches cluster-scoped objects against empty labels; Gatekeeper uses the Namespace\'s own labels and matches cluster-scoped objects');
      for (const k of c.kinds ?? []) {
        if (k.group === '*' && !/[*?]/.test(k.kind)) edges.push(`Kyverno matches kind ${k.kind} in every API group; applyTo names the built-in groups that serve it, so a custom resource of that kind in another group is not mutated`);
      }
      const wild = Object.entries(c.labelSelector?.matchLabels ?? {}).some(([k, v]) => /[*?]/.test(k) || /[*?]/.test(v));
      if (wild) edges.push('Kyverno expands wildcards in matchLabels; Gatekeeper reads them literally');
    } else if (spec.globs === 'exact' && c.labelSelector) {
      edges.push('the API server matches an objectSelector against the object or the old object; Gatekeeper against the object only');
    }
  }
  return [...new Set(edges)];
}
