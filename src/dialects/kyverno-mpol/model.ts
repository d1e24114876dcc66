/**
 * Kyverno's CEL MutatingPolicy (policies.kyverno.io v1alpha1 / v1beta1 / v1) as the dialect reads it: the MAP
 * shape (matchConstraints, matchConditions, variables, mutations, failurePolicy, reinvocationPolicy) without
 * bindings or params, plus Kyverno's evaluation modes, autogen and CEL PolicyExceptions.
 */
import type { SourceDoc, YamlPath } from '../../io/source.js';
import type { Expression, MatchResources, Mutation, Named } from '../map/model.js';

export const DIALECT = 'kyverno-mpol';
export const GROUP = 'policies.kyverno.io';
export const VERSIONS: ReadonlySet<string> = new Set(['v1alpha1', 'v1beta1', 'v1']);
export const POLICY_KINDS: ReadonlySet<string> = new Set(['MutatingPolicy', 'NamespacedMutatingPolicy']);
export const EXCEPTION_KIND = 'PolicyException';
/** MutatingPolicy rules may name DELETE (a mutate-existing trigger), unlike MAP. */
export const MPOL_OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

/** The Pod controllers autogen knows (pkg/cel/autogen/config.go configsMap). */
export const POD_CONTROLLERS: readonly string[] = ['cronjobs', 'daemonsets', 'deployments', 'jobs', 'replicasets', 'statefulsets'];

export interface MpolPolicy {
  kind: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  name: string;
  /** The namespace of a NamespacedMutatingPolicy: it only sees requests of that namespace. */
  namespace?: string;
  doc: SourceDoc;
  matchConstraints: MatchResources;
  variables: Named[];
  matchConditions: Named[];
  mutations: Mutation[];
  failurePolicy: 'Fail' | 'Ignore';
  reinvocationPolicy: 'Never' | 'IfNeeded';
  /** spec.evaluation: admission (default on) and mutate-existing (default off). */
  admission: boolean;
  mutateExisting: boolean;
  /**
   * `spec.targetMatchConstraints` selects targets (resource rules or an expression): the policy never mutates
   * the admission request itself (webhooks/resource/mpol NoTargetMatchConstraintPolicy), only targets.
   */
  hasTargets: boolean;
  /** spec.targetMatchConstraints as written (resource rules, selectors, and the CEL `expression`). */
  targetMatchConstraints?: MatchResources & { expression?: Expression };
  /** spec.targetMatchConditions: tested on each resolved target (`object` is the target). */
  targetMatchConditions: Named[];
  /** spec.evaluation.skipBackgroundRequests (default true): requests of the background controller are ignored. */
  skipBackgroundRequests: boolean;
  /** spec.autogen.podControllers.controllers; undefined when unset (every controller). */
  autogenControllers?: string[];
}

/** A policies.kyverno.io PolicyException that exempts whole requests (no `images` / `allowedValues`). */
export interface MpolException {
  name: string;
  namespace: string;
  doc: SourceDoc;
  policyRefs: { name: string; kind: string }[];
  matchConditions: Named[];
  /** Partial exemptions (images, allowedValues) do not skip the policy; their expressions read them. */
  partial: boolean;
  path: YamlPath;
}
