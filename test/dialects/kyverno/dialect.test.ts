import { describe, expect, it } from 'vitest';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonValue } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';

function parse(text: string) {
  const docs = loadYamlText('p.yaml', text);
  if (!docs.ok) throw new Error('yaml');
  return kyvernoDialect.parse(docs.value);
}

function run(text: string, object: JsonValue, extra: Partial<AdmissionRequest> = {}) {
  const parsed = parse(text);
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return apply(parsed.policies, { object, operation: 'CREATE', ...extra });
}

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns1', labels: { app: 'a' } }, spec: { containers: [{ name: 'c1', image: 'nginx' }, { name: 'c2', image: 'busybox:1.2' }] } };

describe('kyverno dialect', () => {
  it('runs strategic merge with +() anchors, context and preconditions', () => {
    const r = run(
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: team
      variable: {jmesPath: request.object.metadata.labels.team, default: none}
    preconditions:
      all:
      - {key: "{{ request.operation }}", operator: Equals, value: CREATE}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            +(app): ignored
            team: "{{ team }}"
`,
      POD,
    );
    expect(r.allowed).toBe(true);
    expect((r.object as { metadata: { labels: unknown } }).metadata.labels).toEqual({ app: 'a', team: 'none' });
  });

  it('runs a JSON patch foreach with original indices and ascending default order', () => {
    const r = run(
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: fe}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        patchesJson6902: |-
          - op: add
            path: /spec/containers/{{elementIndex}}/env
            value: [{name: IDX, value: "{{elementIndex}}-{{element.name}}"}]
`,
      POD,
    );
    const containers = (r.object as { spec: { containers: { env: unknown }[] } }).spec.containers;
    expect(containers.map((c) => c.env)).toEqual([[{ name: 'IDX', value: '0-c1' }], [{ name: 'IDX', value: '1-c2' }]]);
  });

  it('makes a missing variable a rule error', () => {
    const parsed = parse(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: bad}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata: {labels: {x: "{{ request.object.metadata.labels.missing }}"}}
`);
    const r = apply(parsed.policies, { object: POD, operation: 'CREATE' });
    expect(r.allowed).toBe(false);
    expect(r.trace.some((t) => t.node === 'rule' && t.outcome === 'error' && /Unknown key "missing"/.test(t.reason ?? ''))).toBe(true);
  });

  it('scopes a namespaced Policy to its namespace', () => {
    const text = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: p, namespace: other}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {seen: "yes"}}}}
`;
    expect(run(text, POD).object).toBe(POD);
    const inNs = { ...POD, metadata: { ...POD.metadata, namespace: 'other' } };
    expect((run(text, inNs).object as { metadata: { labels: { seen?: string } } }).metadata.labels.seen).toBe('yes');
  });

  it('refuses element variables outside foreach and both patch kinds in one rule', () => {
    const d = parse(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: bad}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {metadata: {name: "{{ element.name }}"}}}
  - name: r2
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {a: 1}, patchesJson6902: "[]"}
`).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['TM2004', 'TM2004']);
  });

  it('reports an unresolved configMap context entry by name when it is read', () => {
    const parsed = parse(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: cm}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: settings
      configMap: {name: s, namespace: default}
    mutate: {patchStrategicMerge: {metadata: {labels: {x: "{{ settings.data.x }}"}}}}
`);
    const r = apply(parsed.policies, { object: POD, operation: 'CREATE' });
    expect(r.trace.find((t) => t.outcome === 'error')?.reason).toContain('context entry "settings" (configMap)');
  });
});
