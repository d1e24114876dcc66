import type { GlobStyle } from '../ir/match.js';

/**
 * Which engine's reading of a MatchSpec to apply. The IR has one MatchSpec, but the engines disagree on a
 * few edges (kyverno `pkg/engine/utils/match.go`, gatekeeper `pkg/mutation/match/match.go`, kubernetes
 * `admission/plugin/webhook/predicates/{namespace,object,rules}`):
 *
 * | edge                                   | kyverno                    | gatekeeper                         | kubernetes (MAP)            |
 * |----------------------------------------|----------------------------|------------------------------------|-----------------------------|
 * | kind patterns                          | `*`/`?` wildcards          | exact or `*`                       | exact or `*`                |
 * | names                                  | name, else generateName    | name, or generateName for `x*`/`*x*` | name only                 |
 * | namespaces, object has none            | matched against `''`       | criterion does not disqualify      | as gatekeeper               |
 * | namespaceSelector on a Namespace       | never matches              | the Namespace's own labels         | its own labels              |
 * | namespaceSelector, cluster-scoped obj  | empty namespace labels     | matches                            | matches                     |
 * | namespaceSelector, Namespace missing   | empty namespace labels     | error (even for `{}`)              | error unless selector `{}`  |
 * | labelSelector                          | object (old one on DELETE), wildcard matchLabels | object     | object OR old object        |
 * | invalid selector                       | criterion fails            | error                              | error                       |
 * | request without operation (`''`)       | only `*`                   | `*` or CREATE+UPDATE listed        | only `*`                    |
 *
 * The profile defaults from the spec's glob style (wildcard → kyverno, prefixSuffix → gatekeeper,
 * exact → kubernetes) because each dialect writes its own style; see the report for a proposed explicit
 * MatchSpec field.
 */
export type MatchProfile = 'kyverno' | 'gatekeeper' | 'kubernetes';

export interface CompileMatchOptions {
  profile?: MatchProfile;
}

export function defaultProfile(globs: GlobStyle): MatchProfile {
  return globs === 'wildcard' ? 'kyverno' : globs === 'prefixSuffix' ? 'gatekeeper' : 'kubernetes';
}
