/**
 * The MAP objects as the dialect reads them (admissionregistration.k8s.io v1alpha1 / v1beta1 / v1 share one
 * shape), with API defaults applied and the YAML path of every expression kept for diagnostics.
 */
import type { LabelSelector, ResourcePattern } from '../../ir/match.js';
import type { JsonObject } from '../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';

export const GROUP = 'admissionregistration.k8s.io';
export const VERSIONS: ReadonlySet<string> = new Set(['v1alpha1', 'v1beta1', 'v1']);
export const POLICY_KIND = 'MutatingAdmissionPolicy';
export const BINDING_KIND = 'MutatingAdmissionPolicyBinding';

/** A CEL expression and where its text sits in the YAML. */
export interface Expression {
  text: string;
  doc: SourceDoc;
  path: YamlPath;
}

export interface Named extends Expression {
  name: string;
}

/** MatchResources (shared with ValidatingAdmissionPolicy; `+structType=atomic`). */
export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules: ResourcePattern[];
  excludeResourceRules: ResourcePattern[];
  matchPolicy: 'Equivalent' | 'Exact';
  path: YamlPath;
}

export interface Mutation {
  patchType: 'ApplyConfiguration' | 'JSONPatch';
  expression: Expression;
  path: YamlPath;
}

export interface MapPolicy {
  name: string;
  doc: SourceDoc;
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints: MatchResources;
  variables: Named[];
  mutations: Mutation[];
  failurePolicy: 'Fail' | 'Ignore';
  matchConditions: Named[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction: 'Allow' | 'Deny';
}

export interface MapBinding {
  name: string;
  doc: SourceDoc;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
}

/** One parameter object offered to the bindings (a sibling document). */
export interface ParamObject {
  value: JsonObject;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  labels: Record<string, string>;
}
