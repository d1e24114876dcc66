/**
 * A MutatingAdmissionPolicy and its binding as YAML text, for tests: the parts a test varies, each list item
 * one YAML flow mapping (the helpers below write them), the rest as kube-apiserver's defaults leave it.
 */
import type { Policy } from '../../src/ir/nodes.js';
import { policiesOf } from './policies.js';

export interface MapPolicyParts {
  failurePolicy?: 'Fail' | 'Ignore';
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** matchConstraints.resourceRules entries; Pods on CREATE when left out. */
  resourceRules?: readonly string[];
  /** matchConstraints.objectSelector, a flow mapping. */
  objectSelector?: string;
  matchConditions?: readonly string[];
  variables?: readonly string[];
  mutations: readonly string[];
}

export const PODS_ON_CREATE = '{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}';

/** A variable or a match condition: `{name, expression}`. */
export const namedExpression = (name: string, expression: string): string => `{name: ${name}, expression: ${JSON.stringify(expression)}}`;
export const applyConfiguration = (expression: string): string => `{patchType: ApplyConfiguration, applyConfiguration: {expression: ${JSON.stringify(expression)}}}`;
export const jsonPatch = (expression: string): string => `{patchType: JSONPatch, jsonPatch: {expression: ${JSON.stringify(expression)}}}`;

export function mapPolicyYaml(name: string, p: MapPolicyParts): string {
  const list = (key: string, items: readonly string[] | undefined, indent = '  '): string =>
    items === undefined || items.length === 0 ? '' : `${indent}${key}:\n${items.map((x) => `${indent}- ${x}`).join('\n')}\n`;
  const field = (key: string, value: string | undefined, indent = '  '): string => (value === undefined ? '' : `${indent}${key}: ${value}\n`);
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
${field('failurePolicy', p.failurePolicy)}${field('reinvocationPolicy', p.reinvocationPolicy)}  matchConstraints:
${list('resourceRules', p.resourceRules ?? [PODS_ON_CREATE], '    ')}${field('objectSelector', p.objectSelector, '    ')}${list('matchConditions', p.matchConditions)}${list('variables', p.variables)}${list('mutations', p.mutations)}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}}
`;
}

/** The policy through the normal pipeline (policies.ts policiesOf). */
export function mapPolicies(name: string, p: MapPolicyParts): Policy[] {
  return policiesOf(`${name}.yaml`, mapPolicyYaml(name, p));
}
