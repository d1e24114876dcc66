import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/span.js';
import { hasOwn } from '../ir/json.js';
import type { GlobStyle, GvkPattern, MatchClause, ResourcePattern, UserMatch } from '../ir/match.js';
import type { MatchKind, RequestFacts } from './facts.js';
import { compileAnyGlob, compileGenerateNamePattern, compileGlob, type GlobMatcher } from './glob.js';
import { annotationsOf, compileLabelSelector, labelsOf, labelValue, type CompiledSelector, type Labels } from './labels.js';
import { compileOperations, type NoOperationRule, type OperationTest } from './operations.js';
import type { MatchProfile } from './profile.js';
import { pushAll } from '../util/arrays.js';

// One MatchClause compiled to criteria, each read the way `profile.ts` describes for its engine.
// A criterion returns null when it holds, a string saying why not, or {error} when it cannot be decided.

export interface Undecided {
  error: string;
}
export type Verdict = null | string | Undecided;
type Criterion = (f: RequestFacts) => Verdict;

export interface ClauseContext {
  profile: MatchProfile;
  globs: GlobStyle;
  /** Compiling an exclusion: Kyverno then evaluates userInfo even when the request has none. */
  exclude: boolean;
  field: string;
  span: Span | undefined;
  dialect: string | undefined;
  diagnostics: Diagnostic[];
}

/** A criterion that reads nothing but the kind facts and the operation (see CompiledClause.onKindOnly). */
type KindCriterion = (f: MatchKind, operation: string) => Verdict;

export interface CompiledClause {
  label: string;
  criteria: Criterion[];
  /**
   * Set when the clause tests nothing but the kind, the resource and the operation (kinds, operations, and
   * resource rules without scope or names: what MAP and ValidatingAdmissionPolicy bindings usually say): its
   * verdict from the kind facts alone (facts.ts requestMatchKind) and the request's operation.
   */
  onKindOnly: KindCriterion | undefined;
}

export function runClause(c: CompiledClause, f: RequestFacts): Verdict {
  for (const crit of c.criteria) {
    const v = crit(f);
    if (v !== null) return v;
  }
  return null;
}

const list = (xs: readonly string[]): string => `[${xs.join(', ')}]`;

function gvkText(g: { group: string; version: string; kind: string }, sub = ''): string {
  return `${g.group === '' ? 'core' : g.group}/${g.version}/${g.kind}${sub ? `/${sub}` : ''}`;
}

function patternText(p: GvkPattern): string {
  const sub = p.subresource === undefined ? '' : p.subresource === '' ? '' : `/${p.subresource}`;
  return `${p.group ?? '*'}/${p.version ?? '*'}/${p.kind}${sub}`;
}

// ---- kinds

function compileGvkPattern(p: GvkPattern, profile: MatchProfile): (f: MatchKind) => boolean {
  const field = (pattern: string | undefined): GlobMatcher | undefined => {
    if (pattern === undefined || pattern === '*') return undefined;
    return profile === 'kyverno' ? compileGlob(pattern, 'wildcard') : (s) => s === pattern;
  };
  const group = field(p.group);
  const version = field(p.version);
  const kind = field(p.kind);
  const sub = field(p.subresource);
  const plainSub = p.subresource === '';
  return (f) => {
    const g = f.matchGvk;
    if ((group && !group(g.group)) || (version && !version(g.version)) || (kind && !kind(g.kind))) return false;
    if (!sub || sub(f.subResource)) return true;
    // kyverno `CheckKind(..., allowEphemeralContainers=true)`: a plain Pod rule also covers pods/ephemeralcontainers.
    return (
      profile === 'kyverno' &&
      plainSub &&
      f.subResource === 'ephemeralcontainers' &&
      g.group === '' &&
      g.version === 'v1' &&
      g.kind === 'Pod'
    );
  };
}

function kindsCriterion(kinds: readonly GvkPattern[], ctx: ClauseContext): (f: MatchKind) => Verdict {
  const tests = kinds.map((k) => compileGvkPattern(k, ctx.profile));
  const text = list(kinds.map(patternText));
  return (f) => (tests.some((t) => t(f)) ? null : `kind ${gvkText(f.matchGvk, f.subResource)} not in ${text}`);
}

