/**
 * Kyverno `foreach` of patchStrategicMerge with its elements merged as one run (src/compile/smp-for-each.ts)
 * against the closure interpreter (`interpret: true`, the reference), which runs every element through the
 * merge op and the general merge: random foreach rules (keyed by `{{ element.name }}`, values from the element,
 * anchors, a rule before them whose maps the loop may write in place) over random Pods (duplicate and missing
 * container names, null elements, containers that are not maps), each policy over many Pods so that element
 * patterns reach their compiled merges. Both must give the same object, key order included, verdict and
 * diagnostics, and leave the input as it was.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { parsePolicyDocs } from '../../src/pipeline.js';
import { differences } from '../support/run-differential.js';
import { lcg as rng, pick } from '../support/random.js';

const ELEMENT_BODIES = [
  '- (name): "{{ element.name }}"\n  imagePullPolicy: IfNotPresent\n  securityContext:\n    allowPrivilegeEscalation: false',
  '- (name): "{{ element.name }}"\n  +(imagePullPolicy): Always',
  '- name: "{{ element.name }}"\n  image: "{{ element.image }}-patched"',
  '- (name): "{{ element.name }}"\n  (image): "img:0"\n  stdin: true',
  '- (name): "{{ element.name }}"\n  resources:\n    limits:\n      cpu: "1"',
  '- (name): "app"\n  tty: true',
  // Every container matches every element: a merge must not change the elements still to come.
  '- (name): "*"\n  image: "{{ element.image }}-all"',
];

function policyText(r: () => number): string {
  const rules: string[] = [];
  if (r() < 0.5) {
    rules.push(`  - name: before
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            seen: "yes"
        spec:
          nodeSelector:
            disk: ssd
`);
  }
  const loops = 1 + Math.floor(r() * 2);
  for (let i = 0; i < loops; i++) {
    const body = pick(r, ELEMENT_BODIES).replace(/^/gm, '            ');
    const order = r() < 0.3 ? `        order: ${pick(r, ['Ascending', 'Descending'])}\n` : '';
    rules.push(`  - name: loop-${i}
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      foreach:
      - list: request.object.spec.containers
${order}        patchStrategicMerge:
          spec:
            containers:
${body}
`);
  }
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: loops
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
  rules:
${rules.join('')}`;
}

function policies(text: string): Policy[] {
  const docs = loadYamlText('loops.yaml', text);
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.policies;
}

function randomPod(r: () => number): JsonObject {
  const containers: JsonValue[] = [];
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.04) containers.push(null);
    else if (roll < 0.07) containers.push('odd');
    else {
      const c: JsonObject = { name: pick(r, ['app', 'side', 'proxy', 'app']), image: `img:${i % 2}` };
      if (r() < 0.3) c.imagePullPolicy = 'Never';
      if (r() < 0.2) c.securityContext = r() < 0.2 ? null : { runAsUser: 1 };
      if (r() < 0.1) delete c.name;
      containers.push(c);
    }
  }
  const spec: JsonObject = { containers };
  if (r() < 0.05) delete spec.containers;
  if (r() < 0.3) spec.nodeSelector = { zone: 'z1' };
  const metadata: JsonObject = { name: 'p', namespace: 'ns' };
  if (r() < 0.5) metadata.labels = { app: 'x' };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

describe('foreach strategic merges run as one', () => {
  it('agree with the closure interpreter on random loops and Pods', () => {
    const r = rng(23);
    let compared = 0;
    for (let round = 0; round < 120; round++) {
      const text = policyText(r);
      const set = policies(text);
      for (let k = 0; k < 12; k++) {
        const object = randomPod(r);
        const before = JSON.stringify(object);
        const request = { object, operation: 'CREATE' as const };
        const compiled = apply(set, request, { trace: false, interpret: false });
        const interpreted = apply(set, request, { trace: false, interpret: true });
        expect(differences(compiled, interpreted), JSON.stringify({ text, object })).toEqual([]);
        expect(JSON.stringify(object)).toBe(before);
        compared++;
      }
    }
    expect(compared).toBe(1440);
  });
});
