/**
 * A foreach over joined lists whose strategic merge writes several lists by the element's name and, beside
 * them, constant keys (the Pod Security remediation policies of nirmata/kyverno-policies:
 * `spec.template.spec.[containers, initContainers, ephemeralContainers][]` merging into each list and setting
 * the pod's securityContext). Each list is merged as one written list is (foreach-joined-merge.ts); the
 * constant keys, merged at every turn, are merged once where some turn runs. Translated to MAP and to a
 * MutatingPolicy and re-executed against our Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

const pod = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'prod' }, spec });
const c = (name: string, securityContext?: JsonObject): JsonObject => ({ name, image: 'nginx', ...(securityContext ? { securityContext } : {}) });

const PODS: JsonObject[] = [
  pod({ containers: [c('app')] }),
  pod({ containers: [c('app'), c('side', { allowPrivilegeEscalation: true })], initContainers: [c('init')] }),
  pod({ containers: [c('a'), c('b'), c('c')], initContainers: [c('i1'), c('i2')], securityContext: { runAsUser: 1 } }),
  // One name in both lists: two turns of that name.
  pod({ containers: [c('app'), c('web')], initContainers: [c('app')] }),
  pod({ containers: [] }),
];

const rule = (order: string, beside: string): string => `mutate:
  foreach:
  - list: "request.object.spec.[containers, initContainers][]"
    order: ${order}
    patchStrategicMerge:
      spec:
${beside}        containers:
        - (name): "{{ element.name }}"
          securityContext:
            allowPrivilegeEscalation: false
        initContainers:
        - (name): "{{ element.name }}"
          securityContext:
            allowPrivilegeEscalation: false
`;

const CONSTANT = `        securityContext:
          runAsNonRoot: true
`;

describe('a foreach over joined lists writing several lists, and constant keys beside them', () => {
  for (const order of ['Ascending', 'Descending']) {
    for (const [what, beside] of [
      ['two lists', ''],
      ['two lists and a constant map beside them', CONSTANT],
    ] as const) {
      it(`${what}, ${order}: MAP and MutatingPolicy give what Kyverno gives`, () => {
        const source = podRule('joined', rule(order, beside));
        for (const to of ['map', 'kyverno-mpol'] as const) {
          const target = translatedTo(source, to);
          for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
        }
      });
    }
  }

  it('refuses a value with a variable beside the lists', () => {
    const source = podRule('joined', rule('Ascending', `        nodeName: "{{ element.name }}"\n`));
    for (const to of ['map', 'kyverno-mpol'] as const) {
      const messages = translate(source, to, 'error').diagnostics.map((d) => d.message);
      expect(messages.some((m) => m.includes('beside a list, a value with variables')), messages.join('\n')).toBe(true);
    }
  });
});

/** The remediation idiom: each list's element sets a field where a condition beside it finds it "false". */
const CONDITIONED = (order: string): string => `mutate:
  foreach:
  - list: "request.object.spec.[containers, initContainers][]"
    order: ${order}
    patchStrategicMerge:
      spec:
        securityContext:
          runAsNonRoot: true
        containers:
        - (name): "{{ element.name }}"
          securityContext:
            (runAsNonRoot): "false"
            runAsNonRoot: true
        initContainers:
        - (name): "{{ element.name }}"
          securityContext:
            (allowPrivilegeEscalation): "true"
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
`;

const CONDITION_PODS: JsonObject[] = [
  ...PODS.filter((p) => !JSON.stringify(p).includes('"initContainers":[{"name":"app"')),
  pod({ containers: [c('a', { runAsNonRoot: false }), c('b', { runAsNonRoot: true }), c('c')], securityContext: { runAsNonRoot: false } }),
  pod({ containers: [c('a'), c('b', { runAsNonRoot: false })], initContainers: [c('i1', { allowPrivilegeEscalation: true }), c('i2', { allowPrivilegeEscalation: false })] }),
  pod({ containers: [c('a', { runAsNonRoot: false, runAsUser: 5 })], initContainers: [c('i1', { allowPrivilegeEscalation: true, capabilities: { add: ['NET_ADMIN'] } })] }),
];

describe('a foreach over joined lists whose list elements hold conditions on scalars', () => {
  for (const order of ['Ascending', 'Descending']) {
    it(`${order}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = podRule('conditioned', CONDITIONED(order));
      let changed = 0;
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of CONDITION_PODS) {
          const expected = outcome(source, p);
          if (JSON.stringify(expected) !== JSON.stringify(p)) changed++;
          expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(expected);
        }
      }
      expect(changed).toBeGreaterThan(4);
    });
  }

  it('fails where two turns merge one name (a Pod the API server refuses), with a note', () => {
    const source = podRule('conditioned', CONDITIONED('Ascending'));
    const g = translate(source, 'kyverno-mpol', 'error');
    expect(g.diagnostics.map((d) => d.message).join('\n')).toContain('where two turns merge one name, the CEL fails');
    const target = translatedTo(source, 'kyverno-mpol');
    expect(outcome(target, pod({ containers: [c('app', { runAsNonRoot: false })], initContainers: [c('app')] }))).toEqual({ denied: true });
  });
});