// ---- resource rules (kubernetes `rules.Matcher` + `matchesResourceRules`)

function hasNamespace(f: RequestFacts): boolean {
  return f.namespace !== '' || f.namespaceObject !== null;
}

function scopeHolds(scope: string | undefined, f: RequestFacts): boolean {
  // A Namespace is cluster-scoped even though the API server files it under its own name.
  if (scope === 'Cluster') return f.isNamespace || !hasNamespace(f);
  if (scope === 'Namespaced') return !f.isNamespace && hasNamespace(f);
  // gatekeeper `scopeMatch`: `*`, absent and typos all match.
  return true;
}

const exactOrWildcard = (items: readonly string[], value: string): boolean => items.includes('*') || items.includes(value);

function compileResourcePattern(r: ResourcePattern, noOp: NoOperationRule): (f: RequestFacts) => boolean {
  const ops: OperationTest | undefined = compileOperations(r.operations, noOp);
  const resources = r.resources.map(splitResource);
  const names = r.resourceNames && r.resourceNames.length > 0 ? new Set(r.resourceNames) : undefined;
  return (f) =>
    scopeHolds(r.scope, f) &&
    (!ops || ops(f.operation)) &&
    exactOrWildcard(r.groups, f.resource.group) &&
    exactOrWildcard(r.versions, f.resource.version) &&
    resources.some(
      ({ res, sub }) => (res === '*' || res === f.resource.resource) && (sub === '*' || sub === f.subResource),
    ) &&
    // Kubernetes compares `attr.GetName()`, empty for a CREATE that relies on generateName.
    (!names || names.has(f.name));
}

function resourcesCriterion(rules: readonly ResourcePattern[], ctx: ClauseContext): Criterion {
  const noOp: NoOperationRule = ctx.profile === 'gatekeeper' ? 'coversMutations' : 'wildcardOnly';
  const tests = rules.map((r) => compileResourcePattern(r, noOp));
  return (f) => (tests.some((t) => t(f)) ? null : noResourceRule(f, f.operation));
}

function noResourceRule(f: MatchKind, operation: string): string {
  const sub = f.subResource ? `/${f.subResource}` : '';
  return `${operation || '(none)'} ${f.resource.group || 'core'}/${f.resource.version}/${f.resource.resource}${sub} matches no resource rule`;
}

/**
 * resourcesCriterion over the kind facts and the operation, when no rule reads more: none has a scope that
 * tests anything (scopeHolds) or resource names. The same tests in the same order, so the same verdicts.
 */
function resourcesKindCriterion(rules: readonly ResourcePattern[], ctx: ClauseContext): KindCriterion | undefined {
  if (rules.some((r) => (r.scope === 'Cluster' || r.scope === 'Namespaced') || (r.resourceNames !== undefined && r.resourceNames.length > 0))) return undefined;
  const noOp: NoOperationRule = ctx.profile === 'gatekeeper' ? 'coversMutations' : 'wildcardOnly';
  const tests = rules.map((r) => {
    const ops = compileOperations(r.operations, noOp);
    const resources = r.resources.map(splitResource);
    return (f: MatchKind, operation: string): boolean =>
      (!ops || ops(operation)) &&
      exactOrWildcard(r.groups, f.resource.group) &&
      exactOrWildcard(r.versions, f.resource.version) &&
      resources.some(({ res, sub }) => (res === '*' || res === f.resource.resource) && (sub === '*' || sub === f.subResource));
  });
  return (f, operation) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(f, operation)) return null;
    return noResourceRule(f, operation);
  };
}

function splitResource(res: string): { res: string; sub: string } {
  const slash = res.indexOf('/');
  return slash < 0 ? { res, sub: '' } : { res: res.slice(0, slash), sub: res.slice(slash + 1) };
}

// ---- operations, scope

/** The operations criterion over the whole facts and over the kind facts (the same verdicts). */
function operationsCriteria(ops: readonly string[], ctx: ClauseContext): { whole: Criterion; onKind: KindCriterion } | undefined {
  const test = compileOperations(ops, ctx.profile === 'gatekeeper' ? 'coversMutations' : 'wildcardOnly');
  if (!test) return undefined;
  const text = list(ops);
  return {
    whole: (f) => (test(f.operation) ? null : `operation ${f.operation || '(none)'} not in ${text}`),
    onKind: (_f, operation) => (test(operation) ? null : `operation ${operation || '(none)'} not in ${text}`),
  };
}

