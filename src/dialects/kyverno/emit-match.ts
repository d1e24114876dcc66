/**
 * IR match blocks as a Kyverno rule's `match` / `exclude` (the inverse of match.ts). The IR says
 * (some `any` clause) AND (every `all` clause) AND NOT (exclusion); Kyverno reads only one of `any`/`all`
 * (pkg/engine/utils/match.go ignores `all` when `any` is set), so the conjunction is distributed into one
 * `any` list, merging clauses whose fields do not overlap. A Gatekeeper clause's `excludedNamespaces` becomes
 * an exclusion. What a Kyverno filter cannot hold (`scope`, resource rules) is a reason, and where the
 * Kyverno reading of a field differs from the source engine's (src/k8s/profile.ts) a lossy note is returned.
 */
import type { JsonObject } from '../../ir/json.js';
import type { GvkPattern, LabelSelector, MatchClause, MatchSpec } from '../../ir/match.js';
import { kubernetesNotes, resourcesAsKinds } from './emit-resources.js';

export interface EmittedMatch {
  match: JsonObject;
  exclude?: JsonObject;
  /** Differences between the source engine's reading and Kyverno's (TM4003). */
  lossy: string[];
  /**
   * The match filters names that came from Kubernetes resourceNames: Kubernetes compares the request's
   * name, empty for a CREATE that relies on generateName, where Kyverno reads generateName for an empty
   * name; the rule must also require a name (a precondition).
   */
  needsName?: boolean;
}

function kindString(k: GvkPattern): string {
  const group = k.group;
  const version = k.version && k.version !== '' ? k.version : '*';
  const sub = k.subresource ? `/${k.subresource}` : '';
  let base: string;
  if (group === undefined || group === '*' || (group === '' && version === '*')) base = version === '*' ? k.kind : `${version}/${k.kind}`;
  else if (group === '') base = `${version}/${k.kind}`;
  else base = `${group}/${version}/${k.kind}`;
  return base + sub;
}

function selectorJson(s: LabelSelector): JsonObject {
  const out: JsonObject = {};
  if (s.matchLabels) out.matchLabels = { ...s.matchLabels };
  if (s.matchExpressions) out.matchExpressions = s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: [...e.values] } : {}) }));
  return out;
}

const SA_PREFIX = 'system:serviceaccount:';

/** One Kyverno resource filter, or why not. */
function filterJson(c: MatchClause, gatekeeper: boolean, role: 'match' | 'exclude' = 'match'): JsonObject | string {
  if (c.scope && c.scope !== '*') return `a match on the object's scope (${c.scope})`;
  if (c.resources?.length) return 'a match on resource rules (groups/versions/resources)';
  if (c.excludedNamespaces?.length) return 'excludedNamespaces inside one of several alternatives';
  const resources: JsonObject = {};
  if (c.kinds?.length) resources.kinds = [...new Set(c.kinds.map(kindString))];
  if (c.names?.length) resources.names = [...c.names];
  if (c.namespaces?.length) resources.namespaces = [...c.namespaces];
  if (c.operations?.length) {
    // Gatekeeper's mutation webhook only ever sees CREATE and UPDATE; a clause admitting both is no filter.
    const coversMutations = gatekeeper && c.operations.includes('CREATE') && c.operations.includes('UPDATE');
    if (!coversMutations) resources.operations = [...c.operations];
  }
  if (c.annotations) resources.annotations = { ...c.annotations };
  if (c.labelSelector) resources.selector = selectorJson(c.labelSelector);
  if (c.namespaceSelector) resources.namespaceSelector = selectorJson(c.namespaceSelector);
  const out: JsonObject = {};
  // Kyverno's webhook requires kinds in every match resource block (`*` is its form for every kind); an
  // exclusion without kinds is admitted and excludes any kind.
  if (Object.keys(resources).length === 0 && !c.userInfo) out.resources = { kinds: ['*'] };
  else if (Object.keys(resources).length > 0) out.resources = resources.kinds || role === 'exclude' ? resources : { kinds: ['*'], ...resources };
  const u = c.userInfo;
  if (u) {
    if (u.roles?.length) out.roles = [...u.roles];
    if (u.clusterRoles?.length) out.clusterRoles = [...u.clusterRoles];
    const subjects: JsonObject[] = [];
    for (const name of u.usernames ?? []) {
      if (name.startsWith(SA_PREFIX)) {
        const [ns, sa] = name.slice(SA_PREFIX.length).split(':');
        subjects.push({ kind: 'ServiceAccount', name: sa ?? '', namespace: ns ?? '' });
      } else subjects.push({ kind: 'User', name });
    }
    for (const name of u.groups ?? []) subjects.push({ kind: 'Group', name });
    if (subjects.length) out.subjects = subjects;
  }
  return out;
}

