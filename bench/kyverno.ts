import { copyObject, isJsonObject, type JsonObject, type JsonValue } from '../src/ir/json.js';
import type { Policy } from '../src/ir/nodes.js';
import { loadYamlText } from '../src/io/yaml-load.js';
import { parsePolicyDocs } from '../src/pipeline.js';
import type { Benchmark } from './types.js';
import { podPolicyBenchmark } from './pods.js';

const POD = `    match:
      any:
      - resources:
          kinds: [Pod]
`;

function rule(name: string, body: string): string {
  return `  - name: ${name}\n${POD}${body}`;
}

function smp(yaml: string): string {
  return `    mutate:\n      patchStrategicMerge:\n${yaml.replace(/^/gm, '        ')}\n`;
}

function when(key: string, operator: string, value: string): string {
  return `    preconditions:\n      all:\n      - key: ${JSON.stringify(key)}\n        operator: ${operator}\n        value: ${value}\n`;
}

/**
 * 30 rules: 10 `+()` labels, 5 plain annotations, 5 JMESPath preconditions, 4 condition anchors, an
 * add-anchored sub-map, 4 plain sets and one foreach over the containers with a `(name)` anchor (no `+()`
 * inside it: a list element's `+()` is decided by the first resource element, Kyverno issue #6686). Autogen is
 * off: the benchmark measures Pods, not 60 Pod-controller rules that never match them.
 */
export function thirtyRules(): string {
  const rules: string[] = [];
  rules.push(rule('label-team', smp('metadata:\n  labels:\n    +(team): platform')));
  for (let i = 1; i < 10; i++) rules.push(rule(`label-${i}`, smp(`metadata:\n  labels:\n    +(bench-l${i}): v${i}`)));
  for (let i = 0; i < 5; i++) rules.push(rule(`annotation-${i}`, smp(`metadata:\n  annotations:\n    example.com/a${i}: v${i}`)));
  rules.push(rule('backend-pool', when('{{ request.object.metadata.labels.tier }}', 'Equals', 'backend') + smp('spec:\n  nodeSelector:\n    pool: backend')));
  rules.push(rule('multi-container', when('{{ length(request.object.spec.containers) }}', 'GreaterThan', '1') + smp('metadata:\n  annotations:\n    example.com/multi: "true"')));
  rules.push(rule('debug-label', when(`{{ request.object.metadata.annotations."example.com/debug" || '' }}`, 'Equals', '"true"') + smp('metadata:\n  labels:\n    debug: "true"')));
  rules.push(rule('shard-one', when('{{ request.object.metadata.namespace }}', 'AnyIn', '["ns-1*"]') + smp('metadata:\n  labels:\n    shard: one')));
  rules.push(rule('grace', when('{{ request.object.spec.restartPolicy }}', 'NotEquals', 'Never') + smp('spec:\n  terminationGracePeriodSeconds: 30')));
  rules.push(rule('frontend-priority', smp('metadata:\n  labels:\n    (tier): frontend\nspec:\n  priorityClassName: web')));
  rules.push(rule('backend-priority', smp('metadata:\n  labels:\n    (tier): backend\nspec:\n  priorityClassName: internal')));
  rules.push(rule('dns', smp('spec:\n  (restartPolicy): Always\n  dnsPolicy: ClusterFirst')));
  rules.push(rule('debug-links', smp('metadata:\n  annotations:\n    (example.com/debug): "true"\nspec:\n  enableServiceLinks: true')));
  rules.push(rule('pod-security', smp('spec:\n  securityContext:\n    +(runAsNonRoot): true\n    +(seccompProfile):\n      type: RuntimeDefault')));
  rules.push(rule('tolerations', smp('spec:\n  tolerations:\n  - key: dedicated\n    operator: Equal\n    value: apps\n    effect: NoSchedule')));
  rules.push(rule('disk', smp('spec:\n  nodeSelector:\n    disk: ssd')));
  rules.push(rule('managed-by', smp('metadata:\n  labels:\n    managed-by: transmute')));
  rules.push(rule('policy-annotation', smp('metadata:\n  annotations:\n    example.com/policy: thirty-rules')));
  rules.push(
    rule(
      'containers',
      `    mutate:
      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge:
          spec:
            containers:
            - (name): "{{ element.name }}"
              imagePullPolicy: IfNotPresent
              securityContext:
                allowPrivilegeEscalation: false
`,
    ),
  );
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: thirty-rules
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
  rules:
${rules.join('')}`;
}

export function thirtyRulePolicies(): Policy[] {
  const docs = loadYamlText('thirty-rules.yaml', thirtyRules());
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.diagnostics.length > 0) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  if (parsed.policies.length !== 1 || parsed.policies[0]!.rules.length !== 30) throw new Error(`expected one policy of 30 rules, got ${parsed.policies.map((p) => p.rules.length).join(', ')}`);
  return parsed.policies;
}

const obj = (v: JsonValue | undefined): JsonObject => (isJsonObject(v) ? v : {});
const own = (o: JsonObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The same 30 rules written by hand in one pass, copy-on-write (the input Pod is never mutated). */
export function handWrittenKyverno(pod: JsonObject): JsonObject {
  const metadata = copyObject(obj(pod.metadata));
  const labels = copyObject(obj(metadata.labels));
  const annotations = copyObject(obj(metadata.annotations));
  const spec = copyObject(obj(pod.spec));
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  if (!own(labels, 'team')) labels.team = 'platform';
  for (let i = 1; i < 10; i++) if (!own(labels, `bench-l${i}`)) labels[`bench-l${i}`] = `v${i}`;
  for (let i = 0; i < 5; i++) annotations[`example.com/a${i}`] = `v${i}`;
  const nodeSelector = copyObject(obj(spec.nodeSelector));
  if (labels.tier === 'backend') nodeSelector.pool = 'backend';
  if (containers.length > 1) annotations['example.com/multi'] = 'true';
  const debug = annotations['example.com/debug'] === 'true';
  if (debug) labels.debug = 'true';
  const namespace = metadata.namespace;
  if (typeof namespace === 'string' && namespace.startsWith('ns-1')) labels.shard = 'one';
  if (spec.restartPolicy !== 'Never') spec.terminationGracePeriodSeconds = 30;
  if (labels.tier === 'frontend') spec.priorityClassName = 'web';
  if (labels.tier === 'backend') spec.priorityClassName = 'internal';
  if (spec.restartPolicy === 'Always') spec.dnsPolicy = 'ClusterFirst';
  if (debug) spec.enableServiceLinks = true;
  const sc = copyObject(obj(spec.securityContext));
  if (!own(sc, 'runAsNonRoot')) sc.runAsNonRoot = true;
  if (!own(sc, 'seccompProfile')) sc.seccompProfile = { type: 'RuntimeDefault' };
  spec.securityContext = sc;
  spec.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'apps', effect: 'NoSchedule' }];
  nodeSelector.disk = 'ssd';
  spec.nodeSelector = nodeSelector;
  labels['managed-by'] = 'transmute';
  annotations['example.com/policy'] = 'thirty-rules';
  spec.containers = containers.map((c) => {
    const container = copyObject(obj(c));
    container.imagePullPolicy = 'IfNotPresent';
    container.securityContext = { ...obj(container.securityContext), allowPrivilegeEscalation: false };
    return container;
  });
  metadata.labels = labels;
  metadata.annotations = annotations;
  return { ...pod, metadata, spec };
}

export const benchmarks: Benchmark[] = [podPolicyBenchmark('kyverno: 30-rule ClusterPolicy over 10,000 Pods', thirtyRulePolicies, handWrittenKyverno, 300)];