function scopeCriterion(scope: string): Criterion | undefined {
  if (scope !== 'Cluster' && scope !== 'Namespaced') return undefined;
  return (f) => (scopeHolds(scope, f) ? null : `object is not ${scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}`);
}

// ---- names

function namesCriterion(names: readonly string[], ctx: ClauseContext): Criterion | undefined {
  const text = list(names);
  if (ctx.profile === 'gatekeeper') {
    // gatekeeper `namesMatch`: a blank name means "any name".
    if (names.includes('')) return undefined;
    const onName = compileAnyGlob(names, ctx.globs);
    const onGenerate = names.map(compileGenerateNamePattern);
    return (f) =>
      onName(f.name) || (f.generateName !== '' && onGenerate.some((m) => m(f.generateName)))
        ? null
        : `name ${JSON.stringify(f.name || f.generateName)} not in ${text}`;
  }
  const m = compileAnyGlob(names, ctx.globs);
  if (ctx.profile === 'kyverno') {
    // kyverno `doesResourceMatchConditionBlock`: generateName stands in when the name is empty.
    return (f) => {
      const n = f.name !== '' ? f.name : f.generateName;
      return m(n) ? null : `name ${JSON.stringify(n)} not in ${text}`;
    };
  }
  return (f) => (m(f.name) ? null : `name ${JSON.stringify(f.name)} not in ${text}`);
}

// ---- namespaces

/** The namespace name a namespaces criterion sees, or undefined when the object has none. */
function namespaceName(f: RequestFacts, profile: MatchProfile): string | undefined {
  if (f.isNamespace) return f.name;
  if (profile === 'kyverno') return f.namespace; // '' for cluster-scoped objects, matched as such
  if (f.namespaceObject) {
    const meta = hasOwn(f.namespaceObject, 'metadata') ? f.namespaceObject['metadata'] : undefined;
    const n = meta && typeof meta === 'object' && !Array.isArray(meta) && hasOwn(meta, 'name') ? meta['name'] : undefined;
    if (typeof n === 'string' && n !== '') return n;
  }
  return f.namespace !== '' ? f.namespace : undefined;
}

function namespacesCriterion(namespaces: readonly string[], ctx: ClauseContext): Criterion {
  const m = compileAnyGlob(namespaces, ctx.globs);
  const text = list(namespaces);
  const profile = ctx.profile;
  return (f) => {
    const ns = namespaceName(f, profile);
    if (ns === undefined) return null; // gatekeeper: "If we don't have a namespace, we can't disqualify the match"
    return m(ns) ? null : `namespace ${JSON.stringify(ns)} not in ${text}`;
  };
}

function excludedNamespacesCriterion(namespaces: readonly string[], ctx: ClauseContext): Criterion {
  const m = compileAnyGlob(namespaces, ctx.globs);
  const text = list(namespaces);
  const profile = ctx.profile;
  return (f) => {
    const ns = namespaceName(f, profile);
    if (ns === undefined) return null;
    return m(ns) ? `namespace ${JSON.stringify(ns)} is in excludedNamespaces ${text}` : null;
  };
}

// ---- selectors

function compileSelector(sel: MatchClause['labelSelector'], field: string, ctx: ClauseContext): CompiledSelector | undefined {
  const { selector, diagnostics } = compileLabelSelector(sel, {
    wildcardMatchLabels: ctx.profile === 'kyverno',
    field,
    ...(ctx.span ? { span: ctx.span } : {}),
    ...(ctx.dialect ? { dialect: ctx.dialect } : {}),
  });
  if (diagnostics.length === 0) return selector;
  pushAll(ctx.diagnostics, diagnostics);
  return undefined;
}

function invalidSelector(field: string, ctx: ClauseContext): Criterion {
  const message = `${field} is invalid`;
  return ctx.profile === 'kyverno' ? () => message : () => ({ error: message });
}