function meet(a: string | undefined, b: string | undefined): string | undefined | null {
  if (a === undefined || a === '*') return b;
  if (b === undefined || b === '*') return a;
  return a === b ? a : null;
}

/** The GVK patterns matching what both lists match (exact names, `*` and absent as "any"). */
function intersectKinds(a: readonly GvkPattern[], b: readonly GvkPattern[]): GvkPattern[] {
  const out: GvkPattern[] = [];
  for (const x of a) {
    for (const y of b) {
      const group = meet(x.group, y.group);
      const version = meet(x.version, y.version);
      const kind = meet(x.kind, y.kind);
      const subresource = meet(x.subresource || undefined, y.subresource || undefined);
      if (group === null || version === null || kind === null || subresource === null) continue;
      const p: GvkPattern = { kind: kind ?? '*' };
      if (group !== undefined) p.group = group;
      if (version !== undefined) p.version = version;
      if (subresource !== undefined) p.subresource = subresource;
      if (!out.some((q) => JSON.stringify(q) === JSON.stringify(p))) out.push(p);
    }
  }
  return out;
}

/** The conjunction of two clauses: kinds and operations intersect; any other field may be set by one only. */
function mergeClauses(a: MatchClause, b: MatchClause): MatchClause | undefined {
  const out: MatchClause = { ...a };
  for (const k of Object.keys(b) as (keyof MatchClause)[]) {
    if (out[k] === undefined || JSON.stringify(out[k]) === JSON.stringify(b[k])) {
      (out as Record<string, unknown>)[k] = b[k];
      continue;
    }
    if (k === 'kinds') {
      out.kinds = intersectKinds(a.kinds!, b.kinds!);
      // An empty intersection matches nothing; Kyverno has no such filter.
      if (out.kinds.length === 0) return undefined;
      continue;
    }
    if (k === 'operations') {
      out.operations = a.operations!.filter((o) => b.operations!.includes(o));
      if (out.operations.length === 0) return undefined;
      continue;
    }
    return undefined;
  }
  return out;
}

/** A pattern list that can match the empty namespace of a cluster-scoped object. */
function matchesEmpty(patterns: readonly string[]): boolean {
  return patterns.some((p) => /^\**$/.test(p));
}

function mayBeNamespaceKind(c: MatchClause): boolean {
  return !c.kinds?.length || c.kinds.some((k) => (k.kind === '*' || k.kind === 'Namespace') && (k.group === undefined || k.group === '' || k.group === '*'));
}

/**
 * `scope: Namespaced` said the Kyverno way: a non-empty namespace (Kyverno reads a cluster-scoped object's
 * namespace as "") and, where the kinds allow it, not a Namespace (whose namespace Kyverno reads as its name).
 */
function lowerScope(c: MatchClause): { clause: MatchClause; excludeNamespaceKind: boolean } | string {
  if (!c.scope || c.scope === '*') return { clause: c, excludeNamespaceKind: false };
  const { scope, ...rest } = c;
  if (scope === 'Cluster') return "a match on cluster-scoped objects only (scope: Cluster)";
  const clause: MatchClause = rest;
  if (!clause.namespaces?.length) clause.namespaces = ['?*'];
  else if (matchesEmpty(clause.namespaces)) return 'scope: Namespaced next to a namespaces pattern that matches every namespace';
  return { clause, excludeNamespaceKind: mayBeNamespaceKind(clause) };
}

function conjoin(dnf: MatchClause[], clause: MatchClause): MatchClause[] | undefined {
  const out: MatchClause[] = [];
  for (const c of dnf) {
    const m = mergeClauses(c, clause);
    if (!m) return undefined;
    out.push(m);
  }
  return out;
}

