/**
 * Root merges write in place into the maps earlier merges of the evaluation created (ops/merge.ts,
 * EngineContext.owned), across the rules of a policy when no rule start is a snapshot (run-policy.ts). Traced
 * runs snapshot every policy, rule and op, so they are the reference here; the input is frozen, so a write
 * into anything the evaluation did not create throws.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { parsePolicyDocs } from '../../src/pipeline.js';
import { deepFreeze } from './support.js';

function kyverno(rules: string, spec = ''): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: owned
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
${spec}  rules:
${rules}`;
  const docs = loadYamlText('owned.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  expect(parsed.diagnostics).toEqual([]);
  return parsed.policies;
}

function rule(name: string, mutate: string, extra = ''): string {
  const body = mutate.replace(/^/gm, '      ');
  return `  - name: ${name}
    match:
      any:
      - resources:
          kinds: [Pod]
${extra}    mutate:
${body}
`;
}

const pod = (): JsonObject =>
  deepFreeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'app', image: 'registry/app:1' },
        { name: 'side', image: 'registry/side:1' },
      ],
    },
  });

function both(policies: () => Policy[], object = pod()) {
  const fast = apply(policies(), { object, operation: 'CREATE' }, { trace: false });
  const traced = apply(policies(), { object: pod(), operation: 'CREATE' }, { trace: true });
  expect(fast.diagnostics).toEqual(traced.diagnostics);
  expect(fast.object).toEqual(traced.object);
  expect(object).toEqual(pod());
  return fast;
}

describe('root merges writing in place into what earlier merges created', () => {
  it('gives the traced result over rules that merge into the same maps, and leaves the input as it was', () => {
    const rules = [
      rule('a', 'patchStrategicMerge:\n  metadata:\n    labels:\n      +(team): platform'),
      rule('b', 'patchStrategicMerge:\n  metadata:\n    labels:\n      tier: web\n    annotations:\n      a: "1"'),
      rule('c', 'patchStrategicMerge:\n  spec:\n    containers:\n    - name: side\n      imagePullPolicy: Always'),
      // Sees what rule b wrote in place (match and preconditions read the current object).
      rule('d', 'patchStrategicMerge:\n  metadata:\n    annotations:\n      tier-seen: "{{ request.object.metadata.labels.tier }}"'),
      rule('e', 'patchStrategicMerge:\n  spec:\n    containers:\n    - name: side\n      image: registry/side:2', '    preconditions:\n      all:\n      - key: "{{ request.object.metadata.annotations.a }}"\n        operator: Equals\n        value: "1"\n'),
      rule('f', 'patchStrategicMerge:\n  metadata:\n    labels:\n      (tier): web\n      matched: "yes"'),
    ].join('');
    const r = both(() => kyverno(rules));
    expect(r.object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'ns', labels: { app: 'web', team: 'platform', tier: 'web', matched: 'yes' }, annotations: { a: '1', 'tier-seen': 'web' } },
      spec: {
        containers: [
          { name: 'side', image: 'registry/side:2', imagePullPolicy: 'Always' },
          { name: 'app', image: 'registry/app:1' },
        ],
      },
    });
  });

  it('binds foreach elements as they were when the list was read, whatever the body merges', () => {
    const rules = [
      rule('own-containers', 'patchStrategicMerge:\n  spec:\n    containers:\n    - name: side\n      imagePullPolicy: Always\n    - name: app\n      imagePullPolicy: Always'),
      // Every iteration changes the side container; the last one (side) must still see its original image.
      rule(
        'each',
        'foreach:\n- list: request.object.spec.containers\n  patchStrategicMerge:\n    metadata:\n      annotations:\n        seen: "{{ element.image }}"\n    spec:\n      containers:\n      - name: side\n        image: "changed-by-{{ element.name }}"',
      ),
    ].join('');
    const r = both(() => kyverno(rules));
    const o = r.object as JsonObject;
    expect((o.metadata as JsonObject).annotations).toEqual({ seen: 'registry/side:1' });
  });

  it('keeps per-rule outcomes where a rule start is a snapshot (applyRules: One)', () => {
    const rules = [
      rule('first', 'patchStrategicMerge:\n  metadata:\n    labels:\n      first: "1"'),
      rule('second', 'patchStrategicMerge:\n  metadata:\n    labels:\n      second: "2"'),
    ].join('');
    const r = both(() => kyverno(rules, '  applyRules: One\n'));
    expect(((r.object as JsonObject).metadata as JsonObject).labels).toEqual({ app: 'web', first: '1' });
  });
});
