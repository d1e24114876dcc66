/**
 * A Kyverno match block as one CEL test of the admission request, for a rule whose match differs from its
 * policy's other rules (a CEL policy has one matchConstraints: the rules' union goes there, and each rule is
 * guarded by its own match). The criteria are read as Kyverno reads them (src/k8s/clause.ts, profile
 * `kyverno`; upstream pkg/engine/utils/match.go):
 * - kinds: group, version and kind wildcards against the request's kind; no subresource unless the pattern
 *   names one (a plain Pod pattern also admits pods/ephemeralcontainers);
 * - names: the object's name, or its generateName when the name is empty;
 * - namespaces: the request's namespace (a Namespace's own name for a Namespace);
 * - annotations: every pattern pair meets some annotation; labelSelector on the object's labels;
 *   namespaceSelector on the namespace's labels (never for a Namespace);
 * - userInfo: ignored when the request carries no user at all (a match), evaluated against the empty user
 *   in an exclusion.
 * Wildcards in a selector's matchLabels (Kyverno expands them against the labels) are refused.
 */
import type { GvkPattern, LabelSelector, MatchClause, MatchSpec, UserMatch } from '../../ir/match.js';
import { cannot, notYet, type Refusal } from '../generate-report.js';
import { celString, NAMESPACE_OR_OWN_NAME, REQUEST_HAS_USER, REQUEST_IS_NAMESPACE, REQUEST_NAMESPACE, REQUEST_SUBRESOURCE } from './emit-cel.js';
import { and, not, or, paren, type Cel } from './kyverno/cel-patch.js';
import { wildcardCel } from './kyverno/pattern.js';
import { wildcardMatch } from '../../k8s/glob.js';
import { isNamespacedKind } from '../../k8s/resources.js';

type R<T> = T | Refusal;

function refused(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'why' in x;
}