/** Lossy notes for a Gatekeeper clause read the Kyverno way (see src/k8s/profile.ts). */
function gatekeeperNotes(c: MatchClause, namespaced: boolean): string[] {
  const notes: string[] = [];
  if (c.names?.length) notes.push('names: Gatekeeper also matches generateName for prefix patterns; Kyverno reads generateName only when the name is empty');
  if (c.namespaces?.length && !namespaced && !matchesEmpty(c.namespaces)) notes.push('namespaces: Gatekeeper does not disqualify an object without a namespace; Kyverno matches it as ""');
  if (c.namespaceSelector) notes.push("namespaceSelector: Gatekeeper matches a Namespace by its own labels and fails without the Namespace object; Kyverno does neither");
  return notes;
}

/**
 * The match of a rule: the policy's match AND the rule's own. Returns the Kyverno blocks, or a reason when
 * Kyverno cannot state the same condition.
 */
/** The spec with every clause's resource rules read as kinds (emit-resources.ts), or why not. */
function withKinds(spec: MatchSpec): MatchSpec | string {
  const convert = (cs: readonly MatchClause[] | undefined): MatchClause[] | string | undefined => {
    if (!cs) return undefined;
    const out: MatchClause[] = [];
    for (const c of cs) {
      const k = resourcesAsKinds(c);
      if (typeof k === 'string') return k;
      out.push(k);
    }
    return out;
  };
  const any = convert(spec.any);
  const all = convert(spec.all);
  const exAny = convert(spec.exclude?.any);
  const exAll = convert(spec.exclude?.all);
  for (const r of [any, all, exAny, exAll]) if (typeof r === 'string') return r;
  const out: MatchSpec = { ...spec };
  if (any) out.any = any as MatchClause[];
  if (all) out.all = all as MatchClause[];
  if (spec.exclude) {
    out.exclude = {};
    if (exAny) out.exclude.any = exAny as MatchClause[];
    if (exAll) out.exclude.all = exAll as MatchClause[];
  }
  return out;
}

/** The parts of a clause that hold name patterns (kinds and resource rules use `*` as "any" in every engine). */
function patternText(cs: readonly MatchClause[]): string {
  return JSON.stringify(cs.map((c) => [c.names, c.namespaces, c.excludedNamespaces, c.annotations, c.labelSelector, c.namespaceSelector, c.userInfo]));
}

/** A label selector with no requirement: it selects every object. */
function isEmptySelector(s: LabelSelector | undefined): boolean {
  return s !== undefined && Object.keys(s.matchLabels ?? {}).length === 0 && !s.matchExpressions?.length;
}

/**
 * A Kubernetes clause without its empty selectors: kube-apiserver's `objectSelector: {}` and
 * `namespaceSelector: {}` select everything (cluster-scoped objects too), as no Kyverno filter does.
 */
function withoutEmptySelectors(spec: MatchSpec): MatchSpec {
  if (spec.globs !== 'exact') return spec;
  const strip = (cs: MatchClause[] | undefined): MatchClause[] | undefined =>
    cs?.map((c) => {
      if (!isEmptySelector(c.labelSelector) && !isEmptySelector(c.namespaceSelector)) return c;
      const out: MatchClause = { ...c };
      if (isEmptySelector(out.labelSelector)) delete out.labelSelector;
      if (isEmptySelector(out.namespaceSelector)) delete out.namespaceSelector;
      return out;
    });
  const out: MatchSpec = { ...spec };
  if (spec.any) out.any = strip(spec.any)!;
  if (spec.all) out.all = strip(spec.all)!;
  if (spec.exclude) out.exclude = { ...(spec.exclude.any ? { any: strip(spec.exclude.any)! } : {}), ...(spec.exclude.all ? { all: strip(spec.exclude.all)! } : {}) };
  return out;
}