function labelSelectorCriterion(sel: MatchClause['labelSelector'], ctx: ClauseContext): Criterion | undefined {
  const field = `${ctx.field}.labelSelector`;
  const s = compileSelector(sel, field, ctx);
  if (!s) return invalidSelector(field, ctx);
  if (s.selectsAll) return undefined;
  if (ctx.profile === 'kubernetes') {
    // kubernetes `MatchObjectSelector`: the new or the old object may match; a null object never does.
    return (f) =>
      (f.newObject !== null && s.matches(labelsOf(f.newObject))) || (f.oldObject !== null && s.matches(labelsOf(f.oldObject)))
        ? null
        : 'object labels do not match labelSelector';
  }
  return (f) => (s.matches(labelsOf(f.object)) ? null : 'object labels do not match labelSelector');
}

function namespaceSelectorCriterion(sel: MatchClause['namespaceSelector'], ctx: ClauseContext): Criterion | undefined {
  const field = `${ctx.field}.namespaceSelector`;
  const s = compileSelector(sel, field, ctx);
  if (!s) return invalidSelector(field, ctx);
  const miss = 'namespace labels do not match namespaceSelector';
  switch (ctx.profile) {
    case 'kyverno':
      return (f) => {
        if (f.isNamespace) return 'namespace selector is not applicable for namespace resource';
        // Kyverno looks the labels up by request namespace; none found (cluster-scoped, offline) = no labels.
        return s.matches(labelsOf(f.namespaceObject)) ? null : miss;
      };
    case 'gatekeeper':
      return (f) => {
        if (!f.isNamespace && f.namespaceObject === null && f.namespace === '') return null;
        if (f.isNamespace) return s.matches(labelsOf(f.object)) ? null : miss;
        if (f.namespaceObject === null) {
          return { error: GATEKEEPER_MISSING_NAMESPACE };
        }
        return s.matches(labelsOf(f.namespaceObject)) ? null : miss;
      };
    case 'kubernetes':
      if (s.selectsAll) return undefined;
      return (f) => {
        // "If the request is about a cluster scoped resource, and it is not a namespace, it is never exempted."
        if (!f.isNamespace && f.namespace === '') return null;
        if (f.isNamespace) return s.matches(labelsOf(f.object)) ? null : miss;
        if (f.namespaceObject === null) return { error: `namespace "${f.namespace}" ${KUBERNETES_MISSING_NAMESPACE}` };
        return s.matches(labelsOf(f.namespaceObject)) ? null : miss;
      };
  }
}

/** Gatekeeper's error for a namespaced object whose Namespace it could not read (a selector needs its labels). */
export const GATEKEEPER_MISSING_NAMESPACE = 'namespace selector for namespace-scoped object but missing Namespace';
/** The end of the error for a request whose Namespace a kube-apiserver selector needed and nothing gave (the cluster holds it). */
export const KUBERNETES_MISSING_NAMESPACE = 'not found for namespaceSelector';

/** Whether a message holds one of the errors above: a selector that needed the request's Namespace. */
export function isMissingNamespaceError(message: string): boolean {
  return message.includes(GATEKEEPER_MISSING_NAMESPACE) || message.includes(KUBERNETES_MISSING_NAMESPACE);
}

// ---- annotations (kyverno `CheckAnnotations`: every pattern pair meets some actual pair)

function annotationsCriterion(annotations: Record<string, string>, ctx: ClauseContext): Criterion | undefined {
  const pairs = Object.keys(annotations).map((k) => ({
    key: compileGlob(k, ctx.globs),
    value: compileGlob(annotations[k]!, ctx.globs),
    text: `${k}=${annotations[k]}`,
  }));
  if (pairs.length === 0) return undefined;
  const someActual = (a: Labels, key: GlobMatcher, value: GlobMatcher): boolean => {
    for (const k of Object.keys(a)) {
      const v = labelValue(a, k);
      if (v !== undefined && key(k) && value(v)) return true;
    }
    return false;
  };
  return (f) => {
    const annotations = annotationsOf(f.object);
    for (const p of pairs) if (!someActual(annotations, p.key, p.value)) return `no annotation matches ${p.text}`;
    return null;
  };
}

// ---- user info (kyverno: roles AND clusterRoles AND subjects; subjects = usernames OR groups)

function hasUserInfo(f: RequestFacts): boolean {
  const u = f.userInfo;
  if (!u) return false;
  return Boolean(
    u.username || u.uid || u.groups?.length || u.roles?.length || u.clusterRoles?.length || (u.extra && Object.keys(u.extra).length),
  );
}

