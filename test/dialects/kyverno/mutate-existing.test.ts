import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareObjects, describeDifference } from '../../../src/conformance/compare.js';
import { withDefaultNamespace } from '../../../src/dialects/kyverno/test-suite/request.js';
import { hasMutateExistingRules, mutateExisting } from '../../../src/dialects/kyverno/mutate-existing.js';
import { isJsonObject, type JsonObject } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { SourceDoc } from '../../../src/io/source.js';
import { describeShared, sharedPath } from '../../support/shared.js';

function docs(text: string, file = 'p.yaml'): SourceDoc[] {
  const r = loadYamlText(file, text);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.value;
}

const TRIGGER: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'trigger', namespace: 'staging', labels: { env: 'stage' } }, data: { owner: 'team-a' } };
const secret = (name: string, namespace: string, labels: JsonObject = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, labels } });

function policy(rule: string, kind = 'ClusterPolicy', namespace?: string): SourceDoc[] {
  return docs(`apiVersion: kyverno.io/v1
kind: ${kind}
metadata:
  name: me${namespace ? `\n  namespace: ${namespace}` : ''}
spec:
  rules:
${rule}`);
}

const MATCH_CM = `  - name: r
    match:
      any:
      - resources:
          kinds: [ConfigMap]
`;

describe('mutateExisting', () => {
  it('selects targets by kind, name and namespace, and patches each without touching the inputs', () => {
    const p = policy(`${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        name: "s-*"
        namespace: staging
      patchStrategicMerge:
        metadata:
          labels:
            foo: bar
`);
    const targets = [secret('s-1', 'staging'), secret('s-2', 'prod'), secret('other', 'staging'), secret('s-3', 'staging')];
    const before = JSON.stringify(targets);
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, targets);
    expect(out.diagnostics).toEqual([]);
    expect(out.results.map((r) => r.target)).toEqual([targets[0], targets[3]]);
    for (const r of out.results) {
      expect(r.rule).toBe('r');
      expect(r.policy).toBe('me');
      expect((r.result.object as JsonObject).metadata).toMatchObject({ labels: { foo: 'bar' } });
    }
    expect(JSON.stringify(targets)).toBe(before);
  });

  it('runs nothing when the trigger does not match or the rule preconditions fail', () => {
    const p = policy(`${MATCH_CM}    preconditions:
      all:
      - key: "{{ request.object.data.owner }}"
        operator: Equals
        value: team-b
    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
      patchStrategicMerge:
        metadata:
          labels:
            foo: bar
`);
    expect(mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'staging')]).results).toEqual([]);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'staging' } };
    expect(mutateExisting(p, { object: pod, operation: 'CREATE' }, [secret('a', 'staging')]).results).toEqual([]);
  });

  it('substitutes variables in target specs and reads request.* (the trigger) and target.* in the patch', () => {
    const p = policy(`${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        namespace: "{{ request.object.metadata.namespace }}"
      patchStrategicMerge:
        metadata:
          labels:
            owner: "{{ request.object.data.owner }}"
            self: "{{ target.metadata.name }}"
`);
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'staging'), secret('b', 'prod')]);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.result.object).toEqual({ ...secret('a', 'staging'), metadata: { name: 'a', namespace: 'staging', labels: { owner: 'team-a', self: 'a' } } });
  });

  it('selects by label selector and applies target preconditions and target context per target', () => {
    const p = policy(`${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        selector:
          matchLabels:
            managed: "yes"
        context:
        - name: tier
          variable:
            jmesPath: target.metadata.labels.tier
            default: none
        preconditions:
          all:
          - key: "{{ tier }}"
            operator: NotEquals
            value: frozen
      patchStrategicMerge:
        metadata:
          annotations:
            touched: "{{ tier }}"
`);
    const targets = [secret('a', 'x', { managed: 'yes', tier: 'hot' }), secret('b', 'x', { managed: 'yes', tier: 'frozen' }), secret('c', 'x', { managed: 'no' })];
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, targets);
    expect(out.results.map((r) => (r.target.metadata as JsonObject).name)).toEqual(['a', 'b']);
    expect((out.results[0]!.result.object as JsonObject).metadata).toMatchObject({ annotations: { touched: 'hot' } });
    // The target's preconditions fail: the target is reported unchanged (a skip).
    expect(out.results[1]!.result.object).toEqual(targets[1]);
  });

  it('resolves {{@}} against the target', () => {
    const p = policy(`${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
      patchStrategicMerge:
        metadata:
          labels:
            version: "{{@}}-next"
`);
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'x', { version: 'v1' })]);
    expect((out.results[0]!.result.object as JsonObject).metadata).toMatchObject({ labels: { version: 'v1-next' } });
  });

  it('keeps a namespaced Policy to its own namespace', () => {
    const p = policy(
      `${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
      patchStrategicMerge:
        metadata:
          labels:
            foo: bar
`,
      'Policy',
      'staging',
    );
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'staging'), secret('b', 'prod')]);
    expect(out.results.map((r) => (r.target.metadata as JsonObject).namespace)).toEqual(['staging']);
  });

  it('reports a rule error on the target when a variable is missing', () => {
    const p = policy(`${MATCH_CM}    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
      patchStrategicMerge:
        metadata:
          labels:
            foo: "{{ target.metadata.annotations.missing }}"
`);
    const out = mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'x')]);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.result.allowed).toBe(false);
  });

  it('ignores policies without targets rules', () => {
    const p = policy(`${MATCH_CM}    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            foo: bar
`);
    expect(hasMutateExistingRules(p[0]!)).toBe(false);
    expect(mutateExisting(p, { object: TRIGGER, operation: 'CREATE' }, [secret('a', 'x')]).results).toEqual([]);
  });
});

describeShared('mutateExisting on the kyverno-cli mutate-existing cases', () => {
  const root = sharedPath('conformance/kyverno/kyverno-cli');
  const cases = existsSync(root)
    ? readdirSync(root).filter((d) => {
        const m = join(root, d, 'manifest.json');
        if (!existsSync(m)) return false;
        const manifest = JSON.parse(readFileSync(m, 'utf8')) as JsonObject;
        return manifest.mode === 'mutate-existing' && manifest.dialect === 'kyverno';
      })
    : [];
  it('finds the Kyverno-dialect cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  for (const c of cases) {
    it(c, () => {
      const read = (f: string) => docs(readFileSync(join(root, c, f), 'utf8'), f);
      const trigger = withDefaultNamespace(read('trigger.yaml')[0]!.value as JsonObject);
      const targets = read('targets.yaml').map((d) => d.value).filter(isJsonObject).map((o) => withDefaultNamespace(o));
      const expected = withDefaultNamespace(read('expected.yaml')[0]!.value as JsonObject);
      const out = mutateExisting(read('policy.yaml'), { object: trigger, operation: 'CREATE' }, targets);
      expect(out.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const md = expected.metadata as JsonObject;
      const hit = out.results.find((r) => (r.target.metadata as JsonObject).name === md.name && (r.target.metadata as JsonObject).namespace === md.namespace);
      expect(hit, 'the expected target was reached').toBeDefined();
      const d = compareObjects('kyverno-cli', expected, hit!.result.object ?? undefined);
      expect(d ? describeDifference(d) : undefined).toBeUndefined();
    });
  }
});
