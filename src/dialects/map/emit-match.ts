/**
 * An IR match block as MAP `matchConstraints` (resourceRules from kinds through the built-in resource table,
 * object and namespace selectors) plus the CEL `matchConditions` for what resource rules cannot say (names,
 * namespaces, annotations, the request's user by Kyverno's subjects, Kyverno's exclusions) or say otherwise
 * than the source engine (selectors on an UPDATE, a namespaceSelector on a Namespace or a cluster-scoped
 * object). Anything else is unsupported.
 */
import type { JsonObject } from '../../ir/json.js';
import type { GlobStyle, LabelSelector, MatchClause, MatchSpec, ResourcePattern, UserMatch } from '../../ir/match.js';
import { cannot, type Refusal } from '../generate-report.js';
import { resourceOf } from '../../k8s/resources.js';
import { celString, NAMESPACE_OR_OWN_NAME, REQUEST_HAS_USER, REQUEST_NAMESPACE } from './emit-cel.js';
import { kyvernoNamesCel, kyvernoNamespacesCel, kyvernoNotExcludedCel, kyvernoSelectorCel, mayMatchClusterScoped, mayMatchNamespaces } from './match-cel.js';

const MAP_OPS = ['CREATE', 'UPDATE', 'CONNECT'];

export interface EmittedMatch {
  matchConstraints: JsonObject;
  /** The binding's matchResources: a second clause restricting kinds holds there (the binding narrows the policy). */
  bindingMatch?: JsonObject;
  conditions: { name: string; expression: string }[];
  notes: string[];
}

/**
 * The resource rules of a clause's kinds. `kyverno`: a Pod (or any kind) of the core group also takes
 * pods/ephemeralcontainers, which Kyverno both registers its webhook for (pkg/controllers/webhook
 * utils_webhook.go: "if we have pods, we add pods/ephemeralcontainers by default") and matches a Pod rule
 * against (CheckKind): a `kubectl debug` request is mutated. A CEL policy is only called for what it names.
 */
function rulesOfClause(c: MatchClause, kyverno = false): ResourcePattern[] | undefined {
  const out: ResourcePattern[] = [];
  for (const k of c.kinds ?? []) {
    const resource = k.kind === '*' ? '*' : resourceOf({ group: k.group ?? '', version: k.version ?? '', kind: k.kind }).resource;
    const resources = [k.subresource ? `${resource}/${k.subresource}` : resource];
    const core = (k.group === undefined || k.group === '' || k.group === '*') && (k.version === undefined || k.version === 'v1' || k.version === '*');
    if (kyverno && !k.subresource && core && (k.kind === 'Pod' || k.kind === '*')) resources.push('pods/ephemeralcontainers');
    out.push({ groups: [k.group ?? '*'], versions: [k.version ?? '*'], resources });
  }
  out.push(...(c.resources ?? []));
  return out.length > 0 ? out : undefined;
}

function ruleJson(r: ResourcePattern, operations: readonly string[]): JsonObject {
  const ops = r.operations && r.operations.length > 0 ? r.operations.filter((o) => o === '*' || operations.includes(o) || operations.includes('*')) : [...operations];
  const out: JsonObject = { apiGroups: r.groups, apiVersions: r.versions, resources: r.resources, operations: ops.includes('*') ? ['*'] : ops };
  if (r.resourceNames) out.resourceNames = r.resourceNames;
  if (r.scope) out.scope = r.scope;
  return out;
}

function selectorJson(s: LabelSelector): JsonObject {
  const out: JsonObject = {};
  if (s.matchLabels) out.matchLabels = { ...s.matchLabels };
  if (s.matchExpressions) out.matchExpressions = s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: e.values } : {}) }));
  return out;
}

function wildcardLabels(sel: LabelSelector | undefined): boolean {
  return Object.entries(sel?.matchLabels ?? {}).some(([k, v]) => /[*?]/.test(k + v));
}

