import { describe, expect, it } from 'vitest';
import { computeRules } from '../../../src/dialects/kyverno/autogen.js';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';

function policy(rules: JsonValue[], annotations?: Record<string, string>): JsonObject {
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p', ...(annotations ? { annotations } : {}) }, spec: { rules } };
}

const POD_RULE: JsonObject = {
  name: 'add-label',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  preconditions: { all: [{ key: '{{ request.object.metadata.name }}', operator: 'NotEquals', value: '' }] },
  mutate: { patchStrategicMerge: { metadata: { labels: { color: 'orange' } } } },
};

const names = (p: JsonObject): string[] => computeRules(p).map((r) => String((r.rule as JsonObject).name));
const rule = (p: JsonObject, name: string): JsonObject => computeRules(p).find((r) => (r.rule as JsonObject).name === name)!.rule as JsonObject;

describe('kyverno autogen (pkg/autogen/v1)', () => {
  it('appends autogen-<name> and autogen-cronjob-<name> after the original rules', () => {
    const p = policy([POD_RULE, { ...POD_RULE, name: 'second' }]);
    expect(names(p)).toEqual(['add-label', 'second', 'autogen-add-label', 'autogen-cronjob-add-label', 'autogen-second', 'autogen-cronjob-second']);
    const computed = computeRules(p);
    expect(computed.map((c) => [c.source, c.generated])).toEqual([[0, false], [1, false], [0, true], [0, true], [1, true], [1, true]]);
  });

  it('retargets kinds, moves the patch under the pod template and rewrites request.object paths', () => {
    const p = policy([POD_RULE]);
    const controllers = rule(p, 'autogen-add-label');
    expect(controllers.match).toEqual({
      any: [{ resources: { kinds: ['apps/v1/DaemonSet', 'apps/v1/Deployment', 'batch/v1/Job', 'apps/v1/ReplicaSet', 'v1/ReplicationController', 'apps/v1/StatefulSet'] } }],
    });
    expect(controllers.mutate).toEqual({ patchStrategicMerge: { spec: { template: { metadata: { labels: { color: 'orange' } } } } } });
    expect(JSON.stringify(controllers.preconditions)).toContain('request.object.spec.template.metadata.name');
    const cron = rule(p, 'autogen-cronjob-add-label');
    expect(cron.match).toEqual({ any: [{ resources: { kinds: ['batch/v1/CronJob'] } }] });
    expect(cron.mutate).toEqual({ patchStrategicMerge: { spec: { jobTemplate: { spec: { template: { metadata: { labels: { color: 'orange' } } } } } } } });
    expect(JSON.stringify(cron.preconditions)).toContain('request.object.spec.jobTemplate.spec.template.metadata.name');
  });

  it('shifts foreach patches and rewrites their lists, dropping order and nested foreach', () => {
    const p = policy([
      {
        name: 'fe',
        match: { resources: { kinds: ['Pod'] } },
        mutate: { foreach: [{ list: 'request.object.spec.containers', order: 'Ascending', patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', image: 'x' }] } } }] },
      },
    ]);
    const gen = rule(p, 'autogen-fe');
    expect(gen.match).toEqual({ resources: { kinds: ['apps/v1/DaemonSet', 'apps/v1/Deployment', 'batch/v1/Job', 'apps/v1/ReplicaSet', 'v1/ReplicationController', 'apps/v1/StatefulSet'] } });
    expect(gen.mutate).toEqual({
      foreach: [{ list: 'request.object.spec.template.spec.containers', patchStrategicMerge: { spec: { template: { spec: { containers: [{ name: '{{ element.name }}', image: 'x' }] } } } } }],
    });
    expect((rule(p, 'autogen-cronjob-fe').mutate as JsonObject).foreach).toEqual([
      {
        list: 'request.object.spec.jobTemplate.spec.template.spec.containers',
        patchStrategicMerge: { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: '{{ element.name }}', image: 'x' }] } } } } } },
      },
    ]);
  });

  it('honours the autogen-controllers annotation, including none', () => {
    expect(names(policy([POD_RULE], { 'pod-policies.kyverno.io/autogen-controllers': 'none' }))).toEqual(['add-label']);
    const some = policy([POD_RULE], { 'pod-policies.kyverno.io/autogen-controllers': 'StatefulSet,Deployment' });
    expect(names(some)).toEqual(['add-label', 'autogen-add-label']);
    expect(rule(some, 'autogen-add-label').match).toEqual({ any: [{ resources: { kinds: ['apps/v1/Deployment', 'apps/v1/StatefulSet'] } }] });
    expect(names(policy([POD_RULE], { 'pod-policies.kyverno.io/autogen-controllers': 'CronJob' }))).toEqual(['add-label', 'autogen-cronjob-add-label']);
  });

  it('is off for the policy when a filter has names, a selector, mixed kinds, or a rule uses JSON patches', () => {
    const withName = { ...POD_RULE, match: { any: [{ resources: { kinds: ['Pod'], names: ['x'] } }] } };
    const withSelector = { ...POD_RULE, match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { a: 'b' } } } }] } };
    const mixed = { ...POD_RULE, match: { any: [{ resources: { kinds: ['Pod', 'Deployment'] } }] } };
    const json6902 = { name: 'j', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchesJson6902: '- op: add\n  path: /a\n  value: b' } };
    for (const r of [withName, withSelector, mixed]) expect(names(policy([r]))).toEqual(['add-label']);
    expect(names(policy([POD_RULE, json6902]))).toEqual(['add-label', 'j']);
    // A rule that does not match Pod generates nothing; with no Pod or controller kind autogen is not needed.
    expect(names(policy([{ ...POD_RULE, match: { any: [{ resources: { kinds: ['Service'] } }] } }]))).toEqual(['add-label']);
  });

  it('drops user rules named autogen-* when it generates rules', () => {
    const p = policy([POD_RULE, { ...POD_RULE, name: 'autogen-add-label' }]);
    expect(names(p)).toEqual(['add-label', 'autogen-add-label', 'autogen-cronjob-add-label']);
  });

  it('makes a Pod policy mutate a Deployment and a CronJob through the parser', () => {
    const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-label}
spec:
  rules:
  - name: add-label
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            +(color): orange
`;
    const docs = loadYamlText('p.yaml', text);
    if (!docs.ok) throw new Error('yaml');
    const parsed = kyvernoDialect.parse(docs.value);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(parsed.policies[0]!.rules.map((r) => r.name)).toEqual(['add-label', 'autogen-add-label', 'autogen-cronjob-add-label']);
    // Origins of generated rules point at the Pod rule they came from.
    expect(parsed.policies[0]!.rules[1]!.origin.line).toBe(parsed.policies[0]!.rules[0]!.origin.line);
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { template: { metadata: { labels: { app: 'a' } }, spec: { containers: [] } } } };
    const r = apply(parsed.policies, { object: deployment, operation: 'CREATE', namespace: 'default', name: 'd' });
    expect((r.object as any).spec.template.metadata.labels).toEqual({ app: 'a', color: 'orange' });
    expect(r.trace.filter((e) => e.node === 'rule' && e.outcome === 'applied').map((e) => e.rule)).toEqual(['autogen-add-label']);
    const cronjob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'default' }, spec: { jobTemplate: { spec: { template: { spec: { containers: [] } } } } } };
    const c = apply(parsed.policies, { object: cronjob, operation: 'CREATE', namespace: 'default', name: 'c' });
    expect((c.object as any).spec.jobTemplate.spec.template.metadata.labels).toEqual({ color: 'orange' });
  });

  it('reports a problem of a Pod rule once, not again for its generated rules', () => {
    const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: bad}
spec:
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: [Pod]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            x: "{{ element.name }}"
`;
    const docs = loadYamlText('p.yaml', text);
    if (!docs.ok) throw new Error('yaml');
    const errors = kyvernoDialect.parse(docs.value).diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
  });
});
