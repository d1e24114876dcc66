import type { Origin } from '../diagnostics/span.js';

/**
 * How name and namespace patterns are matched:
 * - `wildcard`: `*` any run and `?` one character, anywhere (Kyverno);
 * - `prefixSuffix`: a single `*` at the start or the end, or both for "contains" (Gatekeeper);
 * - `exact`: no globbing.
 */
export type GlobStyle = 'wildcard' | 'prefixSuffix' | 'exact';

/** A group/version/kind pattern; `*` matches anything; an absent field matches anything. */
export interface GvkPattern {
  group?: string;
  version?: string;
  kind: string;
  subresource?: string;
}

/** A resource rule as admission webhooks and MAP write it (`pods`, `pods/status`, `*\/scale`). */
export interface ResourcePattern {
  groups: string[];
  versions: string[];
  resources: string[];
  resourceNames?: string[];
  operations?: string[];
  scope?: 'Namespaced' | 'Cluster' | '*';
}

export interface LabelRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelRequirement[];
}

export interface UserMatch {
  usernames?: string[];
  groups?: string[];
  roles?: string[];
  clusterRoles?: string[];
}

/** One conjunction of conditions on the admission request; every field present must hold. */
export interface MatchClause {
  kinds?: GvkPattern[];
  resources?: ResourcePattern[];
  operations?: string[];
  names?: string[];
  namespaces?: string[];
  excludedNamespaces?: string[];
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  annotations?: Record<string, string>;
  scope?: 'Namespaced' | 'Cluster' | '*';
  userInfo?: UserMatch;
}

/** Every field of a clause, in the order the text and YAML forms write them. */
export const MATCH_CLAUSE_KEYS: readonly (keyof MatchClause)[] = [
  'kinds',
  'resources',
  'operations',
  'names',
  'namespaces',
  'excludedNamespaces',
  'labelSelector',
  'namespaceSelector',
  'annotations',
  'scope',
  'userInfo',
];

/**
 * The first-class match block. The request matches when (`any` is absent or one of its clauses holds) and
 * (every clause of `all` holds) and no exclusion holds. An empty spec matches everything.
 */
export interface MatchSpec {
  any?: MatchClause[];
  all?: MatchClause[];
  exclude?: { any?: MatchClause[]; all?: MatchClause[] };
  globs: GlobStyle;
  origin?: Origin;
}

export function matchAll(origin?: Origin): MatchSpec {
  return origin ? { globs: 'wildcard', origin } : { globs: 'wildcard' };
}