/** A name pattern as a CEL test of `subject`. */
function globTest(subject: string, pattern: string, globs: GlobStyle): string | undefined {
  if (globs === 'exact' || !/[*?]/.test(pattern)) return `${subject} == ${celString(pattern)}`;
  if (globs === 'prefixSuffix') {
    const inner = pattern.replace(/^\*|\*$/g, '');
    if (inner.includes('*')) return undefined;
    if (pattern.startsWith('*') && pattern.endsWith('*') && pattern.length > 1) return `${subject}.contains(${celString(inner)})`;
    if (pattern.endsWith('*')) return `${subject}.startsWith(${celString(inner)})`;
    return `${subject}.endsWith(${celString(inner)})`;
  }
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  // go-wildcard's `*` and `?` match any character, line feeds included.
  return `${subject}.matches(${celString(`(?s)^${re}$`)})`;
}

/**
 * Kyverno's `annotations` criterion (CheckAnnotations): every pattern pair meets some annotation of the
 * object, key and value each matched by wildcard.
 */
function annotationsTest(annotations: Record<string, string>, globs: GlobStyle): string | undefined {
  const parts: string[] = ['has(object.metadata.annotations)'];
  for (const [k, v] of Object.entries(annotations)) {
    const key = globTest('a', k, globs);
    const value = globTest('object.metadata.annotations[a]', v, globs);
    if (!key || !value) return undefined;
    parts.push(/[*?]/.test(k) ? `object.metadata.annotations.exists(a, ${key} && ${value})` : `${celString(k)} in object.metadata.annotations && ${globTest(`object.metadata.annotations[${celString(k)}]`, v, globs)}`);
  }
  return parts.join(' && ');
}

/**
 * Kyverno's subjects (pkg/utils/match/subjects.go CheckSubjects): the request's username matches a User or
 * ServiceAccount pattern (`system:serviceaccount:<namespace>:<name>`), or one of its groups a Group pattern.
 * Roles are computed from the cluster's RoleBindings, which no CEL request carries.
 */
function subjectsTest(u: UserMatch, globs: GlobStyle): string | Refusal | undefined {
  if (u.roles?.length || u.clusterRoles?.length) return cannot('a match or exclusion on roles or cluster roles (the CEL request carries no roles; Kyverno computes them from the cluster\'s RoleBindings)');
  const parts: string[] = [];
  if (u.usernames?.length) {
    const t = anyOf('request.userInfo.?username.orValue("")', u.usernames, globs);
    if (!t) return undefined;
    parts.push(`(${t})`);
  }
  if (u.groups?.length) {
    const t = anyOf('g', u.groups, globs);
    if (!t) return undefined;
    parts.push(`request.userInfo.?groups.orValue([]).exists(g, ${t})`);
  }
  return parts.length === 0 ? 'true' : parts.join(' || ');
}

/**
 * The subjects of a match clause: a request that carries no user at all ignores them (Kyverno's
 * matchesResourceDescriptionMatchHelper); an exclusion tests them against the empty user, where they fail.
 */
function matchedSubjects(test: string): string {
  return `!(${REQUEST_HAS_USER}) || ${test}`;
}

/**
 * Gatekeeper's `name` criterion (pkg/mutation/match namesMatch, src/k8s/clause.ts): the name matches, or the
 * object has a generateName that a pattern ending in `*` covers (its prefix, or its middle for `*x*`).
 */
function gatekeeperNamesTest(patterns: readonly string[]): string | undefined {
  const byName = anyOf('object.metadata.?name.orValue("")', patterns, 'prefixSuffix');
  if (byName === undefined) return undefined;
  const generated = patterns.filter((p) => p.endsWith('*') && p.length > 1).map((p) => globTest('object.metadata.generateName', p, 'prefixSuffix'));
  if (generated.some((t) => t === undefined)) return undefined;
  if (generated.length === 0) return byName;
  const generateName = `object.metadata.?generateName.orValue("") != "" && (${generated.map((t) => `(${t})`).join(' || ')})`;
  return `(${byName}) || (${generateName})`;
}

function anyOf(subject: string, patterns: readonly string[], globs: GlobStyle): string | undefined {
  const tests = patterns.map((p) => globTest(subject, p, globs));
  if (tests.some((t) => t === undefined)) return undefined;
  return tests.length === 1 ? tests[0] : tests.map((t) => `(${t})`).join(' || ');
}