export function emitMatch(specsIn: readonly MatchSpec[]): EmittedMatch | string {
  const specs: MatchSpec[] = [];
  for (const s of specsIn) {
    const converted = withKinds(withoutEmptySelectors(s));
    if (typeof converted === 'string') return `a match on ${converted}`;
    specs.push(converted);
  }
  let dnf: MatchClause[] = [{}];
  const excludes: JsonObject[] = [];
  let excludeAll: JsonObject[] | undefined;
  const lossy: string[] = [];
  for (const spec of specs) {
    const gatekeeper = spec.globs === 'prefixSuffix';
    const conj: MatchClause[] = [];
    const takeExcluded = (c: MatchClause): MatchClause => {
      if (!c.excludedNamespaces?.length) return c;
      excludes.push({ resources: { namespaces: [...c.excludedNamespaces] } });
      const { excludedNamespaces: _x, ...rest } = c;
      return rest;
    };
    if (spec.any) {
      if (spec.any.length === 0) return 'a match with an empty any list (matches nothing)';
      if (spec.any.length === 1) conj.push(takeExcluded(spec.any[0]!));
      else {
        const alternatives = spec.any;
        const next: MatchClause[] = [];
        for (const d of dnf) for (const a of alternatives) {
          const m = mergeClauses(d, a);
          if (!m) return 'a match whose alternatives and conditions set the same field';
          next.push(m);
        }
        dnf = next;
      }
    }
    for (const c of spec.all ?? []) conj.push(takeExcluded(c));
    for (const c of conj) {
      const next = conjoin(dnf, c);
      if (!next) return 'a match whose conditions set the same field twice';
      dnf = next;
    }
    if (gatekeeper) {
      const clauses = [...(spec.any ?? []), ...(spec.all ?? [])];
      const namespaced = clauses.some((c) => c.scope === 'Namespaced');
      for (const c of clauses) lossy.push(...gatekeeperNotes(c, namespaced));
    }
    if (spec.globs === 'exact') {
      const clauses = [...(spec.any ?? []), ...(spec.all ?? [])];
      for (const c of clauses) lossy.push(...kubernetesNotes(c));
    }
    if (spec.globs === 'prefixSuffix' || spec.globs === 'exact') {
      const text = patternText([...(spec.any ?? []), ...(spec.all ?? [])]);
      if (text.includes('?')) return "a name or namespace pattern containing '?' (a wildcard in Kyverno, a literal character here)";
    }
    if (spec.globs === 'exact' && patternText([...(spec.any ?? []), ...(spec.all ?? []), ...(spec.exclude?.any ?? []), ...(spec.exclude?.all ?? [])]).includes('*')) {
      return "a pattern containing '*' (a wildcard in Kyverno, a literal character here)";
    }
    if (spec.exclude) {
      for (const c of spec.exclude.any ?? []) {
        const f = filterJson(c, gatekeeper, 'exclude');
        if (typeof f === 'string') return `an exclusion with ${f}`;
        excludes.push(f);
      }
      if (spec.exclude.all?.length) {
        if (excludeAll) return 'two exclusions that each need every clause';
        excludeAll = [];
        for (const c of spec.exclude.all) {
          const f = filterJson(c, gatekeeper, 'exclude');
          if (typeof f === 'string') return `an exclusion with ${f}`;
          excludeAll.push(f);
        }
      }
    }
  }
  const gatekeeper = specs.some((s) => s.globs === 'prefixSuffix');
  const filters: JsonObject[] = [];
  for (const raw of dnf) {
    const lowered = lowerScope(raw);
    if (typeof lowered === 'string') return lowered;
    if (lowered.excludeNamespaceKind) {
      if (dnf.length > 1) return 'scope: Namespaced in one of several alternatives';
      excludes.push({ resources: { kinds: ['v1/Namespace'] } });
    }
    const c = lowered.clause;
    const f = filterJson(c, gatekeeper);
    if (typeof f === 'string') return f;
    filters.push(f);
  }
  const out: EmittedMatch = { match: { any: filters }, lossy: [...new Set(lossy)] };
  if (specs.some((sp) => sp.globs === 'exact' && [...(sp.any ?? []), ...(sp.all ?? [])].some((c) => c.names?.length))) out.needsName = true;
  if (specs.some((sp) => sp.globs === 'exact' && [...(sp.exclude?.any ?? []), ...(sp.exclude?.all ?? [])].some((c) => c.names?.length))) {
    return 'an exclusion by resourceNames (Kyverno would also exclude a CREATE whose generateName matches)';
  }
  if (excludeAll && excludes.length) return 'an exclusion needing every clause next to exclusions needing any';
  if (excludeAll) out.exclude = { all: excludeAll };
  else if (excludes.length) out.exclude = { any: excludes };
  return out;
}

