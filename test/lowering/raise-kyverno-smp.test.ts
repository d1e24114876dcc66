/**
 * The strategic-merge raising: what it raises, what it leaves, and for every raised patch the same objects
 * as the strategic merge engine gives (differentially, on Pods typed as the schema types them).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/ir/json.js';
import type { Op } from '../../src/ir/nodes.js';
import { raiseKyvernoStrategicMerge } from '../../src/lowering/raise-kyverno-smp.js';
import { body, O, PODS, policyOf, run } from './support.js';

function merge(json: JsonValue, templated = false): Op {
  return { kind: 'merge', path: { root: 'object', segments: [] }, value: templated ? { kind: 'templated', language: 'kyverno', json, origin: O } : { kind: 'literal', json, origin: O }, strategy: 'smp', origin: O };
}

function raised(json: JsonValue, templated = false): string {
  const [p] = raiseKyvernoStrategicMerge([policyOf([merge(json, templated)])]);
  return body(p!);
}

const RAISED: [string, JsonValue, string][] = [
  ['plain keys are sets that create parents', { spec: { dnsPolicy: 'ClusterFirst', securityContext: { runAsUser: 1000 } } }, 'set object.spec.dnsPolicy = "ClusterFirst"\nset object.spec.securityContext.runAsUser = 1000'],
  ['a +() anchor is a set-if-absent', { metadata: { labels: { '+(team)': 'platform' } } }, 'set object.metadata.labels.team!absent = "platform"'],
  ['a +() map value is written as the merge materializes it', { spec: { '+(securityContext)': { runAsNonRoot: true, seccompProfile: {}, fsGroup: null } } }, 'set object.spec.securityContext!absent = {"runAsNonRoot": true}'],
  ['a +() value left empty writes nothing', { spec: { '+(securityContext)': { seccompProfile: {} } } }, ''],
  ['null removes the key after creating its parent map', { metadata: { labels: { debug: null } } }, 'set object.metadata.labels!absent = {}\nremove object.metadata.labels.debug'],
  ['null at the root removes without a parent', { status: null }, 'remove object.status'],
  ['empty maps are dropped', { spec: { volumes0: {}, dnsPolicy: 'None' } }, 'set object.spec.dnsPolicy = "None"'],
  ['a condition anchor guards the whole patch', { spec: { '(hostNetwork)': true, dnsPolicy: 'ClusterFirstWithHostNet' } }, 'when eq object.spec.hostNetwork true\n  set object.spec.dnsPolicy = "ClusterFirstWithHostNet"'],
  ['a plain string condition', { metadata: { labels: { '(app)': 'web', tier: 'frontend' } } }, 'when eq object.metadata.labels.app "web"\n  set object.metadata.labels.tier = "frontend"'],
];

describe('raise strategic merge', () => {
  for (const [what, patch, want] of RAISED) {
    it(`${what}, as the merge engine does`, () => {
      expect(raised(patch)).toBe(want);
      const before = policyOf([merge(patch)]);
      const [after] = raiseKyvernoStrategicMerge([before]);
      for (const pod of PODS) {
        const want = run(before, pod);
        expect(want).not.toBe('error');
        expect(run(after!, pod), JSON.stringify(pod)).toEqual(want);
      }
    });
  }

  it('reads the fromMetadata form of a variable leaf', () => {
    expect(raised({ spec: { subdomain: "{{ request.object.metadata.namespace || '' }}" } }, true)).toBe('set object.spec.subdomain = fromMetadata namespace');
    const before = policyOf([merge({ spec: { subdomain: "{{ request.object.metadata.namespace || '' }}" } }, true)]);
    const [after] = raiseKyvernoStrategicMerge([before]);
    for (const pod of [...PODS, { kind: 'Pod', metadata: { name: 'no-ns' } }]) expect(run(after!, pod)).toEqual(run(before, pod));
  });

  const LEFT: [string, JsonValue, boolean?][] = [
    ['lists (schema-dependent merge, prepend order)', { spec: { containers: [{ name: 'app', image: 'nginx' }] } }],
    ['conditional list elements', { spec: { containers: [{ '(name)': 'app', imagePullPolicy: 'Always' }] } }],
    ['$patch directives', { spec: { securityContext: { $patch: 'replace', runAsUser: 1 } } }],
    ['global anchors', { spec: { '<(hostNetwork)': true, dnsPolicy: 'None' } }],
    ['X() anchors', { spec: { 'X(hostNetwork)': null } }],
    ['conditions on numbers (a numeric string matches too)', { spec: { '(priority)': 5, dnsPolicy: 'None' } }],
    ['conditions with wildcards or operators', { metadata: { labels: { '(app)': 'web-*', tier: 'x' } } }],
    ['+() beside the same plain key', { spec: { '+(dnsPolicy)': 'A', dnsPolicy: 'B' } }],
    ['anchors inside a +() value', { spec: { '+(securityContext)': { '+(runAsUser)': 1 } } }],
    ['other variables', { spec: { subdomain: '{{ request.object.metadata.name }}' } }, true],
    ['variables in keys', { metadata: { labels: { '{{ request.operation }}': 'x' } } }, true],
  ];
  for (const [what, patch, templated] of LEFT) {
    it(`leaves ${what} as a merge`, () => {
      const p = policyOf([merge(patch, templated)]);
      expect(raiseKyvernoStrategicMerge([p])[0]).toBe(p);
    });
  }
});

describe('raise strategic merge lists, by the schema of the kinds the rule matches', () => {
  const podRule = (patch: JsonValue, kind: { group: string; version: string; kind: string } = { group: '', version: 'v1', kind: 'Pod' }) => {
    const p = policyOf([merge(patch)]);
    return { ...p, rules: [{ ...p.rules[0]!, match: { globs: 'wildcard' as const, any: [{ kinds: [kind] }] } }] };
  };
  const pod = (spec: JsonValue): JsonValue => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'dev' }, spec });
  const WITH_LISTS: JsonValue[] = [
    ...PODS,
    pod({ containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'redis', securityContext: { runAsUser: 0 } }], initContainers: [{ name: 'i', image: 'busybox' }] }),
    pod({ containers: [{ name: 'a', image: 'nginx' }], tolerations: [{ key: 'k', operator: 'Exists' }], dnsConfig: { options: [{ name: 'ndots', value: '5' }, { name: 'edns0' }] } }),
  ];

  const RAISED_LISTS: [string, JsonValue, string][] = [
    ['a list without a patch strategy is replaced whole', { spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } }, 'set object.spec.tolerations = [{"key": "x", "operator": "Exists"}]'],
    ['a nested replaced list', { spec: { dnsConfig: { options: [{ name: 'ndots', value: '1' }] } } }, 'set object.spec.dnsConfig.options = [{"name": "ndots", "value": "1"}]'],
    [
      'a (name): "*" element patches every named element in place',
      { spec: { securityContext: { runAsNonRoot: true }, containers: [{ '(name)': '*', securityContext: { runAsNonRoot: true }, command: ['ls'] }] } },
      'set object.spec.securityContext.runAsNonRoot = true\nset object.spec.containers[name: *].securityContext.runAsNonRoot = true\nset object.spec.containers[name: *].command = ["ls"]',
    ],
  ];
  for (const [what, patch, want] of RAISED_LISTS) {
    it(`${what}, as the merge engine does`, () => {
      const before = podRule(patch);
      const [after] = raiseKyvernoStrategicMerge([before]);
      expect(body(after!)).toBe(want);
      for (const o of WITH_LISTS) {
        const expected = run(before, o);
        expect(expected).not.toBe('error');
        expect(run(after!, o), JSON.stringify(o)).toEqual(expected);
      }
    });
  }

  const LEFT_LISTS: [string, JsonValue, { group: string; version: string; kind: string }?][] = [
    ['a merge list element (prepended, or moved to the front)', { spec: { imagePullSecrets: [{ name: 'regcred' }] } }],
    ['a (name): "*" element with a +() below (decided on the first element)', { spec: { containers: [{ '(name)': '*', securityContext: { '+(privileged)': false } }] } }],
    ['a (name): "*" element with a condition below (selects, reorders)', { spec: { containers: [{ '(name)': '*', '(image)': 'nginx*', imagePullPolicy: 'Always' }] } }],
    ['a list merged by two keys', { spec: { containers: [{ '(name)': '*', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } }],
    ['an empty list', { spec: { tolerations: [] } }],
    ['a list holding an empty map', { spec: { tolerations: [{}] } }],
    ['a (name): "*" element on a custom kind (the list is replaced)', { spec: { containers: [{ '(name)': '*', image: 'x' }] } }, { group: 'example.com', version: 'v1', kind: 'Widget' }],
  ];
  for (const [what, patch, kind] of LEFT_LISTS) {
    it(`leaves ${what} as a merge`, () => {
      const p = podRule(patch, kind);
      expect(raiseKyvernoStrategicMerge([p])[0]).toBe(p);
    });
  }

  it('replaces the list of a custom kind whole, as kyaml does without a schema', () => {
    const before = podRule({ spec: { items: [{ name: 'a', x: 1 }] } }, { group: 'example.com', version: 'v1', kind: 'Widget' });
    const [after] = raiseKyvernoStrategicMerge([before]);
    expect(body(after!)).toBe('set object.spec.items = [{"name": "a", "x": 1}]');
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'dev' }, spec: { items: [{ name: 'b', x: 2 }] } };
    expect(run(after!, widget)).toEqual(run(before, widget));
  });
});
