/**
 * A Kyverno foreach strategic merge that writes the iterated element and, beside the list, constants (a
 * volume every container mounts, an annotation): merged again at each element, the constants change nothing
 * more, so they are merged once where an element passes. Translated to MAP and re-executed against our
 * Kyverno engine.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, podRule, refusal, toMap } from './kyverno-support.js';

function policy(patch: string, preconditions = ''): Policy[] {
  return podRule(
    'beside',
    `mutate:
  foreach:
  - list: request.object.spec.containers
${preconditions.replace(/^/gm, '    ')}
    patchStrategicMerge:
${patch.replace(/^/gm, '      ')}`,
  );
}

const pod = (spec: JsonObject, annotations?: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...(annotations ? { annotations } : {}) },
  spec,
});

const PODS: JsonObject[] = [
  pod({ containers: [{ name: 'app', image: 'nginx' }] }),
  pod({ containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }, { name: 'side', image: 'busybox' }], volumes: [{ name: 'data', emptyDir: {} }] }),
  pod({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }, { name: 'c', image: 'z' }], volumes: [{ name: 'etc-ssl-certs', configMap: { name: 'old' } }] }, { keep: 'me' }),
  pod({ containers: [] }),
];

const CERTS = `spec:
  containers:
  - name: "{{ element.name }}"
    volumeMounts:
    - name: etc-ssl-certs
      mountPath: /etc/ssl/certs
  volumes:
  - name: etc-ssl-certs
    configMap:
      name: ca-pemstore`;

const CASES: [string, string, string?][] = [
  ['a volume beside the containers that mount it (kyverno/policies add-certificates-volume)', CERTS],
  [
    'an annotation at the top and a field of each element',
    `metadata:
  annotations:
    example.com/injected: "true"
spec:
  containers:
  - (name): "{{ element.name }}"
    imagePullPolicy: Always`,
  ],
  [
    'under a precondition no element may pass',
    CERTS,
    `preconditions:
  all:
  - key: "{{ element.name }}"
    operator: Equals
    value: side`,
  ],
];

describe('Kyverno foreach strategic merges that write beside the iterated list, to MAP', () => {
  for (const [what, patch, preconditions] of CASES) {
    it(`${what}: MAP gives what Kyverno gives`, () => {
      const source = policy(patch, preconditions);
      const map = toMap(source);
      for (const p of PODS) expect(outcome(map, p)).toEqual(outcome(source, p));
    });
  }

  it('the constants are merged only where an element passes', () => {
    const source = policy(CERTS, `preconditions:\n  all:\n  - key: "{{ element.name }}"\n    operator: Equals\n    value: side`);
    expect(outcome(toMap(source), PODS[0]!)).toEqual(PODS[0]);
    const volumes = ((outcome(toMap(source), PODS[1]!) as JsonObject).spec as JsonObject).volumes as JsonObject[];
    expect(volumes.map((v) => v.name).sort()).toEqual(['data', 'etc-ssl-certs']);
  });

  it('a variable beside the list is refused, not translated', () => {
    const source = policy(`metadata:
  labels:
    last: "{{ element.name }}"
spec:
  containers:
  - name: "{{ element.name }}"
    imagePullPolicy: Always`);
    expect(refusal(source)).toContain('a foreach strategic merge that writes metadata beside the iterated list with variables, anchors or directives');
  });
});