/**
 * `target` words what only one target refuses. A Kyverno match (wildcard globs) reads names, namespaces and
 * exclusions as Kyverno does (match-cel.ts); Gatekeeper's and the API server's are read as theirs.
 */
export function emitMatch(spec: MatchSpec, target: 'map' | 'kyverno-mpol' = 'map'): EmittedMatch | string | Refusal {
  const kyverno = spec.globs === 'wildcard';
  const namespaceKind = kyverno && mayMatchNamespaces(spec);
  if (!kyverno && spec.exclude && ((spec.exclude.all?.length ?? 0) > 0)) return 'an exclusion that needs all of several clauses';
  const clauses: MatchClause[] = [...(spec.all ?? [])];
  const any = spec.any ?? [];
  let rules: ResourcePattern[] | undefined;
  let bindingRules: ResourcePattern[] | undefined;
  let operations: string[] = [...MAP_OPS];
  const notes: string[] = [];
  if (any.length === 1) clauses.push(any[0]!);
  else if (any.length > 1) {
    // A union only of resource rules: kinds/resources/operations per clause.
    rules = [];
    for (const c of any) {
      const keys = Object.keys(c).filter((k) => k !== 'kinds' && k !== 'resources' && k !== 'operations');
      if (keys.length > 0) return `one of several alternative match clauses with ${keys.join(', ')}`;
      const rs = rulesOfClause(c, kyverno);
      if (!rs) return 'an alternative match clause without kinds';
      const ops = c.operations ?? ['*'];
      rules.push(...rs.map((r) => ({ ...r, operations: r.operations ?? ops })));
    }
  }
  const conditions: EmittedMatch['conditions'] = [];
  let objectSelector: LabelSelector | undefined;
  let namespaceSelector: LabelSelector | undefined;
  let scope: ResourcePattern['scope'];
  for (const c of clauses) {
    for (const key of Object.keys(c) as (keyof MatchClause)[]) {
      switch (key) {
        case 'kinds':
        case 'resources':
          break;
        case 'operations':
          if (!c.operations!.includes('*')) operations = operations.filter((o) => c.operations!.includes(o));
          break;
        case 'labelSelector':
        case 'namespaceSelector': {
          const object = key === 'labelSelector';
          if (object ? objectSelector : namespaceSelector) return `two ${object ? 'object label' : 'namespace'} selectors`;
          if (object) objectSelector = c.labelSelector;
          else namespaceSelector = c.namespaceSelector;
          break;
        }
        case 'names': {
          // Kyverno and Gatekeeper match an object that has only a generateName (a CREATE by a controller) by it.
          if (spec.globs === 'prefixSuffix' && c.names!.includes('')) break;
          const t = kyverno ? kyvernoNamesCel(c.names!) : spec.globs === 'prefixSuffix' ? gatekeeperNamesTest(c.names!) : anyOf('object.metadata.?name.orValue("")', c.names!, spec.globs);
          if (!t) return `the name patterns ${c.names!.join(', ')}`;
          conditions.push({ name: 'names', expression: t });
          break;
        }
        case 'namespaces':
        case 'excludedNamespaces': {
          // Gatekeeper (namespacesMatch, excludedNamespacesMatch) reads a Namespace's own name, and neither
          // criterion disqualifies another cluster-scoped object.
          const gatekeeperScoped = spec.globs === 'prefixSuffix' && mayMatchClusterScoped(spec);
          const subject = gatekeeperScoped ? NAMESPACE_OR_OWN_NAME : REQUEST_NAMESPACE;
          const t = kyverno && key === 'namespaces' ? kyvernoNamespacesCel(c[key]!, namespaceKind) : anyOf(subject, c[key]!, spec.globs);
          if (!t) return `the namespace patterns ${c[key]!.join(', ')}`;
          const test = key === 'namespaces' ? t : `!(${t})`;
          conditions.push({ name: key === 'namespaces' ? 'namespaces' : 'excluded-namespaces', expression: gatekeeperScoped ? `${subject} == "" || ${test}` : test });
          notes.push(`${key} tested on request.namespace`);
          break;
        }
        case 'scope':
          if (c.scope !== '*') scope = c.scope;
          break;
        case 'annotations': {
          const t = annotationsTest(c.annotations!, spec.globs);
          if (!t) return `the annotation patterns ${JSON.stringify(c.annotations)}`;
          conditions.push({ name: 'annotations', expression: t });
          break;
        }
        case 'userInfo': {
          const t = subjectsTest(c.userInfo!, spec.globs);
          if (t === undefined) return `the subject patterns ${JSON.stringify(c.userInfo)}`;
          if (typeof t !== 'string') return t;
          conditions.push({ name: 'subjects', expression: matchedSubjects(t) });
          break;
        }
        default:
          return `a match on ${key}`;
      }
    }
    const rs = rulesOfClause(c, kyverno);
    if (rs) {
      if (!rules) rules = rs;
      else if (!bindingRules) bindingRules = rs;
      else return 'three clauses that each restrict kinds (the policy and its binding hold two)';
    }
  }
  if (operations.length === 0) return 'a match on no MAP operation (MAP never sees DELETE)';
  if (kyverno || spec.globs === 'prefixSuffix') {
    // The API server's selectors differ from Kyverno's and Gatekeeper's: an objectSelector also matches the
    // old object of an UPDATE (both read the new object's labels), and, for Kyverno, a namespaceSelector
    // matches a Namespace by its own labels and every cluster-scoped object (Kyverno: never a Namespace, no
    // labels for a cluster-scoped object). A matchCondition keeps the source's reading where the policy may
    // meet such requests.
    const selectors: [LabelSelector | undefined, 'object' | 'namespace', boolean][] = [
      // Wildcards in matchLabels, which Kyverno expands against the labels, are refused there.
      [objectSelector, 'object', operations.includes('UPDATE') || operations.includes('*') || wildcardLabels(objectSelector)],
      [namespaceSelector, 'namespace', kyverno && (mayMatchClusterScoped(spec) || wildcardLabels(namespaceSelector))],
    ];
    for (const [sel, on, differs] of selectors) {
      if (sel === undefined || !differs) continue;
      const t = kyvernoSelectorCel(sel, on, namespaceKind);
      if (typeof t !== 'string') return t;
      conditions.push({ name: on === 'object' ? 'selector' : 'namespace-selector', expression: t });
    }
  }
  const resourceRules = (rules ?? [{ groups: ['*'], versions: ['*'], resources: ['*'] }]).map((r) => ruleJson(scope && !r.scope ? { ...r, scope } : r, operations));
  const matchConstraints: JsonObject = { resourceRules };
  const excludes: ResourcePattern[] = [];
  // Kyverno exclusions beyond resource rules: one matchCondition, Kyverno's reading of them.
  const kyvernoExcludes: MatchClause[] = [];
  for (const c of spec.exclude?.any ?? []) {
    const keys = Object.keys(c).filter((k) => k !== 'kinds' && k !== 'resources' && k !== 'operations');
    const rs = rulesOfClause(c, kyverno);
    if (kyverno && (keys.length > 0 || !rs)) {
      kyvernoExcludes.push(c);
      continue;
    }
    if (keys.length > 0 || !rs) return `an exclusion on ${keys.join(', ') || 'nothing'}`;
    excludes.push(...rs.map((r) => ({ ...r, operations: r.operations ?? c.operations ?? ['*'] })));
  }
  if (kyvernoExcludes.length > 0 || (kyverno && (spec.exclude?.all?.length ?? 0) > 0)) {
    const t = kyvernoNotExcludedCel({ any: kyvernoExcludes, all: spec.exclude?.all ?? [] }, target, namespaceKind);
    if (typeof t !== 'string') return t;
    conditions.push({ name: 'exclude', expression: t });
  }
  if (excludes.length > 0) matchConstraints.excludeResourceRules = excludes.map((r) => ruleJson(r, ['*']));
  if (namespaceSelector) matchConstraints.namespaceSelector = selectorJson(namespaceSelector);
  if (objectSelector) matchConstraints.objectSelector = selectorJson(objectSelector);
  const out: EmittedMatch = { matchConstraints, conditions, notes };
  if (bindingRules) out.bindingMatch = { resourceRules: bindingRules.map((r) => ruleJson(scope && !r.scope ? { ...r, scope } : r, operations)) };
  return out;
}
