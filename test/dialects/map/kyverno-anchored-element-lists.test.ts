/**
 * Lists inside a list element selected by condition anchors (`- (name): "*"` with `env: [...]`, the
 * kyverno/policies add-pod-proxies, add-env-vars-from-cm and apply-pss-restricted-profile shape), translated
 * to MAP and re-executed: each selected element merges the list as kyaml merges it there (keyed lists take
 * the patch's items first, then the element's others; other lists are replaced), and the MAP must give what
 * our Kyverno engine gives on every object. A list holding anchors itself stays refused (the shared copy's
 * decisions would reach into it).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { outcome, refusal, smpPolicy, toMap } from './kyverno-support.js';

const kyverno = (patch: string): Policy[] => smpPolicy('lists', patch);

const env = (...pairs: [string, string][]): JsonObject[] => pairs.map(([name, value]) => ({ name, value }));

/** Containers of every shape the merges meet: without the list, with it empty, disjoint, overlapping, reordered. */
const CONTAINER_SETS: JsonObject[][] = [
  [],
  [{ name: 'app', image: 'nginx' }],
  [{ name: 'app', image: 'nginx', env: [] }],
  [{ name: 'app', image: 'nginx', env: env(['LOG', 'debug']) }],
  [{ name: 'app', image: 'nginx', env: env(['HTTPS_PROXY', 'old'], ['LOG', 'debug'], ['HTTP_PROXY', 'older']) }],
  [
    { name: 'app', image: 'nginx', env: env(['NO_PROXY', 'x']) },
    { name: 'sidecar', image: 'envoy' },
    { name: 'app-2', image: 'nginx', env: env(['A', '1'], ['HTTP_PROXY', 'p']) },
  ],
  [
    { name: 'web', image: 'nginx', envFrom: [{ configMapRef: { name: 'old' } }], ports: [{ containerPort: 80 }] },
    { name: 'app', image: 'nginx', securityContext: { capabilities: { drop: ['NET_RAW'], add: ['CHOWN'] } }, volumeMounts: [{ name: 'v', mountPath: '/data' }] },
  ],
  [{ name: 'app', image: 'nginx', ports: [{ containerPort: 8080, name: 'http' }, { containerPort: 80, protocol: 'UDP' }], volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }] }],
];

function pod(containers: JsonObject[], labels?: JsonObject): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...(labels ? { labels } : {}) }, spec: { containers } };
}

const SAME_AS_KYVERNO: [string, string][] = [
  [
    'a keyed list (env by name) in every container',
    `spec:
  containers:
  - (name): "*"
    env:
    - name: HTTP_PROXY
      value: http://proxy:8080
    - name: HTTPS_PROXY
      value: https://proxy:8443
    - name: NO_PROXY
      value: localhost`,
  ],
  [
    'a keyed list in the containers a pattern selects, beside a plain key',
    `spec:
  containers:
  - (name): "app*"
    imagePullPolicy: Always
    env:
    - name: HTTP_PROXY
      value: http://proxy:8080`,
  ],
  [
    'a list without a merge key (envFrom), replaced in each selected container',
    `spec:
  containers:
  - (name): "*"
    envFrom:
    - configMapRef:
        name: shared`,
  ],
  [
    'a list of strings below a map (capabilities.drop) and a map beside it',
    `spec:
  containers:
  - (name): "?*"
    securityContext:
      allowPrivilegeEscalation: false
      capabilities:
        drop:
        - ALL`,
  ],
  [
    'a list keyed otherwise (volumeMounts by mountPath)',
    `spec:
  containers:
  - (name): "*"
    volumeMounts:
    - name: cache
      mountPath: /cache`,
  ],
];

describe('lists inside an anchored list element, Kyverno to MAP', () => {
  for (const [what, patch] of SAME_AS_KYVERNO) {
    it(`${what} gives Kyverno's result on every object`, () => {
      const source = kyverno(patch);
      const map = toMap(source);
      for (const containers of CONTAINER_SETS) {
        for (const labels of [undefined, { team: 'a' }]) {
          const object = pod(containers, labels);
          expect(outcome(map, object), JSON.stringify(object)).toEqual(outcome(source, object));
        }
      }
    });
  }

  it('merges the patch items first, then the container own others, in every selected container', () => {
    const map = toMap(kyverno(SAME_AS_KYVERNO[0]![1]));
    const out = outcome(map, pod([{ name: 'app', image: 'nginx', env: env(['LOG', 'debug'], ['HTTPS_PROXY', 'old']) }])) as JsonObject;
    const names = (((out.spec as JsonObject).containers as JsonObject[])[0]!.env as JsonObject[]).map((e) => `${String(e.name)}=${String(e.value)}`);
    expect(names).toEqual(['HTTP_PROXY=http://proxy:8080', 'HTTPS_PROXY=https://proxy:8443', 'NO_PROXY=localhost', 'LOG=debug']);
  });

  it('keeps refusing a list that holds anchors inside an anchored element', () => {
    expect(
      refusal(
        kyverno(`spec:
  containers:
  - (name): "*"
    env:
    - name: HTTP_PROXY
      +(value): x`),
      ),
    ).toMatch(/the list env with anchors inside an anchored list element/);
  });
});