/** A selection chain (`request.?namespace.orValue("")`), which binds tighter than `in`. */
const MEMBER_CHAIN = /^[A-Za-z_]\w*(\.\??[A-Za-z_]\w*|\.orValue\("[^"\\]*"\))*$/;

/** Some pattern matches `subject`: the plain ones (two or more) as one `in` test of their list. */
function anyGlob(subject: Cel, patterns: readonly string[]): Cel {
  if (patterns.includes('*')) return 'true';
  const plain = patterns.filter((p) => !/[*?]/.test(p));
  const tests = patterns.filter((p) => /[*?]/.test(p)).map((p) => wildcardCel(subject, p));
  const operand = MEMBER_CHAIN.test(subject) ? subject : paren(subject);
  if (plain.length > 1) tests.unshift(`${operand} in [${plain.map(celString).join(', ')}]`);
  else if (plain.length === 1) tests.unshift(`${operand} == ${celString(plain[0]!)}`);
  return or(tests);
}

function field(subject: Cel, pattern: string | undefined): Cel | undefined {
  if (pattern === undefined || pattern === '*') return undefined;
  return wildcardCel(subject, pattern);
}

function kindTest(k: GvkPattern): Cel {
  const gvk = and([field('request.kind.group', k.group), field('request.kind.version', k.version), field('request.kind.kind', k.kind)]);
  let sub: Cel | undefined;
  if (k.subresource === '') {
    // CheckKind(..., allowEphemeralContainers): a plain Pod pattern also covers pods/ephemeralcontainers.
    sub = k.kind === 'Pod' || /[*?]/.test(k.kind) ? or([`${REQUEST_SUBRESOURCE} == ""`, `${REQUEST_SUBRESOURCE} == "ephemeralcontainers" && request.kind.group == "" && request.kind.version == "v1" && request.kind.kind == "Pod"`]) : `${REQUEST_SUBRESOURCE} == ""`;
  } else sub = field(REQUEST_SUBRESOURCE, k.subresource);
  return and([gvk, sub]) ?? 'true';
}

const LABELS = 'object.?metadata.?labels.orValue({})';
const NAMESPACE_LABELS = '(namespaceObject != null ? namespaceObject.?metadata.?labels.orValue({}) : {})';

function selectorTest(sel: LabelSelector, labels: Cel, what: string): R<Cel> {
  const parts: Cel[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    if (/[*?]/.test(k + v)) return notYet(`wildcards in the ${what} matchLabels ${k}: ${v} (Kyverno expands them against the labels)`);
    parts.push(`${celString(k)} in ${labels} && ${labels}[${celString(k)}] == ${celString(v)}`);
  }
  for (const e of sel.matchExpressions ?? []) {
    const key = celString(e.key);
    const values = `[${(e.values ?? []).map(celString).join(', ')}]`;
    if (e.operator === 'Exists') parts.push(`${key} in ${labels}`);
    else if (e.operator === 'DoesNotExist') parts.push(`!(${key} in ${labels})`);
    else if (e.operator === 'In') parts.push(`${key} in ${labels} && ${labels}[${key}] in ${values}`);
    else parts.push(`!(${key} in ${labels}) || !(${labels}[${key}] in ${values})`);
  }
  return and(parts.map(paren)) ?? 'true';
}

function userTest(u: UserMatch, exclude: boolean, target: 'map' | 'kyverno-mpol'): R<Cel> {
  const parts: Cel[] = [];
  // Kyverno computes a user's roles from RoleBindings; neither CEL environment's request carries them.
  if (u.roles?.length || u.clusterRoles?.length) return cannot(`a match or exclusion on roles or cluster roles (the ${target === 'map' ? 'MutatingAdmissionPolicy' : 'MutatingPolicy'} request carries no roles; Kyverno computes them from the cluster's RoleBindings)`);
  const subjects: Cel[] = [];
  if (u.usernames?.length) subjects.push(anyGlob('request.userInfo.?username.orValue("")', u.usernames));
  if (u.groups?.length) subjects.push(`request.userInfo.?groups.orValue([]).exists(g, ${anyGlob('g', u.groups)})`);
  if (subjects.length > 0) parts.push(or(subjects));
  const test = and(parts.map(paren)) ?? 'true';
  if (exclude) return test;
  // A request without any user information ignores the user criteria of a match.
  return or([not(REQUEST_HAS_USER), test]);
}

/** The name Kyverno matches `names` against: the object's name, or its generateName when the name is empty. */
export const KYVERNO_MATCHED_NAME = '(object.metadata.?name.orValue("") != "" ? object.metadata.name : object.metadata.?generateName.orValue(""))';

/**
 * The namespace Kyverno matches `namespaces` against: a Namespace's own name, else the request's namespace
 * (only the latter where the match admits no Namespace: `namespaceKind` false).
 */
function kyvernoMatchedNamespace(namespaceKind: boolean): Cel {
  return namespaceKind ? NAMESPACE_OR_OWN_NAME : REQUEST_NAMESPACE;
}

/**
 * Whether a match may admit a request some clause `admits`: every clause of `all` must hold, so one that does
 * not admit it settles it; otherwise some clause admits it, or there is none.
 */
function mayAdmit(spec: Pick<MatchSpec, 'any' | 'all'>, admits: (c: MatchClause) => boolean): boolean {
  if ((spec.all ?? []).some((c) => !admits(c))) return false;
  const clauses = [...(spec.any ?? []), ...(spec.all ?? [])];
  return clauses.length === 0 || clauses.some(admits);
}

/** Whether a match may admit a Namespace: some clause names no kinds, or a kind pattern that Namespace fits. */
export function mayMatchNamespaces(spec: Pick<MatchSpec, 'any' | 'all'>): boolean {
  return mayAdmit(spec, (c) => c.scope !== 'Namespaced' && (c.kinds === undefined || c.kinds.some(admitsNamespace)));
}

function admitsNamespace(k: GvkPattern): boolean {
  const fits = (pattern: string | undefined, value: string): boolean => pattern === undefined || wildcardMatch(pattern, value);
  return fits(k.group, '') && fits(k.version, 'v1') && fits(k.kind, 'Namespace') && (k.subresource === undefined || k.subresource === '' || k.subresource === '*');
}

/**
 * Whether a match may admit an object that is not namespaced: a Namespace, a cluster-scoped built-in kind, a
 * kind the table does not know (a custom resource may be either), or any kind.
 */
export function mayMatchClusterScoped(spec: Pick<MatchSpec, 'any' | 'all'>): boolean {
  const notNamespaced = (k: GvkPattern): boolean => /[*?]/.test(k.kind) || isNamespacedKind({ group: k.group !== undefined && !/[*?]/.test(k.group) ? k.group : '', kind: k.kind }) !== true;
  return mayAdmit(spec, (c) => c.scope !== 'Namespaced' && (c.kinds === undefined || c.kinds.some(notNamespaced)));
}

/**
 * Kyverno's `selector` (on the object's labels; Gatekeeper's labelSelector reads them alike) or
 * `namespaceSelector` (on its Namespace's labels: none for a cluster-scoped object, never a match for a
 * Namespace where `namespaceKind`), as CEL.
 */
export function kyvernoSelectorCel(sel: LabelSelector, on: 'object' | 'namespace', namespaceKind: boolean): R<Cel> {
  if (on === 'object') return selectorTest(sel, LABELS, 'selector');
  const t = selectorTest(sel, NAMESPACE_LABELS, 'namespaceSelector');
  if (refused(t)) return t;
  return namespaceKind ? and([`!(${REQUEST_IS_NAMESPACE})`, t])! : t;
}

/** Kyverno's `names` criterion: a wildcard pattern matching KYVERNO_MATCHED_NAME. */
export function kyvernoNamesCel(patterns: readonly string[]): Cel {
  return anyGlob(KYVERNO_MATCHED_NAME, patterns);
}

/** Kyverno's `namespaces` criterion (`namespaceKind`: whether the match may admit a Namespace). */
export function kyvernoNamespacesCel(patterns: readonly string[], namespaceKind: boolean): Cel {
  return anyGlob(kyvernoMatchedNamespace(namespaceKind), patterns);
}

/**
 * An exclude block, Kyverno's reading, as the CEL test that the request is *not* excluded: no clause of
 * `any` holds, and not every clause of `all`. `namespaceKind`: whether the match may admit a Namespace.
 */
export function kyvernoNotExcludedCel(exclude: Pick<MatchSpec, 'any' | 'all'>, target: 'map' | 'kyverno-mpol', namespaceKind: boolean): R<Cel> {
  const parts: Cel[] = [];
  for (const [list, every] of [
    [exclude.any, false],
    [exclude.all, true],
  ] as const) {
    if (!list || list.length === 0) continue;
    const tests: Cel[] = [];
    for (const c of list) {
      const t = clauseTest(c, true, target, namespaceKind);
      if (refused(t)) return t;
      tests.push(t);
    }
    parts.push(not(every ? and(tests)! : or(tests)));
  }
  return and(parts) ?? 'true';
}

function clauseTest(c: MatchClause, exclude: boolean, target: 'map' | 'kyverno-mpol', namespaceKind: boolean): R<Cel> {
  const parts: Cel[] = [];
  for (const key of Object.keys(c) as (keyof MatchClause)[]) {
    switch (key) {
      case 'operations':
        if (!c.operations!.includes('*')) parts.push(`request.operation in [${c.operations!.map(celString).join(', ')}]`);
        break;
      case 'kinds':
        parts.push(or(c.kinds!.map(kindTest)));
        break;
      case 'names':
        parts.push(kyvernoNamesCel(c.names!));
        break;
      case 'namespaces':
        parts.push(kyvernoNamespacesCel(c.namespaces!, namespaceKind));
        break;
      case 'annotations':
        for (const [k, v] of Object.entries(c.annotations!)) {
          parts.push(`object.?metadata.?annotations.orValue({}).exists(a, ${wildcardCel('a', k)} && ${wildcardCel('object.metadata.annotations[a]', v)})`);
        }
        break;
      case 'labelSelector':
      case 'namespaceSelector': {
        const t = kyvernoSelectorCel(c[key]!, key === 'labelSelector' ? 'object' : 'namespace', namespaceKind);
        if (refused(t)) return t;
        parts.push(t);
        break;
      }
      case 'userInfo': {
        const t = userTest(c.userInfo!, exclude, target);
        if (refused(t)) return t;
        parts.push(t);
        break;
      }
      default:
        return notYet(`a rule match on ${key}`);
    }
  }
  return and(parts.map(paren)) ?? 'true';
}

/** The whole match block (any, all, exclude) as one CEL test, Kyverno's reading. */
export function kyvernoMatchCel(spec: MatchSpec, target: 'map' | 'kyverno-mpol'): R<Cel> {
  if (spec.globs !== 'wildcard') return notYet('a rule match in a dialect other than Kyverno');
  const namespaceKind = mayMatchNamespaces(spec);
  const clauses = (list: readonly MatchClause[] | undefined, exclude: boolean): R<Cel[]> => {
    const out: Cel[] = [];
    for (const c of list ?? []) {
      const t = clauseTest(c, exclude, target, namespaceKind);
      if (refused(t)) return t;
      out.push(t);
    }
    return out;
  };
  const any = clauses(spec.any, false);
  const all = clauses(spec.all, false);
  const exAny = clauses(spec.exclude?.any, true);
  const exAll = clauses(spec.exclude?.all, true);
  for (const x of [any, all, exAny, exAll]) if (refused(x)) return x;
  const parts: (Cel | undefined)[] = [];
  if ((any as Cel[]).length > 0) parts.push(or(any as Cel[]));
  parts.push(...(all as Cel[]));
  if ((exAny as Cel[]).length > 0) parts.push(not(or(exAny as Cel[])));
  if ((exAll as Cel[]).length > 0) parts.push(not(and(exAll as Cel[])!));
  return and(parts.map((p) => (p === undefined ? p : paren(p)))) ?? 'true';
}
