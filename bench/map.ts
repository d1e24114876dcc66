import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../src/ir/json.js';
import type { Policy } from '../src/ir/nodes.js';
import { loadYamlText } from '../src/io/yaml-load.js';
import { parsePolicyDocs } from '../src/pipeline.js';
import type { Benchmark } from './types.js';
import { podPolicyBenchmark } from './pods.js';

/**
 * One MutatingAdmissionPolicy of 10 mutations, in the shapes MAP policies take in the wild: five
 * ApplyConfigurations (labels, annotations, a field of every container through the `name`-keyed list, a new
 * container, a nested struct) and five JSONPatches (add/replace chosen by `has()` or a variable,
 * `jsonpatch.escapeKey`, an empty patch for some Pods), two variables and one matchCondition that skips the
 * Pods of one namespace.
 */
export const TEN_MUTATIONS_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ten-mutations
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  matchConditions:
  - name: not-ns-49
    expression: object.metadata.namespace != "ns-49"
  variables:
  - name: tier
    expression: 'has(object.metadata.labels.tier) ? object.metadata.labels.tier : "none"'
  - name: multi
    expression: size(object.spec.containers) > 1
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"managed-by": "transmute", "tier-seen": variables.tier}}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{annotations: {"example.com/policy": "map-bench", "example.com/multi": string(variables.multi)}}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{containers: object.spec.containers.map(c,
          Object.spec.containers{name: c.name, imagePullPolicy: "IfNotPresent"})}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{containers: [Object.spec.containers{name: "proxy", image: "registry.example.com/proxy:1.0",
          ports: [Object.spec.containers.ports{containerPort: 15001, protocol: "TCP"}]}]}}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true,
          seccompProfile: Object.spec.securityContext.seccompProfile{type: "RuntimeDefault"}}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        has(object.metadata.labels.team)
          ? [JSONPatch{op: "replace", path: "/metadata/labels/team", value: object.metadata.labels.team + "-owned"}]
          : [JSONPatch{op: "add", path: "/metadata/labels/team", value: "platform"}]
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/mutated-by"), value: variables.tier + "/map"}]
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        "example.com/debug" in object.metadata.annotations
          ? [JSONPatch{op: "replace", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/debug"), value: "false"},
             JSONPatch{op: "add", path: "/spec/enableServiceLinks", value: true}]
          : []
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        variables.tier == "backend"
          ? [JSONPatch{op: "add", path: "/spec/nodeSelector/pool", value: "backend"}]
          : [JSONPatch{op: "replace", path: "/spec/nodeSelector/zone", value: "front-" + object.spec.nodeSelector.zone}]
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        has(object.spec.tolerations)
          ? [JSONPatch{op: "add", path: "/spec/tolerations/-", value: {"key": "dedicated", "operator": "Equal", "value": "apps", "effect": "NoSchedule"}}]
          : [JSONPatch{op: "add", path: "/spec/tolerations", value: [{"key": "dedicated", "operator": "Equal", "value": "apps", "effect": "NoSchedule"}]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ten-mutations
spec:
  policyName: ten-mutations
`;

/** The policy and binding through the normal pipeline: one IR policy of 10 rules. */
export function tenMutationPolicies(): Policy[] {
  const docs = loadYamlText('ten-mutations.yaml', TEN_MUTATIONS_POLICY);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.diagnostics.length > 0) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  if (parsed.policies.length !== 1 || parsed.policies[0]!.rules.length !== 10) throw new Error(`expected one policy of 10 rules, got ${parsed.policies.map((p) => p.rules.length).join(', ')}`);
  return parsed.policies;
}

const obj = (v: JsonValue | undefined): JsonObject => (isJsonObject(v) ? v : {});
const own = (o: JsonObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The same 10 mutations written by hand in one pass, copy-on-write (the input Pod is never mutated). */
export function handWrittenMap(pod: JsonObject): JsonObject {
  const metadata = obj(pod.metadata);
  if (metadata.namespace === 'ns-49') return pod;
  const labelsIn = obj(metadata.labels);
  const tier = own(labelsIn, 'tier') ? (labelsIn.tier as string) : 'none';
  const containersIn = Array.isArray(pod.spec && obj(pod.spec).containers) ? (obj(pod.spec).containers as JsonValue[]) : [];
  const multi = containersIn.length > 1;

  const labels = copyObject(labelsIn);
  labels['managed-by'] = 'transmute';
  labels['tier-seen'] = tier;
  labels.team = own(labelsIn, 'team') ? `${labelsIn.team as string}-owned` : 'platform';

  const annotations = copyObject(obj(metadata.annotations));
  annotations['example.com/policy'] = 'map-bench';
  annotations['example.com/multi'] = String(multi);
  annotations['example.com/mutated-by'] = `${tier}/map`;
  const debug = own(annotations, 'example.com/debug');
  if (debug) annotations['example.com/debug'] = 'false';

  const spec = copyObject(obj(pod.spec));
  const containers: JsonValue[] = containersIn.map((c) => ({ ...obj(c), imagePullPolicy: 'IfNotPresent' }));
  containers.push({ name: 'proxy', image: 'registry.example.com/proxy:1.0', ports: [{ containerPort: 15001, protocol: 'TCP' }] });
  spec.containers = containers;
  spec.securityContext = { ...obj(spec.securityContext), runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
  if (debug) spec.enableServiceLinks = true;
  const nodeSelector = copyObject(obj(spec.nodeSelector));
  if (tier === 'backend') nodeSelector.pool = 'backend';
  else nodeSelector.zone = `front-${nodeSelector.zone as string}`;
  spec.nodeSelector = nodeSelector;
  spec.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'apps', effect: 'NoSchedule' }];

  return { ...pod, metadata: { ...metadata, labels, annotations }, spec };
}

export const benchmarks: Benchmark[] = [podPolicyBenchmark('map: 10-mutation MutatingAdmissionPolicy over 10,000 Pods', tenMutationPolicies, handWrittenMap, 300)];
