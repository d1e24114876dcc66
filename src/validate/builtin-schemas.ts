/**
 * The structure of the built-in kinds transmute reads as policies: MutatingAdmissionPolicy and its binding
 * (admissionregistration.k8s.io v1alpha1, v1beta1, v1), transcribed from k8s.io/api/admissionregistration
 * types.go. Built-in kinds are decoded into Go structs, so only their field names and JSON types matter
 * here; their value rules are the API server's validation code, which the MAP dialect reproduces.
 */
import { NodeInterner, type CompactSchemaTable, type SchemaNode } from './schema-node.js';

type Shape = SchemaNode['type'] | { [field: string]: Shape } | [Shape] | { '*': Shape };

function build(): CompactSchemaTable {
  const interner = new NodeInterner();
  const intern = (n: SchemaNode): number => interner.intern(n);
  const node = (shape: Shape): number => {
    if (typeof shape === 'string' || shape === undefined) return intern(shape ? { type: shape } : {});
    if (Array.isArray(shape)) return intern({ type: 'array', items: node(shape[0]) });
    if ('*' in shape) return intern({ type: 'object', additionalProperties: node(shape['*']!) });
    const properties: Record<string, number> = {};
    for (const k of Object.keys(shape).sort()) properties[k] = node(shape[k]!);
    return intern({ type: 'object', properties });
  };

  const strings: Shape = ['string'];
  const labelSelector: Shape = {
    matchLabels: { '*': 'string' },
    matchExpressions: [{ key: 'string', operator: 'string', values: strings }],
  };
  const namedRule: Shape = {
    resourceNames: strings,
    operations: strings,
    apiGroups: strings,
    apiVersions: strings,
    resources: strings,
    scope: 'string',
  };
  const matchResources: Shape = {
    namespaceSelector: labelSelector,
    objectSelector: labelSelector,
    resourceRules: [namedRule],
    excludeResourceRules: [namedRule],
    matchPolicy: 'string',
  };
  const named: Shape = [{ name: 'string', expression: 'string' }];
  const policy: Shape = {
    apiVersion: 'string',
    kind: 'string',
    metadata: 'object',
    spec: {
      paramKind: { apiVersion: 'string', kind: 'string' },
      matchConstraints: matchResources,
      variables: named,
      mutations: [{ patchType: 'string', applyConfiguration: { expression: 'string' }, jsonPatch: { expression: 'string' } }],
      failurePolicy: 'string',
      matchConditions: named,
      reinvocationPolicy: 'string',
    },
  };
  const binding: Shape = {
    apiVersion: 'string',
    kind: 'string',
    metadata: 'object',
    spec: {
      policyName: 'string',
      paramRef: { name: 'string', namespace: 'string', selector: labelSelector, parameterNotFoundAction: 'string' },
      matchResources,
    },
  };
  const policyRoot = node(policy);
  const bindingRoot = node(binding);
  const kinds: CompactSchemaTable['kinds'] = {};
  for (const v of ['v1alpha1', 'v1beta1', 'v1']) {
    kinds[`admissionregistration.k8s.io/${v}/MutatingAdmissionPolicy`] = { root: policyRoot, scope: 'Cluster' };
    kinds[`admissionregistration.k8s.io/${v}/MutatingAdmissionPolicyBinding`] = { root: bindingRoot, scope: 'Cluster' };
  }
  return { source: 'k8s.io/api/admissionregistration types.go', nodes: interner.nodes, kinds };
}

export const BUILTIN_SCHEMAS: CompactSchemaTable = build();