function userInfoCriterion(user: UserMatch, ctx: ClauseContext): Criterion | undefined {
  const roles = user.roles?.length ? new Set(user.roles) : undefined;
  const clusterRoles = user.clusterRoles?.length ? new Set(user.clusterRoles) : undefined;
  const usernames = user.usernames?.length ? compileAnyGlob(user.usernames, ctx.globs) : undefined;
  const groups = user.groups?.length ? compileAnyGlob(user.groups, ctx.globs) : undefined;
  if (!roles && !clusterRoles && !usernames && !groups) return undefined;
  const exclude = ctx.exclude;
  return (f) => {
    // kyverno `matchesResourceDescriptionMatchHelper`: a request without any user info ignores userInfo
    // criteria when matching; exclusions still evaluate them (against the empty user), so they cannot hold.
    if (!exclude && !hasUserInfo(f)) return null;
    const u = f.userInfo ?? {};
    if (roles && !(u.roles ?? []).some((r) => roles.has(r))) return `user roles ${list(u.roles ?? [])} not in ${list([...roles])}`;
    if (clusterRoles && !(u.clusterRoles ?? []).some((r) => clusterRoles.has(r))) {
      return `user clusterRoles ${list(u.clusterRoles ?? [])} not in ${list([...clusterRoles])}`;
    }
    if (usernames || groups) {
      const byName = usernames !== undefined && usernames(u.username ?? '');
      const byGroup = groups !== undefined && (u.groups ?? []).some((g) => groups(g));
      if (!byName && !byGroup) return `user ${JSON.stringify(u.username ?? '')} matches no subject`;
    }
    return null;
  };
}

// ---- clauses

export function compileClause(clause: MatchClause, ctx: ClauseContext): CompiledClause {
  const criteria: Criterion[] = [];
  // The same criteria over the kind facts, while every one so far has such a form.
  let onKind: KindCriterion[] | undefined = [];
  const push = (c: Criterion | undefined): void => {
    if (!c) return;
    criteria.push(c);
    onKind = undefined;
  };
  // Each criterion is called directly on the whole facts (a wrapper per call would slow every other match).
  const pushKindLevel = (whole: Criterion, kindLevel: KindCriterion): void => {
    criteria.push(whole);
    onKind?.push(kindLevel);
  };
  // Cheap and selective first; the selectors and namespace lookups last.
  const operations = clause.operations?.length ? operationsCriteria(clause.operations, ctx) : undefined;
  if (operations) pushKindLevel(operations.whole, operations.onKind);
  if (clause.kinds?.length) {
    const kinds = kindsCriterion(clause.kinds, ctx);
    pushKindLevel(kinds, kinds);
  }
  if (clause.resources?.length) {
    const onResources = resourcesKindCriterion(clause.resources, ctx);
    if (onResources) pushKindLevel(resourcesCriterion(clause.resources, ctx), onResources);
    else push(resourcesCriterion(clause.resources, ctx));
  }
  if (clause.scope !== undefined) push(scopeCriterion(clause.scope));
  if (clause.names?.length) push(namesCriterion(clause.names, ctx));
  if (clause.namespaces?.length) push(namespacesCriterion(clause.namespaces, ctx));
  if (clause.excludedNamespaces?.length) push(excludedNamespacesCriterion(clause.excludedNamespaces, ctx));
  if (clause.annotations) push(annotationsCriterion(clause.annotations, ctx));
  if (clause.labelSelector !== undefined) push(labelSelectorCriterion(clause.labelSelector, ctx));
  if (clause.namespaceSelector !== undefined) push(namespaceSelectorCriterion(clause.namespaceSelector, ctx));
  if (clause.userInfo) push(userInfoCriterion(clause.userInfo, ctx));
  return { label: ctx.field, criteria, onKindOnly: onKind === undefined ? undefined : kindLevel(onKind) };
}

function kindLevel(criteria: readonly KindCriterion[]): KindCriterion {
  if (criteria.length === 0) return holds;
  if (criteria.length === 1) return criteria[0]!;
  return (f, operation) => {
    for (let i = 0; i < criteria.length; i++) {
      const v = criteria[i]!(f, operation);
      if (v !== null) return v;
    }
    return null;
  };
}

const holds = (): Verdict => null;
